import type { AbstractSnapshot } from 'abstract-level';
import { ACCOUNTING_FIELDS, decodeAccounting, emptyAccounting, type Accounting } from '../../record/accounting.js';
import { addUsageRows, type ModelUsageRow } from '../../record/model-usage-rows.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import { META_ACCOUNTING_KEY, accountingKey, prefixRange } from '../kv/keys.js';
import type { Fence, PartitionFencing } from '../kv/partition-fencing.js';

/** The two counters reads bump (reads write nothing: they are persisted with the user's next commit or by close). */
export interface ReadCounters {
  retrievals: number;
  retrievalBlocks: number;
}

/** A user's committed state as this process last saw it. */
interface UserState {
  /** The user's accounting record as committed (database format 6: `alloc/acct ␀ user`). */
  readonly acct: Accounting;
  /** The user's partition version this state was read at (fencing; 0 without). */
  readonly version: string;
  /** Whether the user's accounting record was stored when read (false: never written, or purged since). */
  readonly stored: boolean;
}

/** The version every empty partition reports (nothing written yet, or everything purged): it repeats. */
const EMPTY_VERSION = '0';

/** Users whose state is cached at once; beyond it the cache is dropped whole and reread on demand. */
const MAX_CACHED_USERS = 100_000;

/**
 * Per-user state the commit path keeps between transactions: each user's accounting and, on a partitioned backend
 * with fencing, the partition version that state is valid at. A commit of a user checks that version in its own
 * batch (`Fence`); when another process moved the user, the batch fails with AKASHIC_CONFLICT, `forget` drops what
 * this process cached of the user, and the next `load` rereads it. Also the read counters not yet persisted, per
 * user. REQUIRES: the store's write lock for `load`, `committed` and `forget`.
 */
export class UserStates {
  readonly #cf: ColumnFamilies;
  readonly #fencing: PartitionFencing | null;
  readonly #states = new Map<string, UserState>();
  readonly #reads = new Map<string, ReadCounters>();
  readonly #usage = new Map<string, readonly ModelUsageRow[]>();

  /**
   * Writes of a user staged again since open because another process changed the user first (fenced-write.ts);
   * always 0 without fencing. A statistic: `stats().conflictsRetried`.
   */
  conflictsRetried = 0;

  /** True when the backend applies a batch atomically only within one partition (`isPartitioned`). */
  readonly partitioned: boolean;

  constructor(cf: ColumnFamilies, fencing: PartitionFencing | null, partitioned: boolean) {
    this.#cf = cf;
    this.#fencing = fencing;
    this.partitioned = partitioned || fencing !== null;
  }

  /** True when several processes may share the store: every batch of a user is fenced at the user's version. */
  get fenced(): boolean {
    return this.#fencing !== null;
  }

  /** The user's committed accounting and the version it was read at (read once, then cached). */
  async load(userId: string): Promise<UserState> {
    const known = this.#states.get(userId);
    if (known !== undefined) return known;
    let version = EMPTY_VERSION;
    let v: Buffer | undefined;
    if (this.#fencing === null) v = await this.#cf.alloc.get(accountingKey(userId));
    else {
      // The record and the version it is valid at, together (one round trip on Redis).
      const r = await this.#fencing.readAtVersion(userId, [this.#cf.alloc.prefix + accountingKey(userId)]);
      version = r.version;
      v = r.values[0];
    }
    const state = { acct: v === undefined ? emptyAccounting() : decodeAccounting(v, `accounting of ${JSON.stringify(userId)}`), version, stored: v !== undefined };
    if (this.#states.size >= MAX_CACHED_USERS) this.#states.clear();
    this.#states.set(userId, state);
    return state;
  }

  /**
   * Whether this process holds the user's state at a version that names it (read once and kept up to date by its
   * own commits). A state read while the user's partition was empty (version '0') does not count: every empty
   * partition reports '0', so another process may have filled the user and purged it since, and that state's '0'
   * would still match the partition's. Such a state is dropped before the user's next write (`retryOnConflict`),
   * whose reads then begin at the version they really see.
   */
  cached(userId: string): boolean {
    const known = this.#states.get(userId);
    return known !== undefined && (this.#fencing === null || known.version !== EMPTY_VERSION);
  }

  /**
   * Whether what this process caches of the user is still the user's latest state: one read of the partition's
   * version, compared with the version the cache was read at (always true without fencing; false when nothing of
   * the user is cached, since its open-block caches may outlive an evicted state). REQUIRES: the write lock.
   */
  async current(userId: string): Promise<boolean> {
    if (this.#fencing === null) return true;
    const known = this.#states.get(userId);
    return known !== undefined && known.version === (await this.#fencing.partitionVersion(userId));
  }

  /**
   * A commit of the user landed: its accounting is `acct`; `version` is the partition's version the fenced batch
   * left (undefined without fencing). A fenced batch whose backend did not say drops the state (reread next time).
   */
  committed(userId: string, acct: Accounting, version: string | undefined): void {
    if (this.#fencing !== null && version === undefined) this.#states.delete(userId);
    else this.#states.set(userId, { acct, version: version ?? '0', stored: true });
  }

  /**
   * Reads the user's partition version now (the latest acknowledged state; not the cached one), or null without
   * fencing. Needs no lock.
   */
  get versionReader(): ((userId: string) => Promise<string>) | null {
    const f = this.#fencing;
    return f === null ? null : (userId) => f.partitionVersion(userId);
  }

  /** The precondition of a batch of the user's partition (undefined without fencing). REQUIRES: the write lock. */
  async fence(userId: string): Promise<Fence | undefined> {
    if (this.#fencing === null) return undefined;
    return { partition: userId, version: (await this.load(userId)).version };
  }

  /**
   * A fenced batch of the user landed without changing its accounting (co-access, active turns, posting merge),
   * leaving the partition at `version`.
   */
  bumped(userId: string, version: string | undefined): void {
    const prev = this.#states.get(userId);
    if (prev === undefined || this.#fencing === null) return;
    if (version === undefined) this.#states.delete(userId);
    else this.#states.set(userId, { acct: prev.acct, version, stored: prev.stored });
  }

  /** Drops what this process cached of the user (another process changed it). */
  forget(userId: string): void {
    this.#states.delete(userId);
  }

  /** Drops every user's cached state (a batch that wrote around the cache, or a reload of everything). */
  forgetAll(): void {
    this.#states.clear();
  }

  /** The counters a read of the user bumps. */
  readCounters(userId: string): ReadCounters {
    let c = this.#reads.get(userId);
    if (c === undefined) this.#reads.set(userId, (c = { retrievals: 0, retrievalBlocks: 0 }));
    return c;
  }

  /** The user's reads not yet persisted (zeros when none). */
  pendingReads(userId: string): ReadCounters {
    const c = this.#reads.get(userId);
    return { retrievals: c?.retrievals ?? 0, retrievalBlocks: c?.retrievalBlocks ?? 0 };
  }

  /** A commit persisted `done` of the user's reads: they are no longer pending (reads counted meanwhile stay). */
  readsPersisted(userId: string, done: ReadCounters): void {
    const c = this.#reads.get(userId);
    if (c === undefined) return;
    c.retrievals -= done.retrievals;
    c.retrievalBlocks -= done.retrievalBlocks;
    if (c.retrievals === 0 && c.retrievalBlocks === 0) this.#reads.delete(userId);
  }

  /**
   * Adds model usage charged to the user, held in memory until the user's next commit (or close) persists it with
   * the user's accounting. Needs no lock: a commit persists what is pending when it builds its batch.
   */
  noteUsage(userId: string, rows: readonly ModelUsageRow[]): void {
    this.#usage.set(userId, addUsageRows(this.#usage.get(userId) ?? [], rows));
  }

  /** The user's model usage not yet persisted (empty when none). */
  pendingUsage(userId: string): readonly ModelUsageRow[] {
    return this.#usage.get(userId) ?? [];
  }

  /** A commit persisted `done` of the user's usage (usage noted meanwhile stays pending). */
  usagePersisted(userId: string, done: readonly ModelUsageRow[]): void {
    if (done.length === 0) return;
    const left = addUsageRows(this.#usage.get(userId) ?? [], done, -1);
    if (left.length === 0) this.#usage.delete(userId);
    else this.#usage.set(userId, left);
  }

  /** Drops the user's reads and model usage not yet persisted (the user is gone: nothing to persist them in). */
  discardPending(userId: string): void {
    this.#reads.delete(userId);
    this.#usage.delete(userId);
  }

  /** Users with reads or model usage not yet persisted. */
  usersWithPendingCounters(): string[] {
    return [...new Set([...this.#reads.keys(), ...this.#usage.keys()])];
  }

  /**
   * The database's totals: the format-5 record carried over by the upgrade (events before it), plus every user's
   * record, plus this process's reads and model usage not yet persisted (without a snapshot). One range read of the
   * accounting records. `usageByUser`, when given, receives each user's model usage (users with none are left out).
   */
  async totals(snapshot?: AbstractSnapshot, usageByUser?: Map<string, readonly ModelUsageRow[]>): Promise<Accounting> {
    const total = emptyAccounting();
    const add = (a: Accounting): void => {
      for (const f of ACCOUNTING_FIELDS) total[f] += a[f];
      total.modelUsage = addUsageRows(total.modelUsage, a.modelUsage);
    };
    const perUser = (userId: string, rows: readonly ModelUsageRow[]): void => {
      if (usageByUser !== undefined && rows.length > 0) usageByUser.set(userId, addUsageRows(usageByUser.get(userId) ?? [], rows));
    };
    const opts = snapshot === undefined ? {} : { snapshot };
    const carried = await this.#cf.meta.get(META_ACCOUNTING_KEY, opts);
    if (carried !== undefined) add(decodeAccounting(carried, 'accounting carried over from format 5'));
    for await (const [k, v] of this.#cf.alloc.iterator({ ...prefixRange('acct'), ...opts })) {
      const a = decodeAccounting(v, `accounting ${JSON.stringify(k)}`);
      add(a);
      perUser(k.slice('acct'.length + 1), a.modelUsage);
    }
    if (snapshot === undefined) {
      for (const c of this.#reads.values()) {
        total.retrievals += c.retrievals;
        total.retrievalBlocks += c.retrievalBlocks;
      }
      for (const [userId, rows] of this.#usage) {
        total.modelUsage = addUsageRows(total.modelUsage, rows);
        perUser(userId, rows);
      }
    }
    return total;
  }
}

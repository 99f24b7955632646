import { randomBytes } from 'node:crypto';
import { AbstractIterator, AbstractKeyIterator, AbstractLevel, AbstractSnapshot, AbstractValueIterator } from 'abstract-level';
import { AkashicError, invalidArgument } from '../../errors.js';
import { DEFAULT_PARTITION_RULE, GLOBAL_PARTITION, type PartitionRule } from '../partition.js';
import { APPLY_BATCH, READ_AT_VERSION } from './lua-scripts.js';
import { partitionKeys, registryKey, type PartitionKeys } from './partition-keys.js';
import { FrozenSnapshot } from './partition-snapshot.js';
import { MergedRange, PartitionCursor, type Bound, type Entry } from './range-reader.js';
import { DEFAULT_CONNECTION_OPTIONS, NoReplicaError, createClient, replicationError, runScript, withRetry, type RedisClient } from './redis-connection.js';
import { parseRedisUrl, redactRedisUrl, type RedisTarget } from './redis-url.js';

/**
 * What an acknowledged write survives on Redis (docs/redis.md, "Durability"):
 * - `relaxed` and `sync`: acknowledged once the primary applied the batch; it survives what the server's own
 *   persistence survives (with `appendfsync always`, a crash of the primary's host; with `everysec`, all but about
 *   the last second). Redis 7.0 has no per-write fsync request, so the two behave alike here.
 * - `replicated`: acknowledged once at least one replica also has it (WAIT after each batch), so it survives the
 *   loss of the primary. Without a replica's acknowledgement the batch is sent again (same batch id: applied once)
 *   until one acknowledges or `retryMs` ran out, and then the write fails with AKASHIC_IO (outcome unknown).
 */
export type RedisDurability = 'relaxed' | 'sync' | 'replicated';

export interface RedisLevelOptions {
  /** `redis://host:port` or `redis+cluster://host:port,host:port` (see parseRedisUrl), or a parsed target. */
  readonly url: string | RedisTarget;
  /** Which partition each key belongs to. Default: the engine's key layouts (backend/partition.ts). */
  readonly partitions?: PartitionRule;
  /** Default 'sync'. */
  readonly durability?: RedisDurability;
  /** `replicated` only: how long a batch waits for a replica's acknowledgement (ms). Default 2000. */
  readonly replicaWaitMs?: number;
  /** How long a command is retried through a failover or slot move before it fails (ms). Default 10000. */
  readonly retryMs?: number;
}

/**
 * Per-batch options this backend reads besides abstract-level's own.
 * - `expectVersion`: fencing. The batch applies only if `partition`'s version is still `version` (a decimal string,
 *   '0' for a partition that holds nothing); otherwise nothing is applied and the batch fails with AKASHIC_CONFLICT.
 * - `versions`: a map the batch fills with each written partition's new version, so a writer knows the version its
 *   own write produced without another round trip.
 */
export interface RedisBatchOptions {
  /** This batch's durability; default the database's. */
  readonly durability?: RedisDurability;
  readonly expectVersion?: { readonly partition: string; readonly version: string };
  readonly versions?: Map<string, string>;
}

type KeyLike = string | Buffer | Uint8Array;

interface PrivateOp {
  readonly type: 'put' | 'del';
  readonly key: KeyLike;
  readonly value?: KeyLike;
}

/** abstract-level's private range options (bounds already encoded in the key format). */
interface RangeOptions {
  readonly gt?: KeyLike | undefined;
  readonly gte?: KeyLike | undefined;
  readonly lt?: KeyLike | undefined;
  readonly lte?: KeyLike | undefined;
  readonly reverse: boolean;
  readonly limit: number;
  readonly keys?: boolean;
  readonly values?: boolean;
  readonly keyEncoding: string;
  readonly valueEncoding?: string;
  readonly snapshot?: AbstractSnapshot;
}

/** The read options of `_get` and `_getMany` this backend looks at. */
interface ReadOptions {
  readonly valueEncoding?: string;
  readonly snapshot?: AbstractSnapshot;
}

function bytes(k: KeyLike): Buffer {
  if (typeof k === 'string') return Buffer.from(k, 'utf8');
  return Buffer.isBuffer(k) ? k : Buffer.from(k.buffer, k.byteOffset, k.byteLength);
}

function text(k: KeyLike): string {
  return typeof k === 'string' ? k : bytes(k).toString('utf8');
}

function decodeAs(format: string | undefined, b: Buffer): string | Buffer {
  return format === 'utf8' ? b.toString('utf8') : b;
}

/**
 * A snapshot that reads the latest data. Redis has no point-in-time reads across commands, so this handle only
 * satisfies the contract's lifecycle: every read made "in" it sees the data as of that read's own command. The
 * manifest says so (`explicitSnapshots: false`, `latestReadSnapshots: true`); `replicatedWrites` says that durability 'replicated' is
 * honoured (the engine refuses it on backends without the flag).
 */
class LatestSnapshot extends AbstractSnapshot {}

/**
 * An abstract-level database over Redis (one node) or Redis Cluster.
 *
 * Layout: keys are grouped into partitions (`partitionOf`); a partition is a sorted set of its keys (all score 0,
 * so ordered by their bytes, as LevelDB orders them) and a hash of their values, under one hash tag (one slot).
 *
 * Guarantees:
 * - a batch whose keys lie in one partition is one Lua script: all or nothing, isolated from every other command;
 *   a batch over several partitions is one script per partition on a cluster (each atomic, the batch as a whole
 *   not) and one script for all of them on a single node;
 * - a read is as of its own command: `get` and each `getMany` group per partition are atomic, an iterator's page
 *   is atomic, successive pages are not; there are no point-in-time snapshots (see LatestSnapshot);
 * - commands are retried through failovers and slot moves for `retryMs`; a retried batch is recognized by its id
 *   and never applied twice.
 */
export class RedisLevel extends AbstractLevel<Buffer | string, string, Buffer> {
  readonly #target: RedisTarget;
  readonly #url: string;
  readonly #rule: PartitionRule;
  readonly #durability: RedisDurability;
  readonly #waitMs: number;
  readonly #retryMs: number;
  #client: RedisClient | null = null;
  /** Partitions this process knows to be in the registry. */
  readonly #registered = new Set<string>();

  constructor(options: RedisLevelOptions & { readonly keyEncoding?: string; readonly valueEncoding?: string }) {
    const { url, partitions, durability, replicaWaitMs, retryMs, ...forward } = options;
    super(
      {
        seek: true,
        permanence: true,
        implicitSnapshots: false,
        explicitSnapshots: false,
        createIfMissing: false,
        errorIfExists: false,
        encodings: { buffer: true, utf8: true },
        // Not abstract-level flags: what this backend offers instead of snapshots, and its fencing.
        latestReadSnapshots: true,
        frozenPartitionSnapshots: true,
        partitionVersions: true,
        replicatedWrites: true,
      } as never,
      forward as never,
    );
    this.#target = typeof url === 'string' ? parseRedisUrl(url) : url;
    this.#url = typeof url === 'string' ? redactRedisUrl(url) : `${this.#target.mode}:${this.#target.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
    this.#rule = partitions ?? DEFAULT_PARTITION_RULE;
    this.#durability = durability ?? 'sync';
    if (!['relaxed', 'sync', 'replicated'].includes(this.#durability)) throw invalidArgument(`durability must be 'relaxed', 'sync' or 'replicated', got ${String(durability)}`);
    this.#waitMs = replicaWaitMs ?? 2_000;
    this.#retryMs = retryMs ?? DEFAULT_CONNECTION_OPTIONS.retryMs;
  }

  /** The deployment, with any password hidden: for messages and `stats()`. */
  get url(): string {
    return this.#url;
  }

  get target(): RedisTarget {
    return this.#target;
  }

  get durability(): RedisDurability {
    return this.#durability;
  }

  /** The client, for tests and tools that inspect the deployment. REQUIRES: open. @internal */
  get client(): RedisClient {
    if (this.#client === null) throw new AkashicError('AKASHIC_NOT_OPEN', 'the Redis database is not open');
    return this.#client;
  }

  #keys(partition: string): PartitionKeys {
    return partitionKeys(this.#target.prefix, partition);
  }

  /** Where a read of `partition` looks: the partition itself, or its copy when the read is in a frozen snapshot. */
  #readKeys(partition: string, snapshot: AbstractSnapshot | undefined): PartitionKeys | Promise<PartitionKeys> {
    return snapshot instanceof FrozenSnapshot ? snapshot.keysOf(partition) : this.#keys(partition);
  }

  async _open(): Promise<void> {
    const client = createClient(this.#target, { ...DEFAULT_CONNECTION_OPTIONS, retryMs: this.#retryMs });
    // ioredis keeps reconnecting in the background; failures surface on commands, not as unhandled events.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await withRetry(this.#retryMs, () => client.ping(), { client: client });
    } catch (err) {
      client.disconnect();
      throw new AkashicError('AKASHIC_IO', `cannot connect to ${this.#url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    this.#client = client;
  }

  async _close(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    this.#registered.clear();
    if (client === null) return;
    await client.quit().catch(() => client.disconnect());
  }

  async _get(key: KeyLike, options: ReadOptions): Promise<string | Buffer | undefined> {
    const p = this.#rule.partitionOf(text(key));
    // Not awaited unless frozen: the command is then issued in the caller's own tick (ioredis pipelines it with
    // the caller's other commands, and a stack trace names the caller).
    const found = this.#readKeys(p, options.snapshot);
    const where = found instanceof Promise ? await found : found;
    const v = await withRetry(this.#retryMs, () => this.client.hgetBuffer(where.values, bytes(key)), { client: this.client });
    return v === null ? undefined : decodeAs(options.valueEncoding, v);
  }

  async _getMany(keys: KeyLike[], options: ReadOptions): Promise<(string | Buffer | undefined)[]> {
    const groups = new Map<string, number[]>();
    keys.forEach((k, i) => {
      const p = this.#rule.partitionOf(text(k));
      const g = groups.get(p);
      if (g === undefined) groups.set(p, [i]);
      else g.push(i);
    });
    const out: (string | Buffer | undefined)[] = new Array(keys.length).fill(undefined);
    await Promise.all(
      [...groups].map(async ([p, idx]) => {
        const found = this.#readKeys(p, options.snapshot);
        const where = found instanceof Promise ? await found : found;
        const vs = await withRetry(this.#retryMs, () => this.client.hmgetBuffer(where.values, ...idx.map((i) => bytes(keys[i]!))), { client: this.client });
        idx.forEach((i, j) => {
          const v = vs[j];
          out[i] = v === null || v === undefined ? undefined : decodeAs(options.valueEncoding, v);
        });
      }),
    );
    return out;
  }

  async _put(key: KeyLike, value: KeyLike, options: RedisBatchOptions): Promise<void> {
    await this._batch([{ type: 'put', key, value }], options);
  }

  async _del(key: KeyLike, options: RedisBatchOptions): Promise<void> {
    await this._batch([{ type: 'del', key }], options);
  }

  async _batch(operations: readonly PrivateOp[], options: RedisBatchOptions): Promise<void> {
    const fence = options?.expectVersion;
    if (fence !== undefined && (typeof fence.partition !== 'string' || typeof fence.version !== 'string' || !/^[0-9]+$/.test(fence.version))) {
      throw invalidArgument('expectVersion must be { partition: string, version: decimal string }');
    }
    const groups = new Map<string, (string | Buffer)[]>();
    for (const op of operations) {
      const p = this.#rule.partitionOf(text(op.key));
      let args = groups.get(p);
      if (args === undefined) groups.set(p, (args = []));
      if (op.type === 'put') args.push('p', bytes(op.key), bytes(op.value!));
      else args.push('d', bytes(op.key), '');
    }
    if (fence !== undefined && !groups.has(fence.partition)) groups.set(fence.partition, []);
    if (groups.size === 0) return;
    const parts = [...groups.keys()];
    const durability = options?.durability ?? this.#durability;
    if (this.#target.mode === 'single') await this.#apply(parts, groups, fence, options?.versions, durability);
    else await Promise.all(parts.map((p) => this.#apply([p], groups, fence, options?.versions, durability)));
  }

  /** Applies the groups of `parts` as one script (one partition on a cluster). */
  async #apply(
    parts: string[],
    groups: Map<string, (string | Buffer)[]>,
    fence: RedisBatchOptions['expectVersion'],
    versions: Map<string, string> | undefined,
    durability: RedisDurability,
  ): Promise<void> {
    const client = this.client;
    const fresh = parts.filter((p) => !this.#registered.has(p));
    // Registered before the data is written, so a crash between the two leaves a registered empty partition
    // (harmless) rather than data no cross-partition scan would find.
    if (fresh.length > 0) await withRetry(this.#retryMs, () => client.sadd(registryKey(this.#target.prefix), ...fresh), { client: client });
    for (const p of fresh) this.#registered.add(p);
    const keys: string[] = [];
    const args: (string | Buffer)[] = [randomBytes(12).toString('base64'), String(parts.length)];
    for (const p of parts) {
      const k = this.#keys(p);
      keys.push(k.order, k.values, k.version, k.recent);
      args.push(fence !== undefined && fence.partition === p ? fence.version : '', String(groups.get(p)!.length / 3));
    }
    for (const p of parts) for (const a of groups.get(p)!) args.push(a);
    const replicas = durability === 'replicated' ? 1 : 0;
    // Two phases of waiting, each with the full retry budget: for the slot's primary (a failover, a slot move), then,
    // from the first time the applied batch lacked a replica's acknowledgement, for a replica (after a failover the
    // promoted primary has none until one rejoins).
    let replicaPhase = false;
    const toReplicaPhase = (err: unknown): boolean => err instanceof NoReplicaError && !replicaPhase && (replicaPhase = true);
    const reply = (await withRetry(this.#retryMs, () => runScript(client, APPLY_BATCH, keys, args, replicas, this.#waitMs), { restart: toReplicaPhase }).catch((err: unknown) => {
      throw err instanceof NoReplicaError ? replicationError(err) : err;
    })) as (Buffer | number)[];
    const status = Number(reply[0]);
    if (status === 0) {
      const p = parts[Number(reply[1]) - 1]!;
      throw new AkashicError('AKASHIC_CONFLICT', `partition ${JSON.stringify(p)} is at version ${String(reply[2])}, not the expected ${fence!.version}: another writer changed it; nothing was applied`);
    }
    if (status === 2) return; // a retry of a batch the first attempt had applied
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      versions?.set(p, String(reply[1 + 3 * i]));
      const emptyBefore = Number(reply[2 + 3 * i]) === 1;
      const emptyAfter = Number(reply[3 + 3 * i]) === 1;
      await this.#keepRegistry(p, emptyBefore && !fresh.includes(p), emptyAfter);
    }
  }

  /**
   * Keeps the registry true across writers: a partition that a batch found empty is (re-)added after it, one a
   * batch emptied is removed and then re-added if another writer filled it meanwhile. Every batch that finds a
   * partition empty re-adds it after its own write, so any interleaving of an emptying and a filling writer ends
   * with the partition registered exactly when it holds data.
   */
  async #keepRegistry(p: string, readd: boolean, emptied: boolean): Promise<void> {
    const client = this.client;
    const reg = registryKey(this.#target.prefix);
    if (readd) await withRetry(this.#retryMs, () => client.sadd(reg, p), { client: client });
    if (!emptied) return;
    this.#registered.delete(p);
    await withRetry(this.#retryMs, () => client.srem(reg, p), { client: client });
    if ((await withRetry(this.#retryMs, () => client.exists(this.#keys(p).order), { client: client })) > 0) await withRetry(this.#retryMs, () => client.sadd(reg, p), { client: client });
  }

  /** The partitions that hold data (the registry), for scans across partitions. */
  async partitions(): Promise<string[]> {
    const members = await withRetry(this.#retryMs, () => this.client.smembers(registryKey(this.#target.prefix)), { client: this.client });
    return members.sort();
  }

  /** A partition's version: '0' when it holds nothing; otherwise it moves with every batch that writes it. */
  async partitionVersion(partition: string): Promise<string> {
    const v = await withRetry(this.#retryMs, () => this.client.hget(this.#keys(partition).version, 'n'), { client: this.client });
    return v ?? '0';
  }

  /**
   * Values of keys of one partition (root keys, as bytes or UTF-8) and the partition's version, read at one instant
   * in one script: a writer's view of a user and the version it is valid at. REQUIRES: every key in `partition`
   * (at most a few thousand: one script's arguments).
   */
  async readAtVersion(partition: string, keys: readonly KeyLike[]): Promise<{ version: string; values: (Buffer | undefined)[] }> {
    const k = this.#keys(partition);
    const reply = (await withRetry(this.#retryMs, () => runScript(this.client, READ_AT_VERSION, [k.values, k.version], keys.map(bytes)))) as (Buffer | null)[];
    return { version: String(reply[0]), values: keys.map((_, i) => reply[i + 1] ?? undefined) };
  }

  /** The partition a key belongs to under this database's rule. */
  partitionOf(key: string): string {
    return this.#rule.partitionOf(key);
  }

  /** Cursors over the partitions a range can touch, merged into key order. */
  async openRange(o: RangeOptions, values: boolean): Promise<MergedRange> {
    const low: Bound | null = o.gte !== undefined ? { key: bytes(o.gte), inclusive: true } : o.gt !== undefined ? { key: bytes(o.gt), inclusive: false } : null;
    const high: Bound | null = o.lte !== undefined ? { key: bytes(o.lte), inclusive: true } : o.lt !== undefined ? { key: bytes(o.lt), inclusive: false } : null;
    const one = this.#rule.partitionOfRange(low === null ? undefined : low.key.toString('utf8'), high === null ? undefined : high.key.toString('utf8'));
    const frozen = o.snapshot instanceof FrozenSnapshot ? o.snapshot : undefined;
    const parts = one !== null ? [one] : [...(await (frozen ?? this).partitions())];
    if (parts.length === 0) parts.push(GLOBAL_PARTITION);
    const src = { client: this.client, retryMs: this.#retryMs };
    const where = await Promise.all(parts.map((p) => this.#readKeys(p, frozen)));
    return new MergedRange(
      where.map((k) => new PartitionCursor(src, k, low, high, o.reverse, values)),
      o.reverse,
    );
  }

  async _clear(options: RangeOptions): Promise<void> {
    const range = await this.openRange(options, false);
    let left = options.limit < 0 ? Infinity : options.limit;
    while (left > 0) {
      const page = await range.take(Math.min(left, 512));
      if (page.length === 0) return;
      await this._batch(page.map((e) => ({ type: 'del', key: e[0] })), {});
      left -= page.length;
    }
  }

  _iterator(options: RangeOptions): RedisEntryIterator {
    return new RedisEntryIterator(this, options);
  }

  _keys(options: RangeOptions): RedisKeyIterator {
    return new RedisKeyIterator(this, options);
  }

  _values(options: RangeOptions): RedisValueIterator {
    return new RedisValueIterator(this, options);
  }

  /**
   * A snapshot handle. By default it reads the latest data (LatestSnapshot: free, for the engine's own reads).
   * With `{ frozenPartitions: true }` it reads every partition as of one instant (FrozenSnapshot: a copy of each
   * partition it reads, for admin reads beside writers; the manifest's `frozenPartitionSnapshots`).
   */
  _snapshot(options: { frozenPartitions?: boolean } | undefined): AbstractSnapshot {
    if (options?.frozenPartitions === true) {
      const src = { client: this.client, retryMs: this.#retryMs, prefix: this.#target.prefix, partitions: () => this.partitions() };
      return new FrozenSnapshot(src, options);
    }
    return new (LatestSnapshot as unknown as new (o: unknown) => AbstractSnapshot)(options);
  }
}

/**
 * The state the three iterator kinds share: the range (narrowed by seek), the merged cursors (opened lazily: an
 * iterator's constructor cannot wait) and how many entries the limit still allows.
 */
class RangeState {
  readonly db: RedisLevel;
  options: RangeOptions;
  readonly values: boolean;
  #range: Promise<MergedRange> | null = null;
  left: number;

  constructor(db: RedisLevel, options: RangeOptions, values: boolean) {
    this.db = db;
    this.options = options;
    this.values = values;
    this.left = options.limit < 0 ? Infinity : options.limit;
  }

  async take(size: number): Promise<Entry[]> {
    const n = Math.min(size, this.left);
    if (n <= 0) return [];
    this.#range ??= this.db.openRange(this.options, this.values);
    // Pages are read up to what the limit still allows, not up to `n`: `_next` asks for one entry at a time.
    const out = await (await this.#range).take(n, this.left);
    this.left -= out.length;
    return out;
  }

  /** Restarts at `target` (inclusive), never outside the original range. */
  seek(target: KeyLike): void {
    const t = bytes(target);
    const o = this.options;
    if (o.reverse) {
      const hi = o.lte ?? o.lt;
      if (hi === undefined || Buffer.compare(t, bytes(hi)) < 0) this.options = { ...o, lte: t, lt: undefined };
    } else {
      const lo = o.gte ?? o.gt;
      if (lo === undefined || Buffer.compare(t, bytes(lo)) > 0) this.options = { ...o, gte: t, gt: undefined };
    }
    this.#range = null;
  }
}

const STEP = 128;

// The iterator hooks are not in abstract-level's type declarations; these classes implement them.
class RedisEntryIterator extends AbstractIterator<RedisLevel, string | Buffer, string | Buffer> {
  readonly #s: RangeState;
  constructor(db: RedisLevel, options: RangeOptions) {
    super(db, options as never);
    this.#s = new RangeState(db, options, options.values !== false);
  }
  #shape(e: Entry): [string | Buffer | undefined, string | Buffer | undefined] {
    const o = this.#s.options;
    return [o.keys === false ? undefined : decodeAs(o.keyEncoding, e[0]), e[1] === undefined ? undefined : decodeAs(o.valueEncoding, e[1])];
  }
  async _next(): Promise<[string | Buffer | undefined, string | Buffer | undefined] | undefined> {
    const [e] = await this.#s.take(1);
    return e === undefined ? undefined : this.#shape(e);
  }
  async _nextv(size: number): Promise<[string | Buffer | undefined, string | Buffer | undefined][]> {
    return (await this.#s.take(size)).map((e) => this.#shape(e));
  }
  async _all(): Promise<[string | Buffer | undefined, string | Buffer | undefined][]> {
    const out: [string | Buffer | undefined, string | Buffer | undefined][] = [];
    for (let page = await this.#s.take(STEP); page.length > 0; page = await this.#s.take(STEP * 8)) for (const e of page) out.push(this.#shape(e));
    return out;
  }
  _seek(target: KeyLike): void {
    this.#s.seek(target);
  }
}

class RedisKeyIterator extends AbstractKeyIterator<RedisLevel, string | Buffer> {
  readonly #s: RangeState;
  constructor(db: RedisLevel, options: RangeOptions) {
    super(db, options as never);
    this.#s = new RangeState(db, options, false);
  }
  async _next(): Promise<string | Buffer | undefined> {
    const [e] = await this.#s.take(1);
    return e === undefined ? undefined : decodeAs(this.#s.options.keyEncoding, e[0]);
  }
  async _nextv(size: number): Promise<(string | Buffer)[]> {
    return (await this.#s.take(size)).map((e) => decodeAs(this.#s.options.keyEncoding, e[0]));
  }
  async _all(): Promise<(string | Buffer)[]> {
    const out: (string | Buffer)[] = [];
    for (let page = await this.#s.take(STEP); page.length > 0; page = await this.#s.take(STEP * 8)) for (const e of page) out.push(decodeAs(this.#s.options.keyEncoding, e[0]));
    return out;
  }
  _seek(target: KeyLike): void {
    this.#s.seek(target);
  }
}

class RedisValueIterator extends AbstractValueIterator<RedisLevel, string | Buffer, string | Buffer> {
  readonly #s: RangeState;
  constructor(db: RedisLevel, options: RangeOptions) {
    super(db, options as never);
    this.#s = new RangeState(db, options, true);
  }
  async _next(): Promise<string | Buffer | undefined> {
    const [e] = await this.#s.take(1);
    return e?.[1] === undefined ? undefined : decodeAs(this.#s.options.valueEncoding, e[1]);
  }
  async _nextv(size: number): Promise<(string | Buffer)[]> {
    return (await this.#s.take(size)).map((e) => decodeAs(this.#s.options.valueEncoding, e[1]!));
  }
  async _all(): Promise<(string | Buffer)[]> {
    const out: (string | Buffer)[] = [];
    for (let page = await this.#s.take(STEP); page.length > 0; page = await this.#s.take(STEP * 8)) for (const e of page) out.push(decodeAs(this.#s.options.valueEncoding, e[1]!));
    return out;
  }
  _seek(target: KeyLike): void {
    this.#s.seek(target);
  }
}

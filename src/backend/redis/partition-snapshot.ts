import { randomBytes } from 'node:crypto';
import { AbstractSnapshot } from 'abstract-level';
import { AkashicError } from '../../errors.js';
import { FREEZE_PARTITION, REFRESH_FROZEN } from './lua-scripts.js';
import { frozenKeys, partitionKeys, type PartitionKeys } from './partition-keys.js';
import { runScript, withRetry, type RedisClient } from './redis-connection.js';

/** How long a frozen copy lives without being read (ms): a read that dies leaves nothing behind for longer. */
export const FROZEN_TTL_MS = 60 * 60_000;
/** A copy read after this long since its last refresh has its life extended first (one command). */
const REFRESH_AFTER_MS = 10 * 60_000;

/** What a frozen snapshot needs of the database: its client, retry budget, key prefix and partition list. */
export interface FreezeSource {
  readonly client: RedisClient;
  readonly retryMs: number;
  readonly prefix: string;
  /** The partitions that hold data now (the registry). */
  partitions(): Promise<string[]>;
}

interface Frozen {
  readonly keys: PartitionKeys;
  refreshed: number;
}

/**
 * A snapshot that reads each partition as of one instant: the first time a read of the snapshot touches a
 * partition, one script copies the partition's keys (COPY, in its slot, atomically with respect to every commit),
 * and every later read of that partition in the snapshot reads the copy. The set of partitions is fixed the first
 * time a read spans partitions, so a partition created after that is not seen by such reads.
 *
 * What it guarantees: every partition (so every user's state) is seen whole, as of one commit, however long the
 * read takes and whatever writers do meanwhile; different partitions are seen at different instants (commits are
 * atomic per partition only, so no invariant spans two). What it costs: a copy of each partition read, in the
 * partition's node's memory, until `close` (or FROZEN_TTL_MS after its last refresh when the reader dies).
 *
 * Used for admin reads (`snapshot({ frozenPartitions: true })`: verify, dump, inspect); the engine's own reads use
 * the latest data (LatestSnapshot), which costs nothing.
 */
export class FrozenSnapshot extends AbstractSnapshot {
  readonly #src: FreezeSource;
  readonly #id = randomBytes(9).toString('base64url');
  readonly #frozen = new Map<string, Promise<Frozen>>();
  #partitions: Promise<string[]> | null = null;

  constructor(src: FreezeSource, options: unknown) {
    // abstract-level's declarations omit the constructor's options (its owner database) and the _close hook.
    super(...([options] as unknown as []));
    this.#src = src;
  }

  /** The partitions this snapshot's cross-partition reads cover (the registry at its first such read). */
  partitions(): Promise<string[]> {
    return (this.#partitions ??= this.#src.partitions());
  }

  /** The keys to read `partition` from in this snapshot, copying the partition on first use. */
  async keysOf(partition: string): Promise<PartitionKeys> {
    let f = this.#frozen.get(partition);
    if (f === undefined) {
      f = this.#freeze(partition);
      this.#frozen.set(partition, f);
      f.catch(() => this.#frozen.delete(partition));
    }
    const frozen = await f;
    if (Date.now() - frozen.refreshed > REFRESH_AFTER_MS) await this.#refresh(partition, frozen);
    return frozen.keys;
  }

  async #freeze(partition: string): Promise<Frozen> {
    const live = partitionKeys(this.#src.prefix, partition);
    const copy = frozenKeys(this.#src.prefix, partition, this.#id);
    const keys = [live.order, live.values, live.version, copy.order, copy.values, copy.version, copy.recent];
    await withRetry(this.#src.retryMs, () => runScript(this.#src.client, FREEZE_PARTITION, keys, [String(FROZEN_TTL_MS)]));
    return { keys: copy, refreshed: Date.now() };
  }

  async #refresh(partition: string, frozen: Frozen): Promise<void> {
    const k = frozen.keys;
    const alive = await withRetry(this.#src.retryMs, () => runScript(this.#src.client, REFRESH_FROZEN, [k.order, k.values, k.version, k.recent], [String(FROZEN_TTL_MS)]));
    if (Number(alive) !== 1) {
      throw new AkashicError('AKASHIC_IO', `the consistent read's copy of partition ${JSON.stringify(partition)} is gone (expired, or the node lost it in a failover): run the command again`);
    }
    frozen.refreshed = Date.now();
  }

  /** Deletes every copy this snapshot made (best effort: what is left expires by itself). */
  async _close(): Promise<void> {
    const all = await Promise.allSettled(this.#frozen.values());
    this.#frozen.clear();
    await Promise.all(
      all.map(async (r) => {
        if (r.status !== 'fulfilled') return;
        const k = r.value.keys;
        await withRetry(this.#src.retryMs, () => this.#src.client.del(k.order, k.values, k.version, k.recent), { client: this.#src.client }).catch(() => undefined);
      }),
    );
  }
}

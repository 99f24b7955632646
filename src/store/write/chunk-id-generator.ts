import type { ULIDFactory } from 'ulid';
import { ulidModule } from '../../util/ulid-module.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import { SEP, parseDirKey, prefixRange } from '../kv/keys.js';

/**
 * The ULIDs' randomness: crypto-strong bytes drawn from a pool refilled 4 KiB at a time. ulid's default draws each
 * of an id's 16 random characters with its own `crypto.getRandomValues` call, which was ~5 % of a put's CPU.
 * Returns a fraction in [0, 1) whose `× 32` is a uniform character index (a byte / 256). Web Crypto's
 * `getRandomValues` (the same source as `randomFillSync`) loads Node's crypto module on the first refill, not when
 * Akashic is imported.
 */
const RANDOM_POOL = Buffer.alloc(4096);
let randomAt = RANDOM_POOL.length;
function pooledRandom(): number {
  if (randomAt >= RANDOM_POOL.length) {
    globalThis.crypto.getRandomValues(RANDOM_POOL);
    randomAt = 0;
  }
  return RANDOM_POOL[randomAt++]! / 256;
}

/**
 * Chunk ids (ULIDs), monotonic within a namespace (user, session): a generated id is past every key of its
 * namespace, so key order is write order. The first id of a namespace reads its last key once.
 * REQUIRES: the write lock (one generator per store).
 */
export class ChunkIdGenerator {
  readonly #ulids = new Map<string, { f: ULIDFactory; last: string }>();
  readonly #cf: ColumnFamilies;

  constructor(cf: ColumnFamilies) {
    this.#cf = cf;
  }

  /** Keeps generated ids past an id given from outside (explicit put, restore) in a namespace already in use. */
  note(userId: string, sessionId: string, chunkId: string): void {
    const g = this.#ulids.get(userId + SEP + sessionId);
    if (g !== undefined && chunkId > g.last) g.last = chunkId;
  }

  /** A fresh id for the namespace, at time `now` or just past its newest id. */
  async next(userId: string, sessionId: string, now: number): Promise<string> {
    const ns = userId + SEP + sessionId;
    let g = this.#ulids.get(ns);
    if (g === undefined) {
      let last = '';
      for await (const k of this.#cf.dir.keys({ ...prefixRange(userId, sessionId), reverse: true, limit: 1 })) {
        last = parseDirKey(k)?.chunkId ?? '';
      }
      g = { f: ulidModule().monotonicFactory(pooledRandom), last };
      this.#ulids.set(ns, g);
    }
    const lastTime = g.last === '' ? 0 : ulidModule().decodeTime(g.last);
    let id = g.f(Math.max(now, lastTime));
    if (id <= g.last) id = g.f(lastTime + 1);
    g.last = id;
    return id;
  }
}

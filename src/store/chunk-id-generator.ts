import { decodeTime, monotonicFactory, type ULIDFactory } from 'ulid';
import type { ColumnFamilies } from './column-families.js';
import { SEP, parseDirKey, prefixRange } from './keys.js';

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
      g = { f: monotonicFactory(), last };
      this.#ulids.set(ns, g);
    }
    const lastTime = g.last === '' ? 0 : decodeTime(g.last);
    let id = g.f(Math.max(now, lastTime));
    if (id <= g.last) id = g.f(lastTime + 1);
    g.last = id;
    return id;
  }
}

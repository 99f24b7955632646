/**
 * Co-access observations counted in memory and persisted in batches.
 *
 * Every recall records its chunks' access counts and every pair among them (5 chunks: 15 counters). Written as one
 * LevelDB batch per recall, those counters wrote more to the device than the chunks themselves on an admission
 * trace (a recall at every user turn). Requests on one topic recall overlapping sets, so the same counters recur
 * within a few requests: buffering them and writing the merged increments once per `flushEvery` observations writes
 * each recurring counter once per batch instead of once per request.
 *
 * Contract: the buffer is part of the co-access statistics the store reports (`StoreCore.coAccess` adds it to what
 * is persisted), so readers never see a count go backwards. The counts are statistics, not data: a crash loses the
 * observations of at most the last `flushEvery` requests; `close()` persists them. A purge discards the buffered
 * counts of its scope before they can reach the disk; another process's purge is caught at the flush, which drops
 * the counters of chunks the directory no longer has (`persistCoAccess`).
 * @internal
 */
import { SEP } from '../kv/keys.js';

/** A buffered counter: increments since the last flush and the time of the latest. */
interface Pending {
  count: number;
  lastAt: number;
}

/** Requests whose observations are merged into one batch. */
export const CO_ACCESS_FLUSH_EVERY = 64;

export class CoAccessBuffer {
  /** user → column-family key (`a␀user␀ref` or `p␀user␀pair`) → increments. */
  #pending = new Map<string, Map<string, Pending>>();
  #observations = 0;

  /** Requests recorded since the last drain. */
  get observations(): number {
    return this.#observations;
  }

  /** Adds one request's counters (`keys`: its access and pair keys, each once). */
  add(userId: string, keys: readonly string[], now: number): void {
    let m = this.#pending.get(userId);
    if (m === undefined) {
      m = new Map();
      this.#pending.set(userId, m);
    }
    for (const k of keys) {
      const p = m.get(k);
      if (p === undefined) m.set(k, { count: 1, lastAt: now });
      else {
        p.count++;
        p.lastAt = now;
      }
    }
    this.#observations++;
  }

  /** Buffered increments of one key (0 when none). */
  count(userId: string, key: string): number {
    return this.#pending.get(userId)?.get(key)?.count ?? 0;
  }

  /** The user's buffered keys and increments. */
  *entries(userId: string): Generator<[string, number]> {
    for (const [k, p] of this.#pending.get(userId) ?? []) yield [k, p.count];
  }

  /**
   * Puts back the user's increments a flush could not write (another writer kept changing the user until the
   * fenced write's retries ran out), merged with any counted since, so no count a reader saw goes backwards and the
   * next flush carries them. Adds no observation: the flush cadence is unchanged.
   */
  restore(userId: string, increments: ReadonlyMap<string, Pending>): void {
    let m = this.#pending.get(userId);
    if (m === undefined) {
      m = new Map();
      this.#pending.set(userId, m);
    }
    for (const [k, p] of increments) {
      const now = m.get(k);
      if (now === undefined) m.set(k, { count: p.count, lastAt: p.lastAt });
      else {
        now.count += p.count;
        now.lastAt = Math.max(now.lastAt, p.lastAt);
      }
    }
  }

  /** Takes everything buffered (the caller persists it). */
  drain(): Map<string, Pending> {
    const out = new Map<string, Pending>();
    for (const m of this.#pending.values()) for (const [k, p] of m) out.set(k, p);
    this.#pending = new Map();
    this.#observations = 0;
    return out;
  }

  /**
   * Drops the user's buffered counters that `inScope` accepts (given the key's ref parts after `a␀user␀` or
   * `p␀user␀`); returns how many were dropped. A purge calls it under the write lock, so nothing it erases is
   * persisted later.
   */
  discard(userId: string, inScope: (refParts: readonly string[]) => boolean): number {
    const m = this.#pending.get(userId);
    if (m === undefined) return 0;
    const prefixLength = 2 + userId.length + 1;
    let n = 0;
    for (const k of [...m.keys()]) {
      if (inScope(k.slice(prefixLength).split(SEP))) {
        m.delete(k);
        n++;
      }
    }
    if (m.size === 0) this.#pending.delete(userId);
    return n;
  }
}

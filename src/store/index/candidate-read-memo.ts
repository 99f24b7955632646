/**
 * What recall's candidate gathering read of one user, kept while the user's data is unchanged: the candidate index's
 * key ranges (the newest chunks, the pending list, each query keyword's postings) and the directory values of the
 * chunks found. A warm recall then reads only what the memo lacks (postings of a keyword not asked for yet, the
 * entries of the chunks those name) instead of the window and a few hundred directory entries every time.
 *
 * Valid at one version of the user, given by the caller per read (`CandidateVersion`):
 * - LevelDB and memory-level (one process writes, through the store's `BatchWriter`): the writer's generation,
 *   which moves when a batch writing the directory or the candidate index completes, taken in the same synchronous
 *   step as the read's snapshot, and no version at all while such a batch is in flight (a snapshot taken then may
 *   or may not hold it, so the memo is neither used nor filled);
 * - a backend with partition versions (Redis): the user's partition version, read (one round trip) before the
 *   reads. Versions never repeat (but '0', an empty partition's, which is never used), so data read after the
 *   version moved is filed under a version no later read will present again.
 * What a recall therefore sees: every write acknowledged before the recall started, by this process or (Redis)
 * any other, exactly as without the memo.
 *
 * Besides the bytes read, a user's memo keeps what the gathering derived from them alone (the parsed keys of a
 * range, the decoded directory entry of a value), filed under the same version and dropped with it: a warm recall
 * then neither parses the window's keys nor checks a few hundred decoded entries against their bytes again.
 *
 * Byte-bounded over all users (least recently used user dropped first); a user whose reads alone exceed the bound
 * reads past the memo. The cold reopen empties it.
 * @internal
 */
import type { IndexRange } from './candidate-index.js';
import { ownBytes } from '../../util/own-bytes.js';

/**
 * The version a read of `userId` is valid at; null: not known (a write is in flight, or the backend offers none),
 * the read then bypasses the memo.
 */
export type CandidateVersion = (userId: string) => string | null | Promise<string | null>;

/** Rough heap cost of a memo entry beyond its strings and bytes. */
const ENTRY_OVERHEAD = 64;

class UserMemo {
  readonly version: string;
  readonly scans = new Map<string, readonly string[]>();
  readonly values = new Map<string, Buffer | undefined>();
  /** What a read derived from the ranges and values above (parsed hits, decoded entries): as valid as they are. */
  readonly derived = new Map<string, unknown>();
  readonly decoded = new Map<string, unknown>();
  bytes = 0;
  /** False once dropped from the memo (version moved, evicted, cleared): reads still finishing file nothing here. */
  attached = true;

  constructor(version: string) {
    this.version = version;
  }
}

export class CandidateReadMemo {
  readonly maxBytes: number;
  #bytes = 0;
  readonly #users = new Map<string, UserMemo>();
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The memo of `userId` at `version` (a fresh one when the version moved); null: read past the memo. */
  view(userId: string, version: string | null): MemoView | null {
    if (version === null || this.maxBytes === 0) return null;
    let u = this.#users.get(userId);
    if (u !== undefined && u.version !== version) {
      this.#drop(userId, u);
      u = undefined;
    }
    if (u === undefined) u = new UserMemo(version);
    // Most recently used last (Map keeps insertion order).
    this.#users.delete(userId);
    this.#users.set(userId, u);
    return new MemoView(this, userId, u);
  }

  clear(): void {
    for (const u of this.#users.values()) u.attached = false;
    this.#users.clear();
    this.#bytes = 0;
  }

  /** Files `bytes` more under `u`, evicting older users; false when it does not fit (nothing filed). @internal */
  reserve(userId: string, u: UserMemo, bytes: number): boolean {
    if (!u.attached || u.bytes + bytes > this.maxBytes) return false;
    u.bytes += bytes;
    this.#bytes += bytes;
    for (const [k, v] of this.#users) {
      if (this.#bytes <= this.maxBytes) break;
      if (k === userId) continue;
      this.#drop(k, v);
    }
    return true;
  }

  #drop(userId: string, u: UserMemo): void {
    u.attached = false;
    this.#users.delete(userId);
    this.#bytes -= u.bytes;
  }
}

/** One read's access to a user's memo. */
export class MemoView {
  readonly #memo: CandidateReadMemo;
  readonly #userId: string;
  readonly #u: UserMemo;

  constructor(memo: CandidateReadMemo, userId: string, u: UserMemo) {
    this.#memo = memo;
    this.#userId = userId;
    this.#u = u;
  }

  /** The keys of `range`: from the memo, or `read` and filed. The array returned must not be mutated. */
  async scan(range: IndexRange, read: () => Promise<string[]>): Promise<readonly string[]> {
    const id = `${range.reverse ? 'r' : 'f'}${range.limit}\u0000${range.gte}\u0000${range.lt}`;
    const known = this.#u.scans.get(id);
    if (known !== undefined) {
      this.#memo.hits++;
      return known;
    }
    this.#memo.misses++;
    const keys = await read();
    let bytes = ENTRY_OVERHEAD + 2 * id.length;
    for (const k of keys) bytes += 2 * k.length + 16;
    if (this.#memo.reserve(this.#userId, this.#u, bytes)) this.#u.scans.set(id, keys);
    return keys;
  }

  /** The values of `keys` (absent: undefined): those the memo lacks are read with one `read` call and filed. */
  async values(keys: readonly string[], read: (missing: string[]) => Promise<(Buffer | undefined)[]>): Promise<(Buffer | undefined)[]> {
    const vs = this.#u.values;
    const missing = keys.filter((k) => !vs.has(k));
    this.#memo.hits += keys.length - missing.length;
    this.#memo.misses += missing.length;
    if (missing.length > 0) {
      const got = await read(missing);
      missing.forEach((k, i) => {
        const v = got[i];
        // Values read from the store may be views into a larger buffer (a backend's page): kept only as bytes of their own.
        const copy = v === undefined ? undefined : ownBytes(v);
        if (this.#memo.reserve(this.#userId, this.#u, ENTRY_OVERHEAD + 2 * k.length + (copy?.length ?? 0))) vs.set(k, copy);
      });
      if (missing.length === keys.length) return got;
      const fresh = new Map(missing.map((k, i) => [k, got[i]]));
      return keys.map((k) => (fresh.has(k) ? fresh.get(k) : vs.get(k)));
    }
    return keys.map((k) => vs.get(k));
  }

  /**
   * What `make` derives from reads of this user at this version alone, filed under `id` (its heap cost estimated by
   * `bytes`) and made once per version. The value returned must not be mutated.
   */
  async derive<T>(id: string, bytes: (value: T) => number, make: () => Promise<T>): Promise<T> {
    const ds = this.#u.derived;
    if (ds.has(id)) {
      this.#memo.hits++;
      return ds.get(id) as T;
    }
    this.#memo.misses++;
    const value = await make();
    if (this.#memo.reserve(this.#userId, this.#u, ENTRY_OVERHEAD + 2 * id.length + bytes(value))) ds.set(id, value);
    return value;
  }

  /**
   * The decoded values of the items `ids` names (ids unique within the user, e.g. an index hit's tail): those
   * decoded at this version before from the memo, the others `decode`d from the values of their `keyOf` keys (read
   * as `values` does) and filed. `decode` must be a function of the key and its value alone; what it throws (a
   * missing or damaged value) is not filed.
   */
  async decoded<T>(
    ids: readonly string[],
    keyOf: (i: number) => string,
    read: (missing: string[]) => Promise<(Buffer | undefined)[]>,
    decode: (key: string, v: Buffer | undefined, i: number) => T,
  ): Promise<T[]> {
    const ds = this.#u.decoded;
    const out = new Array<T>(ids.length);
    const missing: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const d = ds.get(ids[i]!);
      if (d === undefined) missing.push(i);
      else out[i] = d as T;
    }
    this.#memo.hits += ids.length - missing.length;
    if (missing.length === 0) return out;
    const keys = missing.map(keyOf);
    const vs = await this.values(keys, read);
    missing.forEach((i, j) => {
      const d = decode(keys[j]!, vs[j], i);
      out[i] = d;
      if (this.#memo.reserve(this.#userId, this.#u, ENTRY_OVERHEAD + 2 * ids[i]!.length)) ds.set(ids[i]!, d);
    });
    return out;
  }
}

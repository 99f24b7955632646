import { decodeDirEntry, decodeDirEntryLazily, type DirEntry } from '../../record/dir-entry.js';
import { ByteLru } from '../../util/byte-lru.js';
import { ownBytes } from '../../util/own-bytes.js';

/** Rough heap cost of a cached entry beyond its stored bytes: the key, the entry object and its strings. */
const OVERHEAD_BYTES = 256;

interface Memo {
  readonly raw: Buffer;
  readonly sessionId: string;
  readonly entry: DirEntry;
}

/**
 * A byte-bounded LRU memo of decoded directory entries, keyed by directory key and checked against the stored
 * bytes. Recall gathers the same few hundred entries at every call and decoding them (up to 64 keywords each) was
 * a quarter of a warm recall's work; the bytes are still read at every call, so an entry is reused only when the
 * value read now is byte for byte the one it was decoded from. It can therefore never be stale, whatever wrote the
 * directory since (this process, another process on a shared backend, a restore): no version, no invalidation.
 *
 * Entries handed out are shared between callers: they are read-only (`DirEntry` is readonly throughout) and must
 * not be mutated. `maxBytes = 0` disables the memo.
 * @internal
 */
export class DecodedEntries {
  readonly #lru: ByteLru<Memo>;
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.#lru = new ByteLru(maxBytes);
  }

  get maxBytes(): number {
    return this.#lru.maxBytes;
  }

  get bytes(): number {
    return this.#lru.bytes;
  }

  /**
   * The decoded entry of `raw`, the value stored under `key` (same contract as `decodeDirEntry`, which it calls
   * on a miss: a damaged value throws, and is not remembered).
   */
  decode(key: string, raw: Buffer, what: string, sessionId: string): DirEntry {
    const m = this.#lru.get(key);
    if (m !== undefined && m.sessionId === sessionId && m.raw.equals(raw)) {
      this.hits++;
      return m.entry;
    }
    this.misses++;
    if (this.maxBytes === 0) return decodeDirEntry(raw, what, sessionId);
    // Values read from the store may be views into a larger buffer (a backend's page): kept only as bytes of their
    // own, which the entry reads its keywords and terms from when they are first asked for (most never are). Shared
    // from then on: those lists are frozen, so that callers may key memos by the list itself.
    const own = ownBytes(raw);
    const entry = decodeDirEntryLazily(own, what, sessionId);
    this.#lru.delete(key);
    const bytes = 3 * raw.length + 2 * key.length + OVERHEAD_BYTES;
    this.#lru.set(key, { raw: own, sessionId, entry }, bytes);
    return entry;
  }

  clear(): void {
    this.#lru.clear();
  }
}

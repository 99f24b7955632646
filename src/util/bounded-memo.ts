/**
 * A memo of a pure function's results, bounded by entry count, that forgets the least recently used entries in
 * bulk: entries live in a young and an old generation; a hit in the old generation moves the entry to the young
 * one, and when the young generation holds half the bound it becomes the old one (the previous old one is dropped).
 * So at most `maxEntries` entries are held, and an entry used within the last `maxEntries / 2` insertions survives.
 * A hit costs one or two `Map` lookups, cheaper than a strict LRU's reordering on every hit; and unlike a memo that
 * is cleared whole when full, a working set larger than the bound keeps its most used half instead of starting over.
 * @internal
 */
export class BoundedMemo<K, V> {
  readonly #half: number;
  #young = new Map<K, V>();
  #old = new Map<K, V>();

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 2) throw new RangeError(`BoundedMemo: maxEntries must be an integer ≥ 2, got ${maxEntries}`);
    this.#half = Math.floor(maxEntries / 2);
  }

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  get(key: K): V | undefined {
    const v = this.#young.get(key);
    if (v !== undefined) return v;
    const o = this.#old.get(key);
    if (o !== undefined) {
      this.#old.delete(key);
      this.set(key, o);
    }
    return o;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#young = new Map();
    this.#old = new Map();
  }

  set(key: K, value: V): void {
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}

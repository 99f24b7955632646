/**
 * A memo bounded by the total weight of its entries (an estimate of the bytes each holds) rather than by their
 * number, for values whose size varies by orders of magnitude (what is derived from one chunk's text). It forgets
 * the least recently used entries in bulk, as `BoundedMemo` does: entries live in a young and an old generation; a
 * hit in the old generation moves the entry to the young one, and when the young generation's weight reaches half
 * the bound it becomes the old one (the previous old one is dropped). So at most `maxWeight` is held, plus one entry.
 * An entry heavier than half the bound is not kept at all.
 * @internal
 */
export class WeightedMemo<K, V> {
  readonly #half: number;
  #young = new Map<K, { readonly value: V; readonly weight: number }>();
  #old = new Map<K, { readonly value: V; readonly weight: number }>();
  #youngWeight = 0;

  constructor(maxWeight: number) {
    if (!Number.isFinite(maxWeight) || maxWeight < 2) throw new RangeError(`WeightedMemo: maxWeight must be a number ≥ 2, got ${maxWeight}`);
    this.#half = maxWeight / 2;
  }

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  get(key: K): V | undefined {
    const y = this.#young.get(key);
    if (y !== undefined) return y.value;
    const o = this.#old.get(key);
    if (o === undefined) return undefined;
    this.#old.delete(key);
    this.set(key, o.value, o.weight);
    return o.value;
  }

  /** Keeps `value` under `key`, `weight` (> 0) counting toward the bound; replaces an entry of the same key. */
  set(key: K, value: V, weight: number): void {
    if (weight > this.#half) {
      this.delete(key);
      return;
    }
    const prior = this.#young.get(key);
    if (prior !== undefined) {
      this.#young.delete(key);
      this.#youngWeight -= prior.weight;
    } else this.#old.delete(key);
    if (this.#youngWeight + weight > this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngWeight = 0;
    }
    this.#young.set(key, { value, weight });
    this.#youngWeight += weight;
  }

  delete(key: K): void {
    const y = this.#young.get(key);
    if (y !== undefined) {
      this.#young.delete(key);
      this.#youngWeight -= y.weight;
    }
    this.#old.delete(key);
  }

  clear(): void {
    this.#young.clear();
    this.#old.clear();
    this.#youngWeight = 0;
  }
}

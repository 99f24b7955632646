/**
 * A least-recently-used map bounded by the bytes its values hold (each value's size given when it is set): a hit
 * makes an entry the newest; a set drops the oldest entries until the total fits again. A value larger than the
 * whole bound is not kept. `maxBytes = 0` keeps nothing.
 * @internal
 */
export class ByteLru<V> {
  readonly maxBytes: number;
  #bytes = 0;
  readonly #map = new Map<string, { readonly value: V; readonly bytes: number }>();

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Total size of the values held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The value kept under `key`, now the newest entry; undefined when none is. */
  get(key: string): V | undefined {
    const e = this.#map.get(key);
    if (e === undefined) return undefined;
    // Re-insert to mark as most recently used (Map keeps insertion order).
    this.#map.delete(key);
    this.#map.set(key, e);
    return e.value;
  }

  /** Keeps `value` (of `bytes`) under `key`, replacing an entry of the same key; a value over the bound is not kept. */
  set(key: string, value: V, bytes: number): void {
    if (this.maxBytes === 0 || bytes > this.maxBytes) return;
    this.delete(key);
    this.#map.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, v] of this.#map) {
      if (this.#bytes <= this.maxBytes) break;
      this.#map.delete(k);
      this.#bytes -= v.bytes;
    }
  }

  delete(key: string): void {
    const e = this.#map.get(key);
    if (e === undefined) return;
    this.#map.delete(key);
    this.#bytes -= e.bytes;
  }

  /** Drops every entry whose key starts with `prefix`. */
  deletePrefix(prefix: string): void {
    for (const [k, v] of this.#map) {
      if (k.startsWith(prefix)) {
        this.#map.delete(k);
        this.#bytes -= v.bytes;
      }
    }
  }

  clear(): void {
    this.#map.clear();
    this.#bytes = 0;
  }
}

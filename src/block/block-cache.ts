import type { DecodedFrame } from './frame-codec.js';

/**
 * A byte-bounded LRU cache of decoded frames, keyed by frame key. Frames are immutable and block ids are
 * never reused, so an entry can never be stale; released blocks are evicted only to free memory.
 * `maxBytes = 0` disables it (the cold benchmarks do).
 */
export class BlockCache {
  readonly maxBytes: number;
  #bytes = 0;
  #map = new Map<string, DecodedFrame>();
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): DecodedFrame | undefined {
    const f = this.#map.get(key);
    if (f === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Re-insert to mark as most recently used (Map keeps insertion order).
    this.#map.delete(key);
    this.#map.set(key, f);
    return f;
  }

  set(key: string, frame: DecodedFrame): void {
    if (this.maxBytes === 0 || frame.bytes > this.maxBytes) return;
    const old = this.#map.get(key);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#map.delete(key);
    }
    this.#map.set(key, frame);
    this.#bytes += frame.bytes;
    for (const [k, v] of this.#map) {
      if (this.#bytes <= this.maxBytes) break;
      this.#map.delete(k);
      this.#bytes -= v.bytes;
    }
  }

  /** Drops every frame of a block (called when the block is released). */
  evictBlock(prefix: string): void {
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

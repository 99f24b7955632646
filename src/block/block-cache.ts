import type { DecodedFrame } from './frame-codec.js';
import { ByteLru } from '../util/byte-lru.js';

/**
 * A byte-bounded LRU cache of decoded frames, keyed by frame key. Frames are immutable and block ids are
 * never reused, so an entry can never be stale; released blocks are evicted only to free memory.
 * `maxBytes = 0` disables it (the cold benchmarks do).
 */
export class BlockCache {
  readonly #lru: ByteLru<DecodedFrame>;
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

  get(key: string): DecodedFrame | undefined {
    const f = this.#lru.get(key);
    if (f === undefined) this.misses++;
    else this.hits++;
    return f;
  }

  set(key: string, frame: DecodedFrame): void {
    this.#lru.set(key, frame, frame.bytes);
  }

  /** Drops every frame of a block (called when the block is released). */
  evictBlock(prefix: string): void {
    this.#lru.deletePrefix(prefix);
  }

  clear(): void {
    this.#lru.clear();
  }
}

import { READ_RANGE } from './lua-scripts.js';
import type { PartitionKeys } from './partition-keys.js';
import { runScript, withRetry, type RedisClient } from './redis-connection.js';

/** One end of a key range, as bytes. */
export interface Bound {
  readonly key: Buffer;
  readonly inclusive: boolean;
}

/** A key and, when asked for, its value. */
export type Entry = readonly [key: Buffer, value: Buffer | undefined];

/** What a reader needs of the backend: the client, the retry budget, and where a partition's keys are. */
export interface RangeSource {
  readonly client: RedisClient;
  readonly retryMs: number;
}

const FIRST_PAGE = 64;
/** The same for a keys-only read (keys are short: counting a user's pending keys, listing ids). */
const FIRST_KEYS_PAGE = 256;
/** Pages stay well below Lua's unpack limit (~8000 values) in READ_RANGE. */
const MAX_PAGE = 1024;

function lexBound(b: Bound | null, open: '-' | '+'): Buffer | string {
  if (b === null) return open;
  return Buffer.concat([Buffer.from(b.inclusive ? '[' : '('), b.key]);
}

/**
 * Reads one partition's range page by page, each page one script call (keys and values of a page are read at one
 * instant; pages are not: a write between two pages is seen by the later one if it lands after the cursor).
 */
export class PartitionCursor {
  readonly #src: RangeSource;
  readonly #keys: PartitionKeys;
  readonly #reverse: boolean;
  readonly #values: boolean;
  #low: Bound | null;
  #high: Bound | null;
  #page: Entry[] = [];
  #pos = 0;
  #exhausted = false;
  #pageSize: number;

  constructor(src: RangeSource, keys: PartitionKeys, low: Bound | null, high: Bound | null, reverse: boolean, values: boolean) {
    this.#src = src;
    this.#keys = keys;
    this.#low = low;
    this.#high = high;
    this.#reverse = reverse;
    this.#values = values;
    this.#pageSize = values ? FIRST_PAGE : FIRST_KEYS_PAGE;
  }

  /**
   * The next entry without consuming it, reading a page when needed; undefined at the end. `budget` caps the page:
   * the most entries the reader may still consume (its limit), not how many it asks for now.
   */
  async peek(budget: number): Promise<Entry | undefined> {
    if (this.#pos < this.#page.length) return this.#page[this.#pos];
    if (this.#exhausted) return undefined;
    await this.#fetch(Math.max(1, Math.min(budget, this.#pageSize)));
    this.#pageSize = Math.min(MAX_PAGE, this.#pageSize * 2);
    return this.#pos < this.#page.length ? this.#page[this.#pos] : undefined;
  }

  /** The entry peek returned is consumed. REQUIRES: peek returned an entry. */
  advance(): void {
    this.#pos++;
  }

  async #fetch(count: number): Promise<void> {
    const min = lexBound(this.#low, '-');
    const max = lexBound(this.#high, '+');
    const args = [min, max, String(count), this.#reverse ? '1' : '0', this.#values ? '1' : '0'];
    const reply = (await withRetry(this.#src.retryMs, () => runScript(this.#src.client, READ_RANGE, [this.#keys.order, this.#keys.values], args))) as (Buffer | null)[];
    const page: Entry[] = [];
    if (this.#values) for (let i = 0; i < reply.length; i += 2) page.push([reply[i]!, reply[i + 1] ?? undefined]);
    else for (const k of reply) page.push([k!, undefined]);
    this.#page = page;
    this.#pos = 0;
    if (page.length < count) this.#exhausted = true;
    const last = page[page.length - 1];
    if (last !== undefined) {
      if (this.#reverse) this.#high = { key: last[0], inclusive: false };
      else this.#low = { key: last[0], inclusive: false };
    }
  }
}

/**
 * Merges partition cursors into one key order (a binary heap on their next keys). With one partition it is a
 * plain pass-through. Duplicate keys cannot occur: a key belongs to exactly one partition.
 */
export class MergedRange {
  readonly #cursors: PartitionCursor[];
  readonly #reverse: boolean;
  /** Heap of cursor indexes ordered by their current head, built on first use. */
  #heap: { i: number; key: Buffer }[] | null = null;

  constructor(cursors: PartitionCursor[], reverse: boolean) {
    this.#cursors = cursors;
    this.#reverse = reverse;
  }

  #less(a: Buffer, b: Buffer): boolean {
    const c = Buffer.compare(a, b);
    return this.#reverse ? c > 0 : c < 0;
  }

  /**
   * Up to `size` entries in order; fewer only at the end of the range. `budget` (at least `size`; default `size`) is
   * how many entries the reader may still take in all, its limit: pages are read up to it, so a reader that takes
   * one entry at a time does not pay one round trip per entry.
   */
  async take(size: number, budget: number = size): Promise<Entry[]> {
    const out: Entry[] = [];
    const room = (): number => Math.max(1, budget - out.length);
    if (this.#cursors.length === 1) {
      const c = this.#cursors[0]!;
      while (out.length < size) {
        const e = await c.peek(room());
        if (e === undefined) break;
        c.advance();
        out.push(e);
      }
      return out;
    }
    if (this.#heap === null) {
      const heads = await Promise.all(this.#cursors.map((c) => c.peek(room())));
      this.#heap = [];
      heads.forEach((e, i) => {
        if (e !== undefined) this.#push({ i, key: e[0] });
      });
    }
    const heap = this.#heap;
    while (out.length < size && heap.length > 0) {
      const top = heap[0]!;
      const c = this.#cursors[top.i]!;
      out.push((await c.peek(room()))!);
      c.advance();
      const next = await c.peek(room());
      if (next === undefined) {
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          this.#down(0);
        }
      } else {
        heap[0] = { i: top.i, key: next[0] };
        this.#down(0);
      }
    }
    return out;
  }

  #push(x: { i: number; key: Buffer }): void {
    const heap = this.#heap!;
    heap.push(x);
    let j = heap.length - 1;
    while (j > 0) {
      const parent = (j - 1) >> 1;
      if (!this.#less(heap[j]!.key, heap[parent]!.key)) break;
      [heap[j], heap[parent]] = [heap[parent]!, heap[j]!];
      j = parent;
    }
  }

  #down(j: number): void {
    const heap = this.#heap!;
    for (;;) {
      const l = 2 * j + 1;
      const r = l + 1;
      let m = j;
      if (l < heap.length && this.#less(heap[l]!.key, heap[m]!.key)) m = l;
      if (r < heap.length && this.#less(heap[r]!.key, heap[m]!.key)) m = r;
      if (m === j) return;
      [heap[j], heap[m]] = [heap[m]!, heap[j]!];
      j = m;
    }
  }
}

/**
 * Long synchronous work cut into slices that let the event loop run in between (timers, I/O callbacks, other
 * requests), so one large input does not stall a server for long. Yielding changes when the work runs, never its
 * result.
 */

/** Lets timers and I/O callbacks run before the caller goes on (a macrotask turn, not just a microtask). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** Items mapped between two yields by {@link mapYielding}. */
export const MAP_SLICE = 256;

/**
 * `items.map(fn)`, yielding to the event loop before every `slice` items (the first included, so the synchronous
 * work before the call and the first slice do not add up to one long stall).
 */
export async function mapYielding<T, U>(items: readonly T[], fn: (item: T, index: number) => U, slice: number = MAP_SLICE): Promise<U[]> {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i % slice === 0) await yieldToEventLoop();
    out.push(fn(items[i]!, i));
  }
  return out;
}

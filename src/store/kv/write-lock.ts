/**
 * A FIFO async mutex. Every mutation of the engine runs under it, so a writer's read-modify-write of block
 * counters, the allocator and the accounting record is never interleaved with another writer's.
 * Readers never take it: they read from a snapshot.
 */
export class WriteLock {
  #tail: Promise<void> = Promise.resolve();

  /** Runs `fn` after every previously queued holder finished; a rejection does not poison the lock. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves when every holder queued so far finished. */
  drain(): Promise<void> {
    return this.#tail;
  }
}

/**
 * Serializes asynchronous work per key: a task starts after every earlier task of the same key settled; tasks of
 * different keys run concurrently. A failed task does not block later ones. Used by MemAttention (one queue per
 * namespace) and the adapters (one per thread or item).
 * @internal
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return run;
  }

  /** Resolves once every task queued so far (of the keys `match` accepts, when given) has settled. */
  async drain(match?: (key: string) => boolean): Promise<void> {
    const tails = [...this.#tails].filter(([key]) => match === undefined || match(key)).map(([, tail]) => tail);
    await Promise.allSettled(tails);
  }
}

/**
 * A one-shot broadcast of "the next time X happens": `next()` returns a promise that settles with the next
 * `emit` (or `fail`) after it was called. Background loops expose one so that callers (tests above all) wait for
 * the event itself instead of polling the wall clock. Nothing is kept when nobody waits.
 */
export class NextEvent<T> {
  #waiters: { resolve: (v: T) => void; reject: (err: unknown) => void }[] = [];

  /** Settles with the next occurrence after this call. */
  next(): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** The event happened, with `value`: every current waiter resolves. */
  emit(value: T): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.resolve(value);
  }

  /** The event happened and failed: every current waiter rejects with `err`. */
  fail(err: unknown): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.reject(err);
  }
}

/**
 * A small typed event channel: `on(name, listener)` returns the function that removes the listener. Emitting to no
 * listener costs one map lookup, and callers check `listening(name)` before building an event, so nothing is
 * built when nobody listens. A listener that throws is isolated: the error goes to the channel's `onListenerError`
 * (default: dropped), never into the operation that emitted.
 */
export class EventChannel<M extends object> {
  readonly #listeners = new Map<keyof M, Set<(event: never) => void>>();
  readonly #onListenerError: (err: unknown) => void;

  constructor(onListenerError: (err: unknown) => void = () => undefined) {
    this.#onListenerError = onListenerError;
  }

  /** Adds a listener; returns its remover. */
  on<K extends keyof M>(name: K, listener: (event: M[K]) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    let set = this.#listeners.get(name);
    if (set === undefined) this.#listeners.set(name, (set = new Set()));
    set.add(listener as (event: never) => void);
    return () => this.off(name, listener);
  }

  off<K extends keyof M>(name: K, listener: (event: M[K]) => void): void {
    const set = this.#listeners.get(name);
    if (set === undefined) return;
    set.delete(listener as (event: never) => void);
    if (set.size === 0) this.#listeners.delete(name);
  }

  /** Whether anything listens to `name`. */
  listening(name: keyof M): boolean {
    return this.#listeners.has(name);
  }

  /** Calls every listener of `name` with `event`, synchronously, in the order they were added. */
  emit<K extends keyof M>(name: K, event: M[K]): void {
    const set = this.#listeners.get(name);
    if (set === undefined) return;
    for (const l of [...set]) {
      try {
        (l as (event: M[K]) => void)(event);
      } catch (err) {
        this.#onListenerError(err);
      }
    }
  }
}

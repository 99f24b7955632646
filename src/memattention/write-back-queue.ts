/**
 * The background write-back queue of AkashicMemory: compactions run here, off the request path, once their turns
 * are durable in the active chunk.
 *
 * - One job per namespace at a time, in order: a namespace is queued at most once (a second request while it is
 *   queued is the same job; while it runs, the job runs once more afterwards), so a job always compacts everything
 *   the gate asks for at the time it starts.
 * - At most `concurrency` namespaces run at once.
 * - Back-pressure is a wait: when `limit` namespaces are already queued, `schedule` resolves only once one of them
 *   has finished. The caller's turns are durable before it waits, so a crash meanwhile loses nothing.
 * - A job that fails is retried after `retryBaseMs · 2^(attempt−1)` (capped at 60 s), at most `maxRetries` times;
 *   then it is dropped until the namespace is scheduled again (its turns stay in the active chunk).
 * @internal
 */
import { NextEvent } from '../util/next-event.js';

export interface WriteBackQueueOptions {
  readonly concurrency: number;
  readonly limit: number;
  readonly retryBaseMs: number;
  readonly maxRetries: number;
}

/** A failed job, as reported to `onFailure`. */
export interface JobFailure {
  readonly key: string;
  readonly error: unknown;
  /** 1 for the first failure of this run of retries. */
  readonly attempt: number;
  /** Delay until the next attempt, or null: no further automatic attempt. */
  readonly retryInMs: number | null;
}

/** Figures of the queue since it was made. */
export interface WriteBackQueueStats {
  /** Namespaces waiting to run. */
  readonly queued: number;
  /** Namespaces whose job runs now. */
  readonly running: number;
  /** Namespaces waiting for a retry after a failure. */
  readonly retrying: number;
  /** Jobs finished without error. */
  readonly completed: number;
  /** Failed attempts (each retried or given up). */
  readonly failures: number;
  /** Failed jobs given up after `maxRetries` retries (their turns wait for the next append or `endSession`). */
  readonly abandoned: number;
}

const MAX_RETRY_DELAY_MS = 60_000;

type State = { kind: 'queued' } | { kind: 'running'; again: boolean } | { kind: 'retrying'; timer: NodeJS.Timeout };

export class WriteBackQueue {
  readonly #opts: WriteBackQueueOptions;
  readonly #run: (key: string, attempt: number) => Promise<void>;
  readonly #onFailure: (f: JobFailure) => void;
  readonly #states = new Map<string, State>();
  readonly #order: string[] = [];
  readonly #attempts = new Map<string, number>();
  readonly #settled = new NextEvent<void>();
  #running = 0;
  #closed = false;
  readonly #counts = { completed: 0, failures: 0, abandoned: 0 };

  constructor(opts: WriteBackQueueOptions, run: (key: string, attempt: number) => Promise<void>, onFailure: (f: JobFailure) => void) {
    this.#opts = opts;
    this.#run = run;
    this.#onFailure = onFailure;
  }

  /**
   * Asks for a job of `key`. Resolves at once when the key is already queued, running or waiting for a retry, or
   * when there is room; otherwise once there is room (back-pressure).
   */
  async schedule(key: string): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const s = this.#states.get(key);
      if (s !== undefined) {
        if (s.kind === 'running') s.again = true;
        return;
      }
      if (this.#order.length < this.#opts.limit) break;
      await this.#settled.next();
    }
    this.#attempts.delete(key);
    this.#enqueue(key);
  }

  #enqueue(key: string): void {
    this.#states.set(key, { kind: 'queued' });
    this.#order.push(key);
    this.#pump();
  }

  /** `run(key, attempt)` is a job (attempt: 1, or 1 + the failures before it); `onFailure` hears of each failure. */
  #pump(): void {
    while (this.#running < this.#opts.concurrency && this.#order.length > 0) {
      const key = this.#order.shift()!;
      const state: State = { kind: 'running', again: false };
      this.#states.set(key, state);
      this.#running++;
      void this.#run(key, (this.#attempts.get(key) ?? 0) + 1).then(
        () => this.#finish(key, state, null),
        (err: unknown) => this.#finish(key, state, { err }),
      );
    }
  }

  #finish(key: string, state: { again: boolean }, failure: { err: unknown } | null): void {
    this.#running--;
    this.#states.delete(key);
    if (failure === null) {
      this.#counts.completed++;
      this.#attempts.delete(key);
      if (state.again && !this.#closed) this.#enqueue(key);
    } else {
      this.#counts.failures++;
      const attempt = (this.#attempts.get(key) ?? 0) + 1;
      const retry = !this.#closed && attempt <= this.#opts.maxRetries;
      const delay = retry ? Math.min(MAX_RETRY_DELAY_MS, this.#opts.retryBaseMs * 2 ** (attempt - 1)) : null;
      if (retry) {
        this.#attempts.set(key, attempt);
        const timer = setTimeout(() => {
          this.#states.delete(key);
          this.#enqueue(key);
        }, delay!);
        timer.unref();
        this.#states.set(key, { kind: 'retrying', timer });
      } else {
        this.#attempts.delete(key);
        this.#counts.abandoned++;
      }
      this.#onFailure({ key, error: failure.err, attempt, retryInMs: delay });
    }
    this.#pump();
    this.#settled.emit();
  }

  /**
   * Resolves once no job of a matching key is queued or running. With `retryNow`, keys waiting for a retry are run
   * once more at once (and are then left as that attempt leaves them), so `flush()` tries every pending compaction.
   */
  async drain(match: (key: string) => boolean = () => true, retryNow = false): Promise<void> {
    const tried = new Set<string>();
    for (;;) {
      let busy = false;
      for (const [key, s] of [...this.#states]) {
        if (!match(key)) continue;
        if (s.kind === 'retrying') {
          if (!retryNow || tried.has(key) || this.#closed) continue;
          tried.add(key);
          clearTimeout(s.timer);
          this.#states.delete(key);
          this.#enqueue(key);
        }
        busy = true;
      }
      if (!busy) return;
      await this.#settled.next();
    }
  }

  /** Forgets the matching keys' queued jobs and retries (a purge of their namespaces); running jobs finish. */
  cancel(match: (key: string) => boolean): void {
    for (const [key, s] of [...this.#states]) {
      if (!match(key)) continue;
      if (s.kind === 'retrying') clearTimeout(s.timer);
      if (s.kind === 'running') s.again = false;
      else this.#states.delete(key);
      this.#attempts.delete(key);
    }
    for (let i = this.#order.length - 1; i >= 0; i--) if (match(this.#order[i]!)) this.#order.splice(i, 1);
    this.#settled.emit();
  }

  /**
   * Stops retries (their turns stay in the active chunk, for the next process) and lets queued and running jobs
   * finish; `schedule` does nothing afterwards.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const [key, s] of [...this.#states]) {
      if (s.kind !== 'retrying') continue;
      clearTimeout(s.timer);
      this.#states.delete(key);
    }
    this.#settled.emit();
    await this.drain();
  }

  stats(): WriteBackQueueStats {
    let retrying = 0;
    for (const s of this.#states.values()) if (s.kind === 'retrying') retrying++;
    return { queued: this.#order.length, running: this.#running, retrying, ...this.#counts };
  }
}

/**
 * The service's lifecycle: accepting requests, then draining (new requests are refused with AKASHIC_NOT_OPEN while
 * the ones under way finish), then closed. Both the HTTP exchanges and the library calls are tracked: an exchange
 * accepted before shutdown is answered (its upload read, its call made), and a call that outlived its request's
 * timeout still finishes before the store is closed.
 */
import { AkashicError } from '../errors.js';

export class ServiceLifecycle {
  #accepting = true;
  readonly #inflight = new Set<Promise<unknown>>();

  get accepting(): boolean {
    return this.#accepting;
  }

  /** @throws AkashicError AKASHIC_NOT_OPEN once draining has begun. */
  checkAccepting(): void {
    if (!this.#accepting) throw new AkashicError('AKASHIC_NOT_OPEN', 'the service is shutting down');
  }

  /** Keeps `p` until it settles, so `drain` waits for it. Returns `p`. */
  track<T>(p: Promise<T>): Promise<T> {
    this.#inflight.add(p);
    const done = (): void => void this.#inflight.delete(p);
    p.then(done, done);
    return p;
  }

  /** Library calls under way. */
  get inflight(): number {
    return this.#inflight.size;
  }

  /** Stops accepting and resolves once every tracked call has settled (new ones tracked meanwhile included). */
  async drain(): Promise<void> {
    this.#accepting = false;
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }
}

/**
 * `p`, or AKASHIC_TIMEOUT after `ms` (0: no limit). The call itself is not cancelled (the engine has no
 * cancellation); the lifecycle keeps tracking it.
 */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) return p;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AkashicError('AKASHIC_TIMEOUT', `the request took longer than ${ms} ms`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

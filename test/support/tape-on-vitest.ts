/**
 * Just enough of tape's API to run abstract-level's own conformance suite under vitest: each top-level `test` is a
 * vitest `it` (in registration order, so the suite's setUp/tearDown tests keep their shared state), assertions are
 * collected rather than thrown (tape keeps going after a failed assertion), a test ends when its plan is met, when
 * `t.end()` is called, or when its async function settles without a plan, and `t.test` subtests run after their
 * parent, in order.
 */
import { isDeepStrictEqual } from 'node:util';
import { it } from 'vitest';

type TapeFn = (t: TapeT) => unknown;

class TapeT {
  readonly failures: string[] = [];
  readonly subtests: [string, TapeFn][] = [];
  count = 0;
  planned: number | null = null;
  #ended = false;
  #wake: (() => void) | null = null;

  #record(ok: boolean, msg: string | undefined, detail: string): void {
    this.count++;
    if (!ok) this.failures.push(`${msg ?? 'assertion'}: ${detail}`);
    if (this.planned !== null && this.count >= this.planned) this.#wake?.();
  }
  plan(n: number): void {
    this.planned = n;
  }
  end(): void {
    this.#ended = true;
    this.#wake?.();
  }
  get ended(): boolean {
    return this.#ended || (this.planned !== null && this.count >= this.planned);
  }
  /** Resolves once the test ended (plan met or end()), or after `ms`. */
  waitEnd(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        if (!this.ended) return;
        clearTimeout(timer);
        resolve();
      };
    });
  }
  is(a: unknown, b: unknown, msg?: string): void {
    this.#record(Object.is(a, b), msg, `${String(a)} !== ${String(b)}`);
  }
  isNot(a: unknown, b: unknown, msg?: string): void {
    this.#record(!Object.is(a, b), msg, `${String(a)} === ${String(b)}`);
  }
  same(a: unknown, b: unknown, msg?: string): void {
    const norm = (x: unknown): unknown => (Buffer.isBuffer(x) ? new Uint8Array(x) : x);
    this.#record(isDeepStrictEqual(a, b) || isDeepStrictEqual(norm(a), norm(b)), msg, `${safe(a)} not deep-equal ${safe(b)}`);
  }
  ok(v: unknown, msg?: string): void {
    this.#record(Boolean(v), msg, `${safe(v)} is not truthy`);
  }
  pass(msg?: string): void {
    this.#record(true, msg, '');
  }
  fail(msg?: string): void {
    this.#record(false, msg, 'failed');
  }
  throws(fn: () => unknown, check?: (err: unknown) => boolean, msg?: string): void {
    try {
      fn();
      this.#record(false, msg, 'did not throw');
    } catch (err) {
      this.#record(check === undefined || check(err), msg, `unexpected error ${safe(err)}`);
    }
  }
  doesNotThrow(fn: () => unknown, msg?: string): void {
    try {
      fn();
      this.#record(true, msg, '');
    } catch (err) {
      this.#record(false, msg, `threw ${safe(err)}`);
    }
  }
  test(name: string, fn: TapeFn): void {
    this.subtests.push([name, fn]);
  }
}

function safe(v: unknown): string {
  try {
    return v instanceof Error ? `${v.name}: ${v.message}` : JSON.stringify(v)?.slice(0, 200) ?? String(v);
  } catch {
    return String(v);
  }
}

/** How long a test may wait for its plan or end() after its function returned. */
const END_WAIT_MS = 15_000;

async function runOne(name: string, fn: TapeFn): Promise<string[]> {
  const t = new TapeT();
  try {
    const r = fn(t);
    if (r instanceof Promise) {
      await r;
      if (t.planned !== null || t.ended) await t.waitEnd(END_WAIT_MS);
    } else await t.waitEnd(END_WAIT_MS);
  } catch (err) {
    t.failures.push(`threw ${safe(err)}`);
  }
  if (t.planned !== null && t.count !== t.planned) t.failures.push(`planned ${t.planned} assertions, ran ${t.count}`);
  const out = t.failures.map((f) => `${name}: ${f}`);
  for (const [n, f] of t.subtests) out.push(...(await runOne(`${name} > ${n}`, f)));
  return out;
}

/**
 * A tape-like `test` function registering vitest tests. `skip(name)` leaves out tests the backend cannot pass by
 * design (each listed with its reason by the caller).
 */
export function tapeOnVitest(skip: (name: string) => boolean = () => false): (name: string, fn: TapeFn) => void {
  return (name, fn) => {
    const register = skip(name) ? it.skip : it;
    register(name, async () => {
      const failures = await runOne(name, fn);
      if (failures.length > 0) throw new Error(failures.join('\n'));
    }, END_WAIT_MS * 2);
  };
}

/**
 * What every OpenAI-compatible client (the chat model, the embedder, the QA reader) shares: resolving the endpoint,
 * key, timeout and retry options (with their environment defaults), making the `openai` client on first use, and
 * the retry loop (which failures are worth another attempt, how long to wait before it, the final AKASHIC_MODEL).
 * @internal
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type OpenAI from 'openai';
import { AkashicError, invalidArgument } from '../errors.js';
import { loadOpenAI, type OpenAIPackage } from './openai-package.js';

/** Connection options common to the OpenAI-compatible clients; every one is optional. */
export interface OpenAIConnectionOptions {
  /** Endpoint root, e.g. `http://127.0.0.1:8000/v1`. Default: env `OPENAI_BASE_URL`, else OpenAI's. */
  readonly baseURL?: string;
  /**
   * Default: env `OPENAI_API_KEY`. Required for OpenAI itself; when a custom `baseURL` is set and no key is known,
   * a placeholder is sent, since local servers usually ignore it.
   */
  readonly apiKey?: string;
  /** Per-request timeout in milliseconds. Default 30000. */
  readonly timeoutMs?: number;
  /** Retries after the first request of a call (so at most `maxRetries + 1` requests). Default 2. */
  readonly maxRetries?: number;
  /** Base of the exponential back-off between retries, in milliseconds. Default 500; 0 retries at once. */
  readonly retryDelayMs?: number;
}

/** Validated connection settings. */
export interface ResolvedConnection {
  readonly clientOptions: { apiKey: string; baseURL: string | undefined; timeout: number; maxRetries: 0 };
  readonly maxRetries: number;
  readonly retryDelayMs: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 500;
/** No single back-off, including a server's `retry-after`, waits longer than this. */
const MAX_RETRY_DELAY_MS = 10_000;
const PLACEHOLDER_API_KEY = 'akashic-no-key';

export function nonEmptyEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Validates the options and applies the defaults. The `openai` client's own retries are disabled (`maxRetries: 0`)
 * so that the number of requests is exactly bounded by our `maxRetries + 1`.
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the bad option, or when no API key can be found.
 */
export function resolveConnection(options: OpenAIConnectionOptions): ResolvedConnection {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw invalidArgument(`timeoutMs must be a positive number, got ${String(timeoutMs)}`);
  }
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) {
    throw invalidArgument(`maxRetries must be a non-negative integer, got ${String(maxRetries)}`);
  }
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  if (typeof retryDelayMs !== 'number' || !Number.isFinite(retryDelayMs) || retryDelayMs < 0) {
    throw invalidArgument(`retryDelayMs must be a non-negative number, got ${String(retryDelayMs)}`);
  }
  const baseURL = options.baseURL ?? nonEmptyEnv('OPENAI_BASE_URL');
  let apiKey = options.apiKey ?? nonEmptyEnv('OPENAI_API_KEY');
  if (apiKey === undefined) {
    if (baseURL === undefined) throw invalidArgument('apiKey is required (pass apiKey or set OPENAI_API_KEY)');
    apiKey = PLACEHOLDER_API_KEY;
  }
  return { clientOptions: { apiKey, baseURL, timeout: timeoutMs, maxRetries: 0 }, maxRetries, retryDelayMs };
}

/** How one call is retried and reported; the counters are the caller's stats. */
export interface RetryPolicy {
  /** Failures worth another attempt besides the transient transport ones (`isTransient`): e.g. a malformed reply. */
  readonly retryable: (err: unknown) => boolean;
  /** The start of the final error's message: `<failed> after N request(s): <last failure>`. */
  readonly failed: string;
  /** Aborts the back-off and stops further attempts; the last failure is then the signal's reason. */
  readonly signal?: AbortSignal | undefined;
  /** Before each back-off (every attempt but the first). */
  readonly onRetry?: () => void;
  /** Before each request. */
  readonly onRequest?: () => void;
  /** When the call gives up. */
  readonly onFailure?: () => void;
}

/**
 * One validated endpoint: its settings, the `openai` client made on the first request (the package is optional and
 * loaded then), and the retry loop every request goes through.
 */
export class OpenAIConnection {
  readonly settings: ResolvedConnection;
  #client: { sdk: OpenAIPackage; client: OpenAI } | null = null;

  /** @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the bad option, or when no API key can be found. */
  constructor(options: OpenAIConnectionOptions) {
    this.settings = resolveConnection(options);
  }

  /**
   * `send(client)` until it resolves, at most `maxRetries + 1` times, with `backOffMs` between attempts; a failure
   * neither transient nor `policy.retryable` ends the loop at once.
   * @throws AkashicError `AKASHIC_MODEL` whose `cause` is the last failure.
   */
  async request<R>(send: (client: OpenAI) => Promise<R>, policy: RetryPolicy): Promise<R> {
    if (this.#client === null) {
      const sdk = await loadOpenAI();
      this.#client = { sdk, client: new sdk.default(this.settings.clientOptions) };
    }
    const { sdk, client } = this.#client;
    const { signal } = policy;
    let lastError: unknown;
    let attempts = 0;
    while (attempts <= this.settings.maxRetries) {
      if (attempts > 0) {
        policy.onRetry?.();
        const delay = backOffMs(attempts, this.settings.retryDelayMs, lastError, sdk);
        if (delay > 0) await sleep(delay, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
      }
      if (signal?.aborted === true) {
        lastError = signal.reason;
        break;
      }
      attempts += 1;
      try {
        policy.onRequest?.();
        return await send(client);
      } catch (err) {
        lastError = err;
        if (!(policy.retryable(err) || isTransient(err, sdk))) break;
      }
    }
    policy.onFailure?.();
    throw new AkashicError('AKASHIC_MODEL', `${policy.failed} after ${attempts} request(s): ${describeError(lastError)}`, { cause: lastError });
  }
}

/**
 * Transport failures worth another attempt: timeouts, lost connections, HTTP 408/409/429 and 5xx. Other 4xx (bad
 * key, unknown model) will not heal by retrying; a caller's abort is never retried.
 */
function isTransient(err: unknown, sdk: OpenAIPackage): boolean {
  if (err instanceof sdk.APIUserAbortError) return false;
  if (err instanceof sdk.APIConnectionError) return true;
  if (err instanceof sdk.APIError) {
    const status = err.status ?? 0;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  return false;
}

/** A server's `retry-after-ms` / `retry-after` (seconds) hint, if any. */
function retryAfterMs(err: unknown, sdk: OpenAIPackage): number | undefined {
  if (!(err instanceof sdk.APIError) || !(err.headers instanceof Headers)) return undefined;
  const ms = Number.parseFloat(err.headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = Number.parseFloat(err.headers.get('retry-after') ?? '');
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** Milliseconds to wait before retry number `retry` (1-based): exponential, or the server's hint, capped. */
function backOffMs(retry: number, baseDelayMs: number, lastError: unknown, sdk: OpenAIPackage): number {
  const exponential = baseDelayMs * 2 ** (retry - 1);
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(exponential, retryAfterMs(lastError, sdk) ?? 0));
}

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * What every OpenAI-compatible client (the chat model, the embedder) shares: resolving the endpoint, key, timeout
 * and retry options (with their environment defaults), which failures are worth another attempt, and how long to
 * wait before it.
 * @internal
 */
import type OpenAI from 'openai';
import { invalidArgument } from '../errors.js';
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

/** The `openai` client for these settings (the package is optional and loaded on first use). */
export async function connect(conn: ResolvedConnection): Promise<{ sdk: OpenAIPackage; client: OpenAI }> {
  const sdk = await loadOpenAI();
  return { sdk, client: new sdk.default(conn.clientOptions) };
}

/**
 * Transport failures worth another attempt: timeouts, lost connections, HTTP 408/409/429 and 5xx. Other 4xx (bad
 * key, unknown model) will not heal by retrying; a caller's abort is never retried.
 */
export function isTransient(err: unknown, sdk: OpenAIPackage): boolean {
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
export function backOffMs(retry: number, baseDelayMs: number, lastError: unknown, sdk: OpenAIPackage): number {
  const exponential = baseDelayMs * 2 ** (retry - 1);
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(exponential, retryAfterMs(lastError, sdk) ?? 0));
}

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

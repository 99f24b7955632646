/**
 * The one HTTP exchange of the client: POST a JSON body (bytes and vectors in their wire form), and either the
 * parsed result or the server's error as an AkashicError with the server's code. A failure to reach the server at
 * all is AKASHIC_IO with the network error as its cause.
 */
import { AkashicError, invalidArgument } from '../errors.js';
import { errorFromBody } from '../protocol/error-body.js';
import { API_KEY_HEADER } from '../protocol/routes.js';
import { wireReplacer } from '../protocol/wire-codec.js';

export interface RemoteOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:8787`. */
  readonly baseUrl: string;
  /** The API key, when the service has keys. */
  readonly apiKey?: string;
  /** Give up on a request after this many ms (AKASHIC_TIMEOUT). Default 60 000; 0: never. */
  readonly timeoutMs?: number;
}

const OPTION_KEYS = new Set(['baseUrl', 'apiKey', 'timeoutMs']);

/** @internal */
export class HttpCaller {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(options: RemoteOptions, what: string) {
    if (options === null || typeof options !== 'object') throw invalidArgument(`${what}: options must be { baseUrl, apiKey? }`);
    for (const k of Object.keys(options)) if (!OPTION_KEYS.has(k)) throw invalidArgument(`${what}: unknown option ${JSON.stringify(k)}`);
    if (typeof options.baseUrl !== 'string' || !URL.canParse(options.baseUrl) || !/^https?:$/.test(new URL(options.baseUrl).protocol)) {
      throw invalidArgument(`${what}: option baseUrl must be an http(s) URL`);
    }
    if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey === '')) throw invalidArgument(`${what}: option apiKey must be a non-empty string`);
    const timeout = options.timeoutMs ?? 60_000;
    if (!Number.isSafeInteger(timeout) || timeout < 0) throw invalidArgument(`${what}: option timeoutMs must be an integer ≥ 0`);
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#headers = { 'content-type': 'application/json', ...(options.apiKey === undefined ? {} : { [API_KEY_HEADER]: options.apiKey }) };
    this.#timeoutMs = timeout;
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  /** The response of a request that succeeded (2xx); its body is left unread. */
  async send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    if (this.#closed) throw new AkashicError('AKASHIC_NOT_OPEN', 'the client is closed');
    let res: Response;
    try {
      res = await fetch(this.#base + path, {
        method,
        headers: this.#headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body, wireReplacer) }),
        ...(this.#timeoutMs === 0 ? {} : { signal: AbortSignal.timeout(this.#timeoutMs) }),
      });
    } catch (err) {
      if (err instanceof Error && err.name === 'TimeoutError') throw new AkashicError('AKASHIC_TIMEOUT', `no answer from ${this.#base} within ${this.#timeoutMs} ms`, { cause: err });
      throw new AkashicError('AKASHIC_IO', `cannot reach the Akashic service at ${this.#base}: ${(err as Error).message}`, { cause: err });
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not an error body: errorFromBody reports the status
    }
    throw errorFromBody(parsed, res.status);
  }

  /** POSTs `body` and returns the parsed JSON result. */
  async call<T>(path: string, body: unknown): Promise<T> {
    const res = await this.send('POST', path, body);
    return (await readJson(res)) as T;
  }

  async get<T>(path: string): Promise<T> {
    return (await readJson(await this.send('GET', path))) as T;
  }

  /** POSTs `body` and yields the values of an NDJSON answer as they arrive. */
  async *lines(path: string, body: unknown): AsyncGenerator<unknown> {
    const res = await this.send('POST', path, body);
    if (res.body === null) return;
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(piece, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line !== '') yield lineValue(line);
        }
      }
    } catch (err) {
      if (err instanceof AkashicError) throw err;
      throw new AkashicError('AKASHIC_IO', `the service's answer broke off: ${(err as Error).message}`, { cause: err });
    }
    buffered += decoder.decode();
    if (buffered.trim() !== '') yield lineValue(buffered);
  }
}

function lineValue(line: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new AkashicError('AKASHIC_IO', 'the service sent a line that is not JSON', { cause: err });
  }
  if (v !== null && typeof v === 'object' && 'error' in v && !('entry' in v)) throw errorFromBody((v as { error: unknown }).error, 200);
  return v;
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AkashicError('AKASHIC_IO', 'the service answered with a body that is not JSON', { cause: err });
  }
}

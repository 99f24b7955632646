/**
 * The one HTTP exchange of the client: POST a JSON body (bytes and vectors in their wire form), and either the
 * parsed result or the server's error as an AkashicError with the server's code. A failure to reach the server at
 * all is AKASHIC_IO with the network error as its cause.
 *
 * It speaks HTTP/1.1 through Node's own `http`/`https` modules over a keep-alive agent of its own, not through the
 * global `fetch`: on loopback `fetch` (undici, with its web streams and per-request abort signal) costs about half a
 * millisecond more per exchange than a plain request on a kept-alive socket, which is a third of the service's whole
 * budget over an embedded recall.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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

/** A response whose status was 2xx, its body not yet read, and the call that settles the exchange's timer. */
interface Answer {
  readonly res: IncomingMessage;
  /** Ends the exchange: stops its timer. Idempotent. */
  readonly done: () => void;
  /** The AkashicError for a failure while reading the body (AKASHIC_TIMEOUT once the timer has fired). */
  readonly failure: (err: unknown) => AkashicError;
}

/** @internal */
export class HttpCaller {
  readonly #base: string;
  readonly #url: URL;
  /** The URL's host without the brackets of an IPv6 literal (what `http.request` wants). */
  readonly #hostname: string;
  /** A path the base URL carries (`http://host/akashic`), without its trailing slash; usually empty. */
  readonly #pathPrefix: string;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #timeoutMs: number;
  readonly #request: typeof httpRequest;
  /**
   * The client's own connections, kept alive between calls (idle sockets do not keep the process alive, and are
   * dropped before the server's announced keep-alive timeout). Nagle is off: a request goes out whole at once.
   */
  readonly #agent: HttpAgent;
  #inflight = 0;
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
    this.#url = new URL(this.#base);
    this.#hostname = this.#url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.#pathPrefix = this.#url.pathname.replace(/\/+$/, '');
    this.#headers = { 'content-type': 'application/json', ...(options.apiKey === undefined ? {} : { [API_KEY_HEADER]: options.apiKey }) };
    this.#timeoutMs = timeout;
    const https = this.#url.protocol === 'https:';
    this.#request = https ? httpsRequest : httpRequest;
    const agentOptions = { keepAlive: true, noDelay: true };
    this.#agent = https ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Later calls fail with AKASHIC_NOT_OPEN; the connections end once the calls under way have finished. */
  close(): void {
    this.#closed = true;
    if (this.#inflight === 0) this.#agent.destroy();
  }

  /** POSTs `body` and returns the parsed JSON result. */
  async call<T>(path: string, body: unknown): Promise<T> {
    return (await this.#json(await this.#send('POST', path, body))) as T;
  }

  async get<T>(path: string): Promise<T> {
    return (await this.#json(await this.#send('GET', path))) as T;
  }

  /** POSTs `body` and yields the values of an NDJSON answer as they arrive. */
  async *lines(path: string, body: unknown): AsyncGenerator<unknown> {
    const { res, done, failure } = await this.#send('POST', path, body);
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const piece of res as AsyncIterable<Buffer>) {
        buffered += decoder.decode(piece, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line !== '') yield lineValue(line);
        }
      }
    } catch (err) {
      throw failure(err);
    } finally {
      // A consumer that stops early (break) ends the exchange: the rest of the answer is not wanted.
      if (!res.complete) res.destroy();
      done();
    }
    buffered += decoder.decode();
    if (buffered.trim() !== '') yield lineValue(buffered);
  }

  /**
   * Sends one request and waits for its status. A 2xx answer is returned with its body unread; any other status is
   * read whole and thrown as the AkashicError of its error body.
   */
  #send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    if (this.#closed) return Promise.reject(new AkashicError('AKASHIC_NOT_OPEN', 'the client is closed'));
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body, wireReplacer), 'utf8');
    const headers: OutgoingHttpHeaders = payload === undefined ? { ...this.#headers } : { ...this.#headers, 'content-length': payload.byteLength };
    this.#inflight++;
    return new Promise<Answer>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let timedOut = false;
      let settled = false;
      const done = (): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (--this.#inflight === 0 && this.#closed) this.#agent.destroy();
      };
      const failure = (err: unknown): AkashicError => {
        if (timedOut) return new AkashicError('AKASHIC_TIMEOUT', `no answer from ${this.#base} within ${this.#timeoutMs} ms`, { cause: err });
        if (err instanceof AkashicError) return err;
        return new AkashicError('AKASHIC_IO', `the service's answer broke off: ${(err as Error).message}`, { cause: err });
      };
      const req = this.#request({
        hostname: this.#hostname,
        port: this.#url.port,
        path: this.#pathPrefix + path,
        method,
        headers,
        agent: this.#agent,
      });
      if (this.#timeoutMs > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          req.destroy(new Error(`no answer within ${this.#timeoutMs} ms`));
        }, this.#timeoutMs);
      }
      // After the status has arrived, a failure surfaces on the response body instead (see `failure`).
      req.on('error', (err) => {
        done();
        reject(timedOut ? failure(err) : new AkashicError('AKASHIC_IO', `cannot reach the Akashic service at ${this.#base}: ${err.message}`, { cause: err }));
      });
      req.once('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          resolve({ res, done, failure });
          return;
        }
        const refused = (text: string | null): void => {
          done();
          let parsed: unknown = null;
          try {
            if (text !== null) parsed = JSON.parse(text);
          } catch {
            // not an error body: errorFromBody reports the status
          }
          reject(errorFromBody(parsed, status));
        };
        readText(res).then(refused, () => refused(null));
      });
      req.end(payload);
    });
  }

  /** The whole body of a 2xx answer as JSON. */
  async #json({ res, done, failure }: Answer): Promise<unknown> {
    let text: string;
    try {
      text = await readText(res);
    } catch (err) {
      throw failure(err);
    } finally {
      done();
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new AkashicError('AKASHIC_IO', 'the service answered with a body that is not JSON', { cause: err });
    }
  }
}
/** Reads a response body whole as UTF-8 text. Rejects with the stream's error (a timeout's AkashicError included). */
function readText(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (piece: Buffer) => parts.push(piece));
    res.once('end', () => resolve(parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString('utf8')));
    res.once('error', reject);
    // A response cut off before its end ('aborted' then 'close' without 'end').
    res.once('close', () => {
      if (!res.complete) reject(new Error('the connection closed before the answer was complete'));
    });
  });
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

/**
 * `akashic serve` as a library call: opens (or takes) a store and a memory over it, listens on HTTP, and closes
 * gracefully — stop accepting, let the calls under way finish, close the memory (its queued compactions and
 * relocations), close the store.
 */
import type { Server } from 'node:http';
import { isIP } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { AkashicStore } from '../engine/akashic-store.js';
import type { AkashicStoreOptions } from '../api/store-options.js';
import { AkashicError, invalidArgument } from '../errors.js';
import { AkashicMemory } from '../memattention/memory.js';
import type { MemoryOptions } from '../memattention/options.js';
import type { ApiKeys } from './api-keys.js';
import { createServiceApp } from './service-app.js';
import { ServiceLifecycle } from './service-lifecycle.js';
import { ServiceMetrics } from './service-metrics.js';
import { DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, DEFAULT_REQUEST_TIMEOUT_MS, storeLocation } from './service-settings.js';
/** How long a closing service waits for answered responses to finish going out. */
const CLOSE_GRACE_MS = 2_000;

export interface ServiceOptions {
  /**
   * The database to open: a directory, or a URL of another backend (`redis://…`, `redis+cluster://…`). The service
   * owns the store and closes it. Exclusive with `store`.
   */
  readonly db?: string;
  /** Options for opening `db`. */
  readonly storeOptions?: Omit<AkashicStoreOptions, 'path' | 'db'>;
  /** An open store to serve (the caller keeps owning it: the service does not close it). Exclusive with `db`. */
  readonly store?: AkashicStore;
  readonly memoryOptions?: MemoryOptions;
  /** Default 127.0.0.1. A host other than loopback is refused unless `keys` holds at least one key. */
  readonly host?: string;
  /** Default 8787; 0 picks a free port (see `RunningService.url`). */
  readonly port?: number;
  /** API keys; absent or null: no keys (loopback only, every request may touch every user). */
  readonly keys?: ApiKeys | null;
  /** Largest request body in bytes. Default 8 MiB. */
  readonly maxBodyBytes?: number;
  /** A request not answered by then gets AKASHIC_TIMEOUT (its call still finishes). Default 30 s; 0: none. */
  readonly requestTimeoutMs?: number;
  /** Failures that are bugs (not AkashicErrors). Default: written to stderr. */
  readonly logError?: (err: unknown) => void;
}

export interface RunningService {
  /** `http://host:port` the service listens on. */
  readonly url: string;
  readonly store: AkashicStore;
  readonly memory: AkashicMemory;
  readonly metrics: ServiceMetrics;
  /** Graceful shutdown; idempotent. */
  close(): Promise<void>;
}

const OPTION_KEYS = new Set(['db', 'storeOptions', 'store', 'memoryOptions', 'host', 'port', 'keys', 'maxBodyBytes', 'requestTimeoutMs', 'logError']);

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}

/**
 * Starts the service.
 *
 * @throws AkashicError AKASHIC_INVALID_ARGUMENT for a bad or unknown option, or a non-loopback host without keys
 *   (nothing is opened then); the store's own open errors (AKASHIC_LOCKED, …); AKASHIC_IO when the port is taken.
 * @example
 *   const service = await startService({ db: './memory', port: 0 });
 *   console.log(service.url);
 *   await service.close();
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  if (options === null || typeof options !== 'object') throw invalidArgument('options must be an object');
  for (const k of Object.keys(options)) if (!OPTION_KEYS.has(k)) throw invalidArgument(`unknown option ${JSON.stringify(k)}`);
  if ((options.db === undefined) === (options.store === undefined)) throw invalidArgument('give exactly one of options.db and options.store');
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  if (typeof host !== 'string' || host === '') throw invalidArgument('option host must be a non-empty string');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw invalidArgument('option port must be an integer in [0, 65535]');
  const keys = options.keys ?? null;
  if (!isLoopback(host) && (keys === null || keys.size === 0)) {
    throw invalidArgument(`refusing to listen on ${host} without API keys: anyone who can reach it could read every user's memory (configure keys, or listen on 127.0.0.1)`);
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1024) throw invalidArgument('option maxBodyBytes must be an integer ≥ 1024');
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (!Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs < 0) throw invalidArgument('option requestTimeoutMs must be an integer ≥ 0');

  const owned = options.store === undefined;
  const store = options.store ?? (await AkashicStore.open({ ...options.storeOptions, ...storeLocation(options.db!) }));
  let memory: AkashicMemory;
  try {
    memory = new AkashicMemory(store, options.memoryOptions);
  } catch (err) {
    if (owned) await store.close();
    throw err;
  }
  const metrics = new ServiceMetrics(store);
  const lifecycle = new ServiceLifecycle();
  const logError = options.logError ?? ((err: unknown) => process.stderr.write(`akashic serve: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`));
  const app = createServiceApp({ deps: { store, memory }, keys, maxBodyBytes, requestTimeoutMs, metrics, lifecycle, logError });

  const server = createAdaptorServer({
    fetch: app.fetch,
    serverOptions: {
      // A client that trickles its headers or body is cut off, not waited on forever; others are served meanwhile.
      headersTimeout: Math.min(requestTimeoutMs || 60_000, 60_000),
      requestTimeout: requestTimeoutMs === 0 ? 0 : requestTimeoutMs + 5_000,
      keepAliveTimeout: 5_000,
    },
  }) as Server;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await memory.close();
    if (owned) await store.close();
    throw new AkashicError('AKASHIC_IO', `cannot listen on ${host}:${port}: ${(err as Error).message}`, { cause: err });
  }
  const address = server.address();
  const boundPort = address !== null && typeof address === 'object' ? address.port : port;
  const url = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${boundPort}`;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      // Stop listening; open connections stay, and what they send meanwhile is answered AKASHIC_NOT_OPEN.
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await lifecycle.drain();
      // Every call is answered, but a response may still be on its way out: end connections as they fall idle, and
      // after a grace period end the rest (a client that stopped reading).
      const grace = Date.now() + CLOSE_GRACE_MS;
      let ended = false;
      void stopped.then(() => (ended = true));
      while (!ended && Date.now() < grace) {
        server.closeIdleConnections();
        await new Promise((r) => setTimeout(r, 20));
      }
      server.closeAllConnections();
      await stopped;
      await memory.close();
      if (owned) await store.close();
    })());
  return { url, store, memory, metrics, close };
}

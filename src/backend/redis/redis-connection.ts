import { Cluster, Redis } from 'ioredis';
import { AkashicError } from '../../errors.js';
import type { LuaScript } from './lua-scripts.js';
import type { RedisTarget } from './redis-url.js';

/** Both ioredis clients: Redis Cluster and one node. */
export type RedisClient = Redis | Cluster;

/**
 * Errors after which a command may be sent again: the node went away, the cluster is failing over or moving a
 * slot, the node is loading its data, or a write reached a replica that was a primary a moment ago. Commands this
 * backend sends are idempotent (reads) or carry a batch id the script recognizes (writes), so resending is safe.
 * NOREPLICA is ours: a replicated write no replica acknowledged yet (after a failover the promoted replica has none
 * until one rejoins); resending the batch re-runs the WAIT on whichever node now holds the slot.
 */
const TRANSIENT = /NOREPLICA|CLUSTERDOWN|TRYAGAIN|LOADING|READONLY|MASTERDOWN|MOVED|ASK|Connection is closed|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready|Stream isn't writeable|Command timed out/;

export function isTransient(err: unknown): boolean {
  return err instanceof Error && TRANSIENT.test(err.message);
}

/** Connection settings that are not in the URL. */
export interface ConnectionOptions {
  /** How long a command is retried through a failover or a slot move before it fails (ms). */
  readonly retryMs: number;
  /** Timeout of one connection attempt (ms). */
  readonly connectTimeoutMs: number;
}

export const DEFAULT_CONNECTION_OPTIONS: ConnectionOptions = Object.freeze({ retryMs: 10_000, connectTimeoutMs: 2_000 });

/** Creates the ioredis client for a target; nothing connects until `connect`. */
export function createClient(target: RedisTarget, o: ConnectionOptions): RedisClient {
  const auth = {
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
  };
  if (target.mode === 'single') {
    const n = target.nodes[0]!;
    return new Redis({
      host: n.host,
      port: n.port,
      db: target.database,
      lazyConnect: true,
      connectTimeout: o.connectTimeoutMs,
      // Reconnect quickly while the node restarts; our own retry loop bounds how long a command waits.
      retryStrategy: () => 100,
      maxRetriesPerRequest: 1,
      enableAutoPipelining: true,
      ...auth,
    });
  }
  return new Cluster(
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      lazyConnect: true,
      enableAutoPipelining: true,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      retryDelayOnMoved: 0,
      maxRedirections: 16,
      slotsRefreshTimeout: 2_000,
      clusterRetryStrategy: () => 100,
      redisOptions: { connectTimeout: o.connectTimeoutMs, maxRetriesPerRequest: 1, ...auth },
    },
  );
}

/** How `withRetry` retries. */
export interface RetryOptions {
  /** When it returns true for an error, the retries get a fresh `retryMs` from then (a new phase of waiting, e.g. for a replica after the failover itself). */
  readonly restart?: (err: unknown) => boolean;
  /** The client `fn` calls: after a MOVED, its slot map is refreshed before the next try. */
  readonly client?: RedisClient;
}

/** Runs `fn` again after transient errors until `retryMs` have passed; the last error then escapes. */
export async function withRetry<T>(retryMs: number, fn: () => Promise<T>, { restart, client }: RetryOptions = {}): Promise<T> {
  let deadline = Date.now() + retryMs;
  let delay = 50;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (restart?.(err) === true) deadline = Date.now() + retryMs;
      if (!isTransient(err) || Date.now() + delay > deadline) throw err;
      // A MOVED that reached us (a command auto-pipelined with others is not redirected by ioredis): the slot map is
      // stale, and a retry would go to the old primary again until something else refreshes it.
      if (client !== undefined) await refreshIfMoved(client, err);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 500);
    }
  }
}

/** A replicated write that too few replicas acknowledged in time (transient: see TRANSIENT). */
export class NoReplicaError extends Error {
  constructor(acked: unknown, replicas: number, waitMs: number) {
    super(`NOREPLICA write applied on the primary but acknowledged by ${String(acked)} of ${replicas} replica(s) within ${waitMs} ms: it may not survive the loss of that primary`);
  }
}

/** The error a caller sees once retries gave up on a replicated write: AKASHIC_IO, outcome unknown. */
export function replicationError(err: NoReplicaError): AkashicError {
  return new AkashicError('AKASHIC_IO', err.message.replace(/^NOREPLICA /, ''), { cause: err });
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/**
 * Runs a script on the node holding `keys` (one slot in a cluster), by EVALSHA, falling back to EVAL once when the
 * node has not cached it (a new node, a restart, a failover). With `replicas` > 0 a WAIT follows on the same
 * connection (a pipeline routed by the script's keys), and fewer acknowledging replicas than asked within
 * `waitMs` fails the call with AKASHIC_IO: the batch is applied on the primary but may not survive its loss.
 * Replies are Buffers (values are binary).
 */
export async function runScript(client: RedisClient, s: LuaScript, keys: readonly string[], args: readonly (string | Buffer)[], replicas = 0, waitMs = 0): Promise<unknown> {
  const attempt = async (byBody: boolean): Promise<unknown> => {
    const p = client.pipeline();
    p.callBuffer(byBody ? 'eval' : 'evalsha', [byBody ? s.source : s.sha, keys.length, ...keys, ...args]);
    if (replicas > 0) p.wait(replicas, waitMs);
    const res = await p.exec();
    if (res === null) throw new Error('Connection is closed (pipeline discarded)');
    const [err, reply] = res[0]!;
    if (err !== null) throw err;
    if (replicas > 0) {
      const [werr, acked] = res[1]!;
      if (werr !== null) throw werr;
      if (typeof acked !== 'number' || acked < replicas) throw new NoReplicaError(acked, replicas, waitMs);
    }
    return reply;
  };
  try {
    return await attempt(false);
  } catch (err) {
    // ioredis follows MOVED inside a pipeline only when every command in it is read-only, so a script's MOVED
    // comes back to us with the slot map unchanged: refresh it before the caller retries, or the retry goes to the
    // old primary again.
    await refreshIfMoved(client, err);
    if (!isNoScript(err)) throw err;
    return attempt(true);
  }
}

function isMoved(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('MOVED ');
}

/**
 * Refreshes a cluster client's slot map after a MOVED error, waiting at most `SLOT_REFRESH_WAIT_MS` (the caller
 * retries either way); anything else, or a single node, is left alone.
 */
async function refreshIfMoved(client: RedisClient, err: unknown): Promise<void> {
  if (!isMoved(err) || !(client instanceof Cluster)) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise<void>((resolve) => client.refreshSlotsCache(() => resolve())),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SLOT_REFRESH_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
}

/** How long a retry waits for a slot map refresh after MOVED (ioredis bounds a refresh by its own timeout too). */
const SLOT_REFRESH_WAIT_MS = 2_500;

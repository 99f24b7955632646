import type { AbstractLevel } from 'abstract-level';
import { keysOf, rejectUnknownKeys } from './option-keys.js';
import { invalidArgument } from '../errors.js';
import type { AffinityModel } from './affinity-model.js';

/** Any abstract-level database with string keys (classic-level, memory-level, ...). */
// The value type is Buffer for every sublevel we open; the root's own encodings do not matter.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyLevel = AbstractLevel<any, any, any>;

export interface GcOptions {
  /** θ: a sealed block is a GC candidate when its invalid ratio φ(B) ≥ θ. Default 0.3 (the Akashic paper §5.5). */
  readonly threshold?: number;
  /** Background pass interval in ms; 0 disables background GC (on-demand `gc()` still works). Default 2000. */
  readonly intervalMs?: number;
  /** Rate limit: at most this many victim blocks per pass. Default 64. */
  readonly maxBlocksPerPass?: number;
  /** Worker threads of the GC pool. Default 1. */
  readonly threads?: number;
  /**
   * Merge under-filled blocks: a sealed block with live slots below this fraction of the capacity is also a victim
   * (whatever its φ) when its user has at least two such blocks. 0 disables. Default DEFAULT_GC_MERGE_BELOW_FILL.
   */
  readonly mergeBelowFill?: number;
}

export interface StoreOptions {
  /** Directory of the embedded LevelDB database (classic-level). Exactly one of `path` and `db`. */
  readonly path?: string;
  /** An abstract-level database to use instead (e.g. `new MemoryLevel()`); the store opens and closes it. */
  readonly db?: AnyLevel;
  /**
   * A Redis deployment instead of a directory: `redis+cluster://host:port,host:port` (Redis Cluster; any reachable
   * nodes) or `redis://host:port` (one node), optionally `?prefix=name` to keep several stores apart. Exactly one of
   * `path`, `db` and `url`. Block frames are then stored as keys; see docs/redis.md.
   */
  readonly url?: string;
  /** Slots per block (records, live or not). Default 16. */
  readonly blockCapacity?: number;
  /** A block also seals once its records reach this many uncompressed bytes. Default 256 KiB. */
  readonly blockMaxBytes?: number;
  /** Whether one block may hold several sessions of the same user (never several users). Default true. */
  readonly crossSessionBlocks?: boolean;
  /**
   * Byte budget of the read caches: decoded frames, plus up to a quarter of it each for what recall's candidate
   * gathering reuses (decoded directory entries; index and directory reads at the user's current version); 0
   * disables them all. Default 32 MiB.
   */
  readonly cacheBytes?: number;
  /**
   * 'sync' fsyncs every commit before it is acknowledged; 'relaxed' leaves it to the OS. Default 'sync'. On Redis
   * (`url`), both are acknowledged once the primary applied the commit (what that survives is the server's AOF
   * setting), and 'replicated' also waits for a replica, so the commit survives the loss of the primary.
   */
  readonly durability?: Durability;
  /**
   * zstd level for block frames and history records (1–19, validated). Default 3. Note: the bundled
   * `@mongodb-js/zstd` 1.2 does not pass a level to its encoder, so every frame is compressed at zstd's default
   * level (3) whatever is set here; the option is kept so that a binding that honours it changes nothing else.
   */
  readonly zstdLevel?: number;
  readonly gc?: GcOptions;
  /** Open read-only where the backend allows (classic-level: no writes are issued; the lock is still taken). */
  readonly readOnly?: boolean;
  /** Clock, for tests. */
  readonly now?: () => number;
  /** Time to live of a chunk put without its own expiry, in ms; 0 (default): chunks never expire. */
  readonly defaultTtlMs?: number;
  /**
   * Chunks of a user whose keyword postings wait for the posting merge before it runs (docs/architecture.md,
   * "Candidate index"). Smaller: recall reads fewer pending chunks; larger: merges are rarer and cheaper per chunk.
   * Default 128.
   */
  readonly postingMergeAt?: number;
  /**
   * Default time to live per scope, for puts without their own expiry: the first rule whose every given
   * dimension (user, session, agent, run) equals the chunk's wins over `defaultTtlMs`; `ttlMs` 0 means never.
   */
  readonly scopeTtl?: readonly ScopeTtlRule[];
  /**
   * How many superseded versions of a chunk are kept (history), and for how long. Default `{ versions: 16 }`
   * (no age limit); `false` keeps none (an update or delete then keeps nothing of the old version).
   */
  readonly history?: HistoryRetention | false;
}

/** One `scopeTtl` rule: the dimensions it matches (at least one) and the default TTL there. */
export interface ScopeTtlRule {
  readonly user?: string;
  readonly session?: string;
  readonly agent?: string;
  readonly run?: string;
  readonly ttlMs: number;
}

export interface HistoryRetention {
  /** Superseded versions kept per chunk, newest first (0 keeps none). Default 16. */
  readonly versions?: number;
  /** Superseded versions older than this (since they were superseded) are dropped by GC; 0: no age limit. */
  readonly maxAgeMs?: number;
}

/** Options with every default filled in. @internal */
export interface ResolvedStoreOptions {
  readonly blockCapacity: number;
  readonly blockMaxBytes: number;
  readonly crossSessionBlocks: boolean;
  readonly cacheBytes: number;
  readonly durability: Durability;
  readonly zstdLevel: number;
  readonly gcThreshold: number;
  readonly gcIntervalMs: number;
  readonly gcMaxBlocksPerPass: number;
  readonly gcThreads: number;
  readonly gcMergeBelowFill: number;
  readonly readOnly: boolean;
  readonly now: () => number;
  readonly defaultTtlMs: number;
  readonly postingMergeAt: number;
  readonly scopeTtl: readonly ScopeTtlRule[];
  /** Superseded versions kept per chunk (0: history off). */
  readonly historyVersions: number;
  /** Age limit of superseded versions in ms (0: none). */
  readonly historyMaxAgeMs: number;
}

/** See StoreOptions.durability. 'replicated' needs a replicated backend (a Redis `url`). */
export type Durability = 'sync' | 'relaxed' | 'replicated';

export const DEFAULT_HISTORY_VERSIONS = 16;

/** See StoreOptions.postingMergeAt. */
export const DEFAULT_POSTING_MERGE_AT = 128;

export const DEFAULT_BLOCK_CAPACITY = 16;
/** See GcOptions.mergeBelowFill. */
export const DEFAULT_GC_MERGE_BELOW_FILL = 0;

function fractionIn(name: string, v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw invalidArgument(`option ${name} must be a number in [0, 1], got ${show(v)}`);
  return v;
}
export const DEFAULT_BLOCK_MAX_BYTES = 256 * 1024;
/** Slots per block can never exceed this: frame and slot numbers are u16 on disk. */
export const MAX_BLOCK_CAPACITY = 4096;

/** A value for an error message. String() throws for some values (null-prototype objects, symbols in templates). */
function show(v: unknown): string {
  if (typeof v === 'object' && v !== null) return Array.isArray(v) ? 'an array' : 'an object';
  return typeof v === 'symbol' || typeof v === 'function' ? `a ${typeof v}` : String(v);
}

function intIn(name: string, v: unknown, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalidArgument(`option ${name} must be an integer in [${min}, ${max}], got ${show(v)}`);
  }
  return v;
}

/** Validates options and fills defaults; throws AKASHIC_INVALID_ARGUMENT naming the bad option. */
const STORE_KEYS = keysOf<AkashicStoreOptions>()(
  'path', 'db', 'blockCapacity', 'blockMaxBytes', 'crossSessionBlocks', 'cacheBytes', 'durability', 'zstdLevel', 'gc', 'readOnly', 'now',
  'defaultTtlMs', 'postingMergeAt', 'scopeTtl', 'history', 'affinity', 'url',
);
const GC_KEYS = keysOf<GcOptions>()('threshold', 'intervalMs', 'maxBlocksPerPass', 'threads', 'mergeBelowFill');
const HISTORY_KEYS = keysOf<HistoryRetention>()('versions', 'maxAgeMs');
const SCOPE_TTL_KEYS = keysOf<ScopeTtlRule>()('user', 'session', 'agent', 'run', 'ttlMs');

export function resolveStoreOptions(o: StoreOptions): ResolvedStoreOptions {
  if (o === null || typeof o !== 'object') throw invalidArgument('options must be an object');
  rejectUnknownKeys(o, STORE_KEYS, 'store options');
  if (o.gc !== undefined && (o.gc === null || typeof o.gc !== 'object')) throw invalidArgument(`option gc must be an object, got ${show(o.gc)}`);
  if (o.gc !== undefined) rejectUnknownKeys(o.gc, GC_KEYS, 'store option gc');
  for (const name of ['crossSessionBlocks', 'readOnly'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'boolean') throw invalidArgument(`option ${name} must be a boolean, got ${show(o[name])}`);
  }
  // A clock that is not a function would only fail at the first write, as an I/O error.
  if (o.now !== undefined && typeof o.now !== 'function') throw invalidArgument(`option now must be a function, got ${show(o.now)}`);
  const gc = o.gc ?? {};
  const threshold = gc.threshold ?? 0.3;
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1)) {
    throw invalidArgument(`option gc.threshold must be in (0, 1], got ${show(threshold)}`);
  }
  if (o.durability !== undefined && o.durability !== 'sync' && o.durability !== 'relaxed' && o.durability !== 'replicated') {
    throw invalidArgument(`option durability must be 'sync', 'relaxed' or 'replicated', got ${show(o.durability)}`);
  }
  if (o.history !== undefined && o.history !== false && (o.history === null || typeof o.history !== 'object' || Array.isArray(o.history))) {
    throw invalidArgument(`option history must be false or { versions?, maxAgeMs? }, got ${show(o.history)}`);
  }
  if (o.history !== undefined && o.history !== false) rejectUnknownKeys(o.history, HISTORY_KEYS, 'store option history');
  const history = o.history === false ? { versions: 0, maxAgeMs: 0 } : (o.history ?? {});
  return {
    historyVersions: intIn('history.versions', history.versions, 0, 1_000_000, DEFAULT_HISTORY_VERSIONS),
    historyMaxAgeMs: intIn('history.maxAgeMs', history.maxAgeMs, 0, Number.MAX_SAFE_INTEGER, 0),
    scopeTtl: checkScopeTtl(o.scopeTtl),
    blockCapacity: intIn('blockCapacity', o.blockCapacity, 1, MAX_BLOCK_CAPACITY, DEFAULT_BLOCK_CAPACITY),
    blockMaxBytes: intIn('blockMaxBytes', o.blockMaxBytes, 1024, 64 * 1024 * 1024, DEFAULT_BLOCK_MAX_BYTES),
    crossSessionBlocks: o.crossSessionBlocks ?? true,
    cacheBytes: intIn('cacheBytes', o.cacheBytes, 0, Number.MAX_SAFE_INTEGER, 32 * 1024 * 1024),
    durability: o.durability ?? 'sync',
    zstdLevel: intIn('zstdLevel', o.zstdLevel, 1, 19, 3),
    gcThreshold: threshold,
    gcIntervalMs: intIn('gc.intervalMs', gc.intervalMs, 0, 24 * 3600 * 1000, 2000),
    gcMaxBlocksPerPass: intIn('gc.maxBlocksPerPass', gc.maxBlocksPerPass, 1, 1_000_000, 64),
    gcThreads: intIn('gc.threads', gc.threads, 1, 64, 1),
    gcMergeBelowFill: fractionIn('gc.mergeBelowFill', gc.mergeBelowFill, DEFAULT_GC_MERGE_BELOW_FILL),
    readOnly: o.readOnly ?? false,
    now: o.now ?? Date.now,
    defaultTtlMs: intIn('defaultTtlMs', o.defaultTtlMs, 0, Number.MAX_SAFE_INTEGER, 0),
    postingMergeAt: intIn('postingMergeAt', o.postingMergeAt, 1, 65_536, DEFAULT_POSTING_MERGE_AT),
  };
}

const SCOPE_DIMENSIONS = ['user', 'session', 'agent', 'run'] as const;

function checkScopeTtl(v: unknown): ScopeTtlRule[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > 1024) throw invalidArgument(`option scopeTtl must be an array of at most 1024 rules, got ${show(v)}`);
  return Array.from(v as unknown[], (r, i) => {
    const what = `scopeTtl[${i}]`;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw invalidArgument(`option ${what} must be { user?, session?, agent?, run?, ttlMs }`);
    rejectUnknownKeys(r, SCOPE_TTL_KEYS, `store option ${what}`);
    const o = r as Record<string, unknown>;
    const out: Record<string, unknown> = { ttlMs: intIn(`${what}.ttlMs`, o['ttlMs'], 0, Number.MAX_SAFE_INTEGER, -1) };
    if (out['ttlMs'] === -1) throw invalidArgument(`option ${what}.ttlMs is required`);
    for (const d of SCOPE_DIMENSIONS) {
      const x = o[d];
      if (x === undefined) continue;
      if (typeof x !== 'string' || x === '' || x.includes('\u0000')) throw invalidArgument(`option ${what}.${d} must be a non-empty id string`);
      out[d] = x;
    }
    if (!SCOPE_DIMENSIONS.some((d) => out[d] !== undefined)) throw invalidArgument(`option ${what} names no scope (user, session, agent or run)`);
    return out as unknown as ScopeTtlRule;
  });
}

/** The default TTL of a put in this scope (ms, 0: never): the first matching `scopeTtl` rule, else `defaultTtlMs`. */
export function defaultTtlFor(o: ResolvedStoreOptions, scope: { userId: string; sessionId: string; agentId?: string | undefined; runId?: string | undefined }): number {
  for (const r of o.scopeTtl) {
    if (r.user !== undefined && r.user !== scope.userId) continue;
    if (r.session !== undefined && r.session !== scope.sessionId) continue;
    if (r.agent !== undefined && r.agent !== scope.agentId) continue;
    if (r.run !== undefined && r.run !== scope.runId) continue;
    return r.ttlMs;
  }
  return o.defaultTtlMs;
}

/**
 * Batch/put options for the durability setting. classic-level reads `sync`, Redis `durability`; others ignore both.
 * Typed loosely because abstract-level's option types do not declare `sync`.
 */
export function writeOptions(o: { readonly durability: Durability }): Record<string, never> {
  // `durability` itself is read by backends with their own levels (Redis: 'replicated' waits for a replica).
  return { sync: o.durability !== 'relaxed', durability: o.durability } as unknown as Record<string, never>;
}

export interface AkashicStoreOptions extends StoreOptions {
  /** Groups live chunks during GC. Default: DefaultAffinityModel (keyword overlap + co-access). */
  readonly affinity?: AffinityModel;
}

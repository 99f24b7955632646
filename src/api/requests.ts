// What the store's write and list calls take.
import type { ChunkFilter } from './chunk-filter.js';
import type { ChunkContent, SupersedesRef } from './chunk-input.js';
import type { ScopeSelector } from './scope-filter.js';

/** A chunk to create. `chunkId` is generated (monotonic ULID) unless given. */
export interface PutInput extends ChunkContent {
  readonly sessionId: string;
  readonly chunkId?: string;
  /** Creation time in ms; defaults to now. */
  readonly createdAt?: number;
  /** Time to live in ms from the commit (integer ≥ 1). Default: the store's `defaultTtlMs` (0: never expires). */
  readonly ttlMs?: number;
  /** Absolute expiry, ms since the epoch (integer). Exclusive with `ttlMs`. */
  readonly expiresAt?: number;
}

/** One change of an atomic `write`. */
export type WriteOp =
  | ({ readonly op: 'put' } & PutInput)
  | ({
      readonly op: 'update';
      readonly sessionId: string;
      readonly chunkId: string;
      readonly expectVersion?: number;
      /** The chunk that caused this update (a bare id names one of the same session); kept in the history entry. */
      readonly supersededBy?: string | SupersedesRef;
    } & Partial<ChunkContent> &
      ExpiryUpdate)
  | {
      readonly op: 'delete';
      readonly sessionId: string;
      readonly chunkId: string;
      readonly expectVersion?: number;
      /** The chunk that replaced this one (a bare id names one of the same session). */
      readonly supersededBy?: string | SupersedesRef;
    };

/** Options of `list`. */
export interface ListOptions extends ScopeSelector {
  readonly sessionId?: string;
  readonly includeDeleted?: boolean;
  readonly includeExpired?: boolean;
  readonly filter?: ChunkFilter;
  /** List the chunks as they were at this time (ms since the epoch). */
  readonly asOf?: number;
  /** Also list every kept superseded version, marked `superseded`. */
  readonly includeSuperseded?: boolean;
}

/** Expiry fields of an update: a new `ttlMs` or `expiresAt`, or `expiresAt: null` to make the chunk permanent. */
export interface ExpiryUpdate {
  readonly ttlMs?: number;
  readonly expiresAt?: number | null;
}

// What the store's reads and writes return.
import type { BlockInfo } from '../record/block-info.js';
import type { ChunkRecord, FullChunkRef } from '../record/chunk-record.js';
import type { DirEntry } from '../record/dir-entry.js';
import type { SupersedeCause } from '../record/history-version.js';

/** What a read cost: blocks touched and what was fetched from storage. */
export interface ReadCost {
  /** Distinct blocks the request needed (cached or not). */
  readonly blocksTouched: number;
  /** Frames fetched from the key-value store (cache misses). */
  readonly framesRead: number;
  /** Stored bytes fetched from the key-value store. */
  readonly bytesRead: number;
}

export interface MutationResult {
  readonly op: 'put' | 'update' | 'delete' | 'restore' | 'restoreHistory';
  readonly sessionId: string;
  readonly chunkId: string;
  /** Version after the write (for delete: the deleted version). `skipped` restores changed nothing. */
  readonly version: number;
  readonly skipped?: boolean;
}

export interface ReadResult extends ReadCost {
  /** One per requested ref, in request order; null where the chunk does not exist or is deleted. */
  readonly chunks: (ChunkRecord | null)[];
}

export interface ListedEntry {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly entry: DirEntry;
}

/** A version of a chunk as reads return it: the record and when it was current. */
export interface ChunkVersion {
  readonly record: ChunkRecord;
  readonly version: number;
  /** When this version became current. */
  readonly validFrom: number;
  /** When it stopped being current; null for the current version. */
  readonly validUntil: number | null;
  /** What ended it (null for the current version). */
  readonly cause: SupersedeCause | null;
  /** The chunk that replaced it, when reconciliation named one (full ref, same user). */
  readonly supersededBy: FullChunkRef | null;
  /** Why reconciliation ended it — what matched, e.g. `employer of Bob (self): "Acme" → "Globex"` — when it said. */
  readonly reason?: string;
}

/**
 * A superseded version as `restoreHistory` takes it (and `history()` returns it, minus the current version): the
 * record, when it was current, what ended it and the chunk that superseded it.
 */
export interface RestoredVersion {
  readonly record: ChunkRecord;
  readonly validFrom: number;
  readonly validUntil: number;
  readonly cause: SupersedeCause;
  readonly supersededBy: { readonly sessionId: string; readonly chunkId: string } | null;
}

/** How a listed entry of a superseded version is marked. */
export interface SupersededMark {
  /** When the version stopped being current. */
  readonly at: number;
  readonly cause: SupersedeCause;
  /** The chunk (same user) that replaced it, when reconciliation named one. */
  readonly by: { readonly sessionId: string; readonly chunkId: string } | null;
}

/** Index statistics BM25 needs over a user's live chunks of the given kinds. */
export interface KeywordStats {
  /** Live chunks of those kinds. */
  readonly docs: number;
  /** Sum of their (distinct, normalized) keyword counts. */
  readonly totalKeywords: number;
  /** Document frequency per normalized query keyword (0 when absent). */
  readonly df: ReadonlyMap<string, number>;
}

export type StoreStatus = 'opening' | 'open' | 'closing' | 'closed';

/** A listed entry; superseded versions (`includeSuperseded`) carry `superseded`. */
export interface ListedChunk extends ListedEntry {
  readonly superseded?: SupersededMark;
}

/** One block as `blocks()` lists it. */
export interface BlockListing extends BlockInfo {
  readonly phi: number;
}

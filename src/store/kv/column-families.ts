import type { AbstractSublevel } from 'abstract-level';
import { CF } from './keys.js';
import type { AnyLevel } from '../../api/store-options.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Family = AbstractSublevel<any, any, string, Buffer>;

/** The engine's column families, one LevelDB sublevel each (docs/format.md, "Column families"). */
export interface ColumnFamilies {
  /** Engine metadata and accounting. */
  readonly meta: Family;
  /** Logical directory: user/session/ulid → DirEntry. */
  readonly dir: Family;
  /** Physical block frames: blockId.frame → BlockFrame. */
  readonly blocks: Family;
  /** Block bookkeeping: blockId → BlockInfo. */
  readonly blockInfo: Family;
  /** Allocator state and open-block refs. */
  readonly alloc: Family;
  /** Co-access statistics. */
  readonly coaccess: Family;
  /** Active-chunk turns (MemAttention). */
  readonly active: Family;
  /** Candidate index: recency lists, keyword postings and their counters (candidate-index.ts). */
  readonly candidates: Family;
  /** Expiry index: expiresAt/user/session/ulid → ExpiryMark. */
  readonly expiry: Family;
  /** History: superseded versions (v ␀ user ␀ session ␀ ulid ␀ version) and their age index (history.ts). */
  readonly history: Family;
}

export function openFamilies(db: AnyLevel): ColumnFamilies {
  const f = (name: string): Family => db.sublevel<string, Buffer>(name, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  return {
    meta: f(CF.meta),
    dir: f(CF.dir),
    blocks: f(CF.blocks),
    blockInfo: f(CF.blockInfo),
    alloc: f(CF.alloc),
    coaccess: f(CF.coaccess),
    active: f(CF.active),
    candidates: f(CF.candidates),
    expiry: f(CF.expiry),
    history: f(CF.history),
  };
}

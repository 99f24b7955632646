/**
 * Key layouts of every column family (docs/format.md, "Column families"). All keys are UTF-8 strings; U+0000 separates
 * components (ids may not contain it), so `user\0` is an exact prefix that never matches a longer user id.
 */
import { isChunkId } from '../../api/ids.js';
import { GLOBAL_PARTITION, partitionOf as partitionOfStoredKey } from '../../backend/partition.js';

export { GLOBAL_PARTITION };
import { BLOCK_ID_DIGITS, SEP, blockKey, dirKey, orderedPair, parseRefString, refString } from '../../api/key-strings.js';

export { SEP, blockKey, dirKey, orderedPair, parseRefString, refString };
/** The character right after SEP. Ids never contain it (control characters are rejected), see `afterPrefix`. */
const AFTER_SEP = '\u0001';

/** Column family names (LevelDB sublevel prefixes). Frozen. */
export const CF = {
  meta: 'meta',
  dir: 'dir',
  blocks: 'blk',
  blockInfo: 'binfo',
  alloc: 'alloc',
  coaccess: 'coacc',
  active: 'active',
  candidates: 'cidx',
  expiry: 'ttl',
  history: 'hist',
} as const;

/** Splits a directory key; null unless it has three parts, non-empty ids and a ULID chunk id (anything else is damage). */
export function parseDirKey(key: string): { userId: string; sessionId: string; chunkId: string } | null {
  const parts = key.split(SEP);
  if (parts.length !== 3) return null;
  const [userId, sessionId, chunkId] = parts as [string, string, string];
  if (userId === '' || sessionId === '' || !isChunkId(chunkId)) return null;
  return { userId, sessionId, chunkId };
}

/**
 * The first key after every key that starts with the given components plus a separator: the components followed
 * by U+0001 instead of U+0000. Correct in byte (UTF-8) and UTF-16 order alike, whatever characters the ids hold.
 */
export function afterPrefix(...parts: string[]): string {
  return parts.join(SEP) + AFTER_SEP;
}

/** `[gte, lt)` of all keys starting with the given components plus a separator. */
export function prefixRange(...parts: string[]): { gte: string; lt: string } {
  return { gte: parts.join(SEP) + SEP, lt: afterPrefix(...parts) };
}

export function parseBlockKey(key: string): number {
  return parseInt(key, 16);
}

/** A frame's name, `blockId(12 hex).frame(4 hex)`: the cache key and the name in messages (not a stored key since format 6). */
export function frameKey(blockId: number, frameNo: number): string {
  return blockKey(blockId) + '.' + frameNo.toString(16).padStart(4, '0');
}

/** The `binfo` key of a block (database format 6): `user ␀ blockId(12 hex)`. */
export function blockInfoKey(userId: string, blockId: number): string {
  return userId + SEP + blockKey(blockId);
}

/** Splits a `binfo` key; null unless it is `user ␀ 12 hex digits`. */
export function parseBlockInfoKey(key: string): { userId: string; blockId: number } | null {
  const i = key.lastIndexOf(SEP);
  if (i <= 0 || key.length - i - 1 !== BLOCK_ID_DIGITS) return null;
  const hex = key.slice(i + 1);
  if (!/^[0-9a-f]+$/.test(hex)) return null;
  return { userId: key.slice(0, i), blockId: parseInt(hex, 16) };
}

/** The `blk` key of a frame (database format 6): `user ␀ blockId(12 hex) . frame(4 hex)`. */
export function frameStoreKey(userId: string, blockId: number, frameNo: number): string {
  return userId + SEP + frameKey(blockId, frameNo);
}

/** Splits a `blk` key; null unless it is `user ␀ 12 hex . 4 hex`. */
export function parseFrameStoreKey(key: string): { userId: string; blockId: number; frame: number } | null {
  const i = key.lastIndexOf(SEP);
  const rest = key.slice(i + 1);
  if (i <= 0 || !/^[0-9a-f]{12}\.[0-9a-f]{4}$/.test(rest)) return null;
  return { userId: key.slice(0, i), blockId: parseInt(rest.slice(0, BLOCK_ID_DIGITS), 16), frame: parseInt(rest.slice(BLOCK_ID_DIGITS + 1), 16) };
}

/** `blk` keys of one block's frames: `[gte, lt)`. */
export function frameRange(userId: string, blockId: number): { gte: string; lt: string } {
  const k = userId + SEP + blockKey(blockId);
  return { gte: k + '.', lt: k + '/' };
}

/**
 * The block id allocator (`alloc` family): the lowest id no process has taken yet. The one key that every process
 * shares; a process takes ids in ranges of `BLOCK_ID_RANGE` (`block-id-allocator.ts`), so it is written once per range.
 */
export const ALLOC_NEXT_KEY = 'next';

/** A user's accounting record (`alloc` family, database format 6): `acct ␀ user`. */
export function accountingKey(userId: string): string {
  return 'acct' + SEP + userId;
}

/** Which open block of a user (or session) an append goes to: the ordinary one or the relocation one. */
export type AppendLane = 'append' | 'relocation';

/** Open block of a user (cross-session blocks) or of a user's session, in `lane`. */
export function openBlockKey(userId: string, sessionId: string | null, lane: AppendLane = 'append'): string {
  // The relocation lane ends in `␀\u0001r`: no session id can start with a control character, so it never
  // collides with a session's append key, and it stays inside the `open␀user␀` range.
  return 'open' + SEP + userId + (sessionId === null ? '' : SEP + sessionId) + (lane === 'relocation' ? SEP + '\u0001r' : '');
}

export const META_ENGINE_KEY = 'engine';
/**
 * The database-wide accounting record of formats 1–5. Since format 6 each user has one (`accountingKey`); an upgrade
 * keeps this record as the counters of events before it (its live/stored byte and history figures zeroed, as those
 * moved to the users), read-only from then on: totals are it plus the sum over users.
 */
export const META_ACCOUNTING_KEY = 'accounting';
/**
 * The database format and the oldest format an engine must read to open the database (two u32le;
 * `database-format.ts`). Checked before anything else at every open; written by a writable open when absent or older.
 */
export const META_FORMAT_KEY = 'format';
/**
 * Present in a database whose block frames live in frame files (database format 4, `file-frame-store.ts`); its value
 * is the frame-file layout version (u32le, 1). Written when the database is created on a directory.
 */
export const META_FRAMES_KEY = 'frames';
/**
 * Present once the candidate index is complete in database format 5 (postings written by the posting merge, pending
 * keys allowed, no per-keyword counters). A database without it gets its index upgraded (formats 2 to 4, whose
 * counters are dropped) or rebuilt from the directory (format 1, or a rebuild interrupted by a crash) at the next
 * writable open.
 */
export const META_INDEX_KEY = 'cidx5';
/**
 * The format-3/4 marker: the same index with document-frequency and per-kind counters (`f` and `n` keys). A writable
 * open of this engine drops the counters and replaces the marker, so an older engine, which would read and update
 * counters that are no longer kept, rebuilds the index instead.
 */
export const META_INDEX_V3_KEY = 'cidx3';
/**
 * The format-2 marker (every live chunk posted, no pending keys: a valid format-3 index). A writable open of this
 * engine always removes it, so an older engine, which knows no pending keys, rebuilds the index instead of
 * maintaining one it would misread.
 */
export const META_INDEX_V2_KEY = 'cidx';

/** Per-chunk access count: `a\0user\0session\0chunk`. */
export function accessKey(userId: string, ref: string): string {
  return 'a' + SEP + userId + SEP + ref;
}

/** Pair co-access count: `p\0user\0` + `orderedPair(refA, refB)`. A ref is `session\0chunk`. */
export function pairKey(userId: string, a: string, b: string): string {
  return 'p' + SEP + userId + SEP + orderedPair(a, b);
}

/** Active-chunk turn key: `user\0session\0seq` with a 10-digit sequence. */
export function activeKey(userId: string, sessionId: string, seq: number): string {
  return userId + SEP + sessionId + SEP + seq.toString().padStart(10, '0');
}

/** The namespace of an active-chunk turn key, or null when the key is malformed. */
export function parseActiveKey(key: string): { userId: string; sessionId: string; seq: number } | null {
  const parts = key.split(SEP);
  if (parts.length !== 3 || !/^[0-9]{10}$/.test(parts[2]!)) return null;
  return { userId: parts[0]!, sessionId: parts[1]!, seq: Number(parts[2]) };
}

/**
 * Expiry index key (database format 6): `user ␀ expiresAt(16 hex digits, ms) ␀ session ␀ ulid`, so a sweep reads a
 * user's expired chunks as one range from the start of the user's keys up to the current time.
 */
export function expiryKey(expiresAt: number, userId: string, sessionId: string, chunkId: string): string {
  return userId + SEP + expiryTime(expiresAt) + SEP + sessionId + SEP + chunkId;
}

/** The time component of expiry keys; `user ␀ expiryTime(now) ␀ U+0001` bounds a user's sweep. */
export function expiryTime(ms: number): string {
  return Math.max(0, Math.ceil(ms)).toString(16).padStart(16, '0');
}

export function parseExpiryKey(key: string): { expiresAt: number; userId: string; sessionId: string; chunkId: string } | null {
  const parts = key.split(SEP);
  if (parts.length !== 4) return null;
  const [userId, t, sessionId, chunkId] = parts as [string, string, string, string];
  if (!/^[0-9a-f]{16}$/.test(t)) return null;
  return { expiresAt: parseInt(t, 16), userId, sessionId, chunkId };
}

/**
 * The partition of a key of family `family` (database format 6): the user id its key names, or
 * `GLOBAL_PARTITION` for the few records every user shares (the `meta` family, the allocator's `next`). Every
 * batch of a commit falls in one partition; a partitioned backend keeps a partition's keys together (one Redis hash
 * slot) and applies a batch of one partition atomically. The rule itself is the backends' (`backend/partition.ts`),
 * applied to the key as the root database sees it, so the engine and Redis can never disagree on it.
 */
export function partitionOf(family: string, key: string): string {
  return partitionOfStoredKey(`!${family}!${key}`);
}

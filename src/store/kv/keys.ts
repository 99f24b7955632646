/**
 * Key layouts of every column family (docs/format.md, "Column families"). All keys are UTF-8 strings; U+0000 separates
 * components (ids may not contain it), so `user\0` is an exact prefix that never matches a longer user id.
 */
import { isChunkId } from '../../api/ids.js';
export const SEP = '\u0000';
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

export function dirKey(userId: string, sessionId: string, chunkId: string): string {
  return userId + SEP + sessionId + SEP + chunkId;
}

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

const BLOCK_ID_DIGITS = 12;

/** Block ids as fixed-width lower-case hex, so key order is id order (ids are allocated increasing). */
export function blockKey(blockId: number): string {
  return blockId.toString(16).padStart(BLOCK_ID_DIGITS, '0');
}

export function parseBlockKey(key: string): number {
  return parseInt(key, 16);
}

export function frameKey(blockId: number, frameNo: number): string {
  return blockKey(blockId) + '.' + frameNo.toString(16).padStart(4, '0');
}

/** Frame keys of one block: `[gte, lt)`. */
export function frameRange(blockId: number): { gte: string; lt: string } {
  const k = blockKey(blockId);
  return { gte: k + '.', lt: k + '/' };
}

export const ALLOC_NEXT_KEY = 'next';

/** Which open block of a user (or session) an append goes to: the ordinary one or the relocation one. */
export type AppendLane = 'append' | 'relocation';

/** Open block of a user (cross-session blocks) or of a user's session, in `lane`. */
export function openBlockKey(userId: string, sessionId: string | null, lane: AppendLane = 'append'): string {
  // The relocation lane ends in `␀\u0001r`: no session id can start with a control character, so it never
  // collides with a session's append key, and it stays inside the `open␀user␀` range.
  return 'open' + SEP + userId + (sessionId === null ? '' : SEP + sessionId) + (lane === 'relocation' ? SEP + '\u0001r' : '');
}

export const META_ENGINE_KEY = 'engine';
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

/**
 * An unordered pair of ids as one string: the two in string (UTF-16 code unit) order, U+0000 between. The key of
 * co-access pairs everywhere: in the column family (`pairKey`), in `CoAccessStats.pairs` and `CoAccessView.pairs`.
 */
export function orderedPair(a: string, b: string): string {
  return a < b ? a + SEP + b : b + SEP + a;
}

/** Pair co-access count: `p\0user\0` + `orderedPair(refA, refB)`. A ref is `session\0chunk`. */
export function pairKey(userId: string, a: string, b: string): string {
  return 'p' + SEP + userId + SEP + orderedPair(a, b);
}

/** A chunk reference inside co-access keys and model calls: `session\0chunk`. */
export function refString(sessionId: string, chunkId: string): string {
  return sessionId + SEP + chunkId;
}

export function parseRefString(ref: string): { sessionId: string; chunkId: string } {
  const i = ref.lastIndexOf(SEP);
  return { sessionId: ref.slice(0, i), chunkId: ref.slice(i + 1) };
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
 * Expiry index key: `expiresAt(16 hex digits, ms) ␀ user ␀ session ␀ ulid`, so a sweep reads the expired chunks
 * as one range from the start of the family up to the current time.
 */
export function expiryKey(expiresAt: number, userId: string, sessionId: string, chunkId: string): string {
  return expiryTime(expiresAt) + SEP + userId + SEP + sessionId + SEP + chunkId;
}

/** The time component of expiry keys; `expiryTime(now) + SEP + HIGH...` bounds a sweep. */
export function expiryTime(ms: number): string {
  return Math.max(0, Math.ceil(ms)).toString(16).padStart(16, '0');
}

export function parseExpiryKey(key: string): { expiresAt: number; userId: string; sessionId: string; chunkId: string } | null {
  const parts = key.split(SEP);
  if (parts.length !== 4) return null;
  const [t, userId, sessionId, chunkId] = parts as [string, string, string, string];
  return { expiresAt: parseInt(t, 16), userId, sessionId, chunkId };
}

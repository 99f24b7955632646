/**
 * The string forms of keys and refs that callers see or order by (docs/format.md, "Column families"): U+0000
 * between components, a chunk ref as `session\0chunk`, an unordered pair of refs, a directory key, a block id as
 * fixed-width hex. The store's key layouts build on them; MemAttention, the models and the admin listings use them
 * to key maps, sort and print.
 */

export const SEP = '\u0000';

/** A chunk's directory key, `user\0session\0chunk`: the order of listings and dumps. */
export function dirKey(userId: string, sessionId: string, chunkId: string): string {
  return userId + SEP + sessionId + SEP + chunkId;
}

export const BLOCK_ID_DIGITS = 12;

/** Block ids as fixed-width lower-case hex, so key order is id order (ids are allocated increasing). */
export function blockKey(blockId: number): string {
  return blockId.toString(16).padStart(BLOCK_ID_DIGITS, '0');
}

/**
 * An unordered pair of ids as one string: the two in string (UTF-16 code unit) order, U+0000 between. The key of
 * co-access pairs everywhere: in the column family (`pairKey`), in `CoAccessStats.pairs` and `CoAccessView.pairs`.
 */
export function orderedPair(a: string, b: string): string {
  return a < b ? a + SEP + b : b + SEP + a;
}

/** A chunk reference inside co-access keys and model calls: `session\0chunk`. */
export function refString(sessionId: string, chunkId: string): string {
  return sessionId + SEP + chunkId;
}

export function parseRefString(ref: string): { sessionId: string; chunkId: string } {
  const i = ref.lastIndexOf(SEP);
  return { sessionId: ref.slice(0, i), chunkId: ref.slice(i + 1) };
}

/**
 * Marker keywords: how the adapters find their records from directory metadata alone.
 *
 * The engine's directory entry carries a chunk's keywords but not its attributes, and `AkashicStore.list` reads
 * directory entries without touching blocks. An adapter that must find "the item with key K" or "checkpoint C of
 * thread T" therefore puts a marker keyword on the chunk and scans the directory of one session: O(chunks in that
 * session) metadata reads, no block reads, then one `getMany` for the bodies it needs.
 *
 * A marker is `\u0001<tag>:<value>`; a value too long for one keyword (256 UTF-8 bytes) is replaced by
 * `\u0001<tag>#<sha-256, base64url>`, which still compares by equality but cannot be read back, so every adapter
 * also keeps the exact value in the chunk's attributes. U+0001 never occurs in a keyword the model layer
 * extracts, so markers never match a query term.
 * @internal
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../api/chunk-input.js';

const MARK = '\u0001';

export function markerKeyword(tag: string, value: string): string {
  const raw = MARK + tag + ':' + value;
  if (raw.isWellFormed() && Buffer.byteLength(raw, 'utf8') <= LIMITS.keywordBytes) return raw;
  return MARK + tag + '#' + createHash('sha256').update(value, 'utf8').digest('base64url');
}

/** The value of a readable marker of `tag`, or null when `kw` is another tag's marker, a hashed one or no marker. */
export function markerValue(kw: string | undefined, tag: string): string | null {
  const head = MARK + tag + ':';
  return kw !== undefined && kw.startsWith(head) ? kw.slice(head.length) : null;
}

/** True when `kw` is any marker of `tag` (readable or hashed). */
export function isMarkerOf(kw: string | undefined, tag: string): boolean {
  return kw !== undefined && (kw.startsWith(MARK + tag + ':') || kw.startsWith(MARK + tag + '#'));
}

/** True when `kw` is a marker of any tag. */
export function isMarker(kw: string): boolean {
  return kw.startsWith(MARK);
}

import type * as flatbuffers from 'flatbuffers';
import { isAscii } from 'node:buffer';

const BOM = 0xfeff;

/**
 * A table's vector of strings (at vtable slot `slot`), read straight from the buffer: one offset walk for the whole
 * vector instead of the generated accessor's per-string vtable lookup, view and TextDecoder call. Recall decodes
 * hundreds of directory entries and the records it fetches, up to 64 keywords each, so the per-string cost counts:
 *
 * - when the bytes spanned by the vector's strings (their length prefixes and padding included) are all ASCII, that
 *   span is decoded once and each string is cut from it (ASCII reads the same in Latin-1 and UTF-8, and holds no
 *   byte-order mark): one native call per vector instead of one per string, about 3× faster for short keywords;
 * - otherwise each string is decoded as UTF-8 on its own, dropping a leading byte-order mark as TextDecoder does.
 *
 * Same strings as the accessor either way (`null` read as ''). `body` is the buffer's bytes as a Buffer. An absent
 * field reads as [].
 * @throws RangeError when a string runs past the end of the buffer.
 */
export function readStringVector(bb: flatbuffers.ByteBuffer, tablePos: number, slot: number, body: Buffer): string[] {
  const field = bb.__offset(tablePos, slot);
  if (field === 0) return [];
  return decodeStrings(body, bb.__vector(tablePos + field), bb.__vector_len(tablePos + field));
}

/**
 * The `n` strings of the vector whose offsets start at `vector` in `body`, decoded as `readStringVector` decodes
 * them.
 * @throws RangeError when a string runs past the end of the buffer.
 */
export function decodeStrings(body: Buffer, vector: number, n: number): string[] {
  const starts = new Array<number>(n);
  const lengths = new Array<number>(n);
  let lo = body.length;
  let hi = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const at = vector + i * 4;
    const start = at + int32At(body, at);
    const length = start >= 0 && start + 4 <= body.length ? int32At(body, start) : -1;
    if (start < 0 || length < 0 || start + 4 + length > body.length) throw new RangeError('string runs past the end of the buffer');
    starts[i] = start + 4;
    lengths[i] = length;
    bytes += length;
    if (start < lo) lo = start;
    if (start + 4 + length > hi) hi = start + 4 + length;
  }
  const out = new Array<string>(n);
  // The shared span only when it is mostly the strings themselves (a writer may place other data between them).
  if (n > 1 && hi - lo <= 2 * bytes + 8 * n && isAscii(body.subarray(lo, hi))) {
    const span = body.toString('latin1', lo, hi);
    for (let i = 0; i < n; i++) out[i] = span.substring(starts[i]! - lo, starts[i]! - lo + lengths[i]!);
    return out;
  }
  for (let i = 0; i < n; i++) {
    const k = body.toString('utf8', starts[i]!, starts[i]! + lengths[i]!);
    out[i] = k.charCodeAt(0) === BOM ? k.slice(1) : k;
  }
  return out;
}

/** The little-endian int32 at `at` (the caller checks that four bytes are there; past the end reads as 0 bytes). */
export function int32At(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
}

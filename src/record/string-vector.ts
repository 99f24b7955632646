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
  const vector = bb.__vector(tablePos + field);
  const n = bb.__vector_len(tablePos + field);
  const starts = new Array<number>(n);
  const lengths = new Array<number>(n);
  let lo = body.length;
  let hi = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const at = vector + i * 4;
    const start = at + bb.readInt32(at);
    const length = bb.readInt32(start);
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

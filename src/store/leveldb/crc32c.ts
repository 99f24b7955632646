/**
 * CRC-32C (Castagnoli), as LevelDB checksums its log records and table blocks, plus LevelDB's masking.
 * Hand-written (slicing by 8: eight tables, eight bytes a step): the npm packages for it pull in a native addon or
 * seven packages of an SDK.
 */
const TABLES = (() => {
  const t = Array.from({ length: 8 }, () => new Int32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[0]![i] = c;
  }
  for (let i = 0; i < 256; i++) {
    for (let k = 1; k < 8; k++) t[k]![i] = t[0]![t[k - 1]![i]! & 0xff]! ^ (t[k - 1]![i]! >>> 8);
  }
  return t;
})();
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];

/** CRC-32C of `buf[start, end)`. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = 0xffffffff;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const lo = c ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    c =
      T7[lo & 0xff]! ^
      T6[(lo >>> 8) & 0xff]! ^
      T5[(lo >>> 16) & 0xff]! ^
      T4[lo >>> 24]! ^
      T3[buf[i + 4]!]! ^
      T2[buf[i + 5]!]! ^
      T1[buf[i + 6]!]! ^
      T0[buf[i + 7]!]!;
  }
  for (; i < end; i++) c = T0[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const MASK_DELTA = 0xa282ead8;

/** LevelDB stores masked CRCs (a CRC of data that embeds CRCs is weak): this undoes the mask. */
export function unmaskCrc(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

/** The masked form LevelDB stores. */
export function maskCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

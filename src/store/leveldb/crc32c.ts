/**
 * CRC-32C (Castagnoli), as LevelDB checksums its log records and table blocks, plus LevelDB's masking.
 * Hand-written (a table and a loop): the npm packages for it pull in a native addon or seven packages of an SDK.
 */
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** CRC-32C of `buf[start, end)`. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = TABLE[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** LevelDB stores masked CRCs (a CRC of data that embeds CRCs is weak): this undoes the mask. */
export function unmaskCrc(masked: number): number {
  const rot = (masked - 0xa282ead8) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

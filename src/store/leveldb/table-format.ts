import { createRequire } from 'node:module';
import type SnappyJS from 'snappyjs';

/** Snappy is needed only to read a table compressed by LevelDB (salvage, checks): loaded on first use. */
const requireHere = createRequire(import.meta.url);
let snappy: typeof SnappyJS | undefined;
function snappyModule(): typeof SnappyJS {
  snappy ??= requireHere('snappyjs') as typeof SnappyJS;
  return snappy;
}
import { crc32c, maskCrc, unmaskCrc } from './crc32c.js';

/**
 * LevelDB's table file format (`*.ldb`, `*.sst`), read and written below LevelDB, for the checks and the salvage
 * that must happen before LevelDB opens a directory (see table-check.ts).
 *
 * Layout (LevelDB 1.x): data blocks, a filter block, a metaindex block, an index block, then a 48-byte footer —
 * the metaindex and index block handles (varint64 offset and size each), zero padding to 40 bytes, and the 8-byte
 * magic number 0xdb4775248b80fb57 (little-endian). Every block is followed by a 5-byte trailer: a compression type
 * (0 none, 1 snappy) and the masked CRC-32C of the block's stored bytes plus that type byte. A block holds entries
 * (varint32 shared key length, varint32 unshared key length, varint32 value length, the unshared key bytes, the
 * value), then an array of uint32 restart offsets and their count. The index block maps a separator key per data
 * block to that block's handle; the metaindex maps `filter.<policy>` to the filter block's handle.
 */
export interface BlockHandle {
  readonly offset: number;
  readonly size: number;
}

export interface Entry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

export const FOOTER_BYTES = 48;
export const TRAILER_BYTES = 5;
const MAGIC_LO = 0x8b80fb57;
const MAGIC_HI = 0xdb477524;
const NO_COMPRESSION = 0;
const SNAPPY = 1;
/** A block bigger than this is not something LevelDB wrote (its blocks are ~4 KiB; the index of a 2 MiB table less). */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

/** Thrown for bytes that do not follow the format; `offset` is where in the file. */
export class TableFormatError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads a varint (up to 64 bits, exact while below 2^53) at `at`; returns the value and the next position. */
function varint(buf: Uint8Array, at: number, end: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (at >= end) throw new TableFormatError(at, 'a varint runs past its block');
    const b = buf[at++]!;
    value += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) return [value, at];
    scale *= 128;
  }
  throw new TableFormatError(at, 'a varint is longer than 10 bytes');
}

function putVarint(out: number[], v: number): void {
  while (v >= 128) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

function readU32(buf: Uint8Array, at: number): number {
  return (buf[at]! | (buf[at + 1]! << 8) | (buf[at + 2]! << 16) | (buf[at + 3]! << 24)) >>> 0;
}

/** The metaindex and index handles from a table's footer. Throws TableFormatError on a bad footer. */
export function readFooter(file: Uint8Array): { metaindex: BlockHandle; index: BlockHandle } {
  if (file.length < FOOTER_BYTES) throw new TableFormatError(0, `file of ${file.length} bytes is shorter than a table footer`);
  const at = file.length - FOOTER_BYTES;
  if (readU32(file, at + 40) !== MAGIC_LO || readU32(file, at + 44) !== MAGIC_HI) throw new TableFormatError(at + 40, 'bad table magic number');
  const [mOff, p1] = varint(file, at, at + 40);
  const [mSize, p2] = varint(file, p1, at + 40);
  const [iOff, p3] = varint(file, p2, at + 40);
  const [iSize] = varint(file, p3, at + 40);
  return { metaindex: { offset: mOff, size: mSize }, index: { offset: iOff, size: iSize } };
}

/** Decodes a block handle (a value of the index or metaindex block). */
export function decodeHandle(value: Uint8Array): BlockHandle {
  const [offset, p] = varint(value, 0, value.length);
  const [size] = varint(value, p, value.length);
  return { offset, size };
}

/**
 * Checks a block's trailer checksum (no decompression); throws TableFormatError when the handle points outside
 * the table's block area or the checksum does not match.
 */
export function checkBlock(file: Uint8Array, h: BlockHandle): void {
  const limit = file.length - FOOTER_BYTES;
  if (h.size > MAX_BLOCK_BYTES || h.offset + h.size + TRAILER_BYTES > limit) {
    throw new TableFormatError(h.offset, `block handle (offset ${h.offset}, size ${h.size}) points outside the table`);
  }
  const end = h.offset + h.size;
  const type = file[end]!;
  if (type !== NO_COMPRESSION && type !== SNAPPY) throw new TableFormatError(end, `unknown block compression type ${type}`);
  if (crc32c(file, h.offset, end + 1) !== unmaskCrc(readU32(file, end + 1))) throw new TableFormatError(h.offset, 'block checksum mismatch');
}

/** A block's contents, checked and decompressed. Throws TableFormatError. */
export function readBlock(file: Uint8Array, h: BlockHandle): Uint8Array {
  checkBlock(file, h);
  const stored = file.subarray(h.offset, h.offset + h.size);
  if (file[h.offset + h.size] === NO_COMPRESSION) return stored;
  try {
    return snappyModule().uncompress(stored, MAX_BLOCK_BYTES);
  } catch (err) {
    throw new TableFormatError(h.offset, `block does not decompress: ${(err as Error).message}`);
  }
}

/** Every entry of a block's contents, keys in full. Throws TableFormatError on malformed contents. */
export function blockEntries(block: Uint8Array): Entry[] {
  if (block.length < 4) throw new TableFormatError(0, 'block shorter than its restart count');
  const restarts = readU32(block, block.length - 4);
  const end = block.length - 4 * (1 + restarts);
  if (restarts > block.length / 4 || end < 0) throw new TableFormatError(0, `bad restart count ${restarts}`);
  const out: Entry[] = [];
  let key: Uint8Array = new Uint8Array(0);
  for (let at = 0; at < end; ) {
    const [shared, p1] = varint(block, at, end);
    const [unshared, p2] = varint(block, p1, end);
    const [valueLength, p3] = varint(block, p2, end);
    if (shared > key.length || p3 + unshared + valueLength > end) throw new TableFormatError(at, 'block entry overruns its block');
    const next = new Uint8Array(shared + unshared);
    next.set(key.subarray(0, shared));
    next.set(block.subarray(p3, p3 + unshared), shared);
    key = next;
    out.push({ key, value: block.subarray(p3 + unshared, p3 + unshared + valueLength) });
    at = p3 + unshared + valueLength;
  }
  return out;
}

/**
 * Writes a valid table of `blocks` (each a list of entries in LevelDB's internal-key order; the caller keeps
 * them sorted): uncompressed data blocks with a restart at every entry, no filter block, an empty metaindex, an
 * index keyed by each block's last key, and the footer. Used by salvage to rebuild a damaged table from its
 * readable blocks; LevelDB's repair then takes the file as it takes any other table.
 */
export function writeTable(blocks: readonly (readonly Entry[])[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  const put = (contents: Uint8Array): BlockHandle => {
    const h = { offset: size, size: contents.length };
    const trailer = new Uint8Array(TRAILER_BYTES);
    trailer[0] = NO_COMPRESSION;
    const crc = maskCrc(crc32c(Buffer.concat([contents, trailer.subarray(0, 1)])));
    new DataView(trailer.buffer).setUint32(1, crc, true);
    parts.push(contents, trailer);
    size += contents.length + TRAILER_BYTES;
    return h;
  };
  const index: Entry[] = [];
  for (const entries of blocks) {
    if (entries.length === 0) continue;
    const h = put(encodeBlock(entries));
    index.push({ key: entries[entries.length - 1]!.key, value: encodeHandle(h) });
  }
  const metaindex = put(encodeBlock([]));
  const indexHandle = put(encodeBlock(index));
  const footer = new Uint8Array(FOOTER_BYTES);
  footer.set([...encodeHandle(metaindex), ...encodeHandle(indexHandle)]);
  const view = new DataView(footer.buffer);
  view.setUint32(40, MAGIC_LO, true);
  view.setUint32(44, MAGIC_HI, true);
  parts.push(footer);
  return Buffer.concat(parts);
}

function encodeHandle(h: BlockHandle): Uint8Array {
  const out: number[] = [];
  putVarint(out, h.offset);
  putVarint(out, h.size);
  return Uint8Array.from(out);
}

function encodeBlock(entries: readonly Entry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const restarts: number[] = [];
  let size = 0;
  for (const e of entries) {
    restarts.push(size);
    const head: number[] = [0];
    putVarint(head, e.key.length);
    putVarint(head, e.value.length);
    parts.push(Uint8Array.from(head), e.key, e.value);
    size += head.length + e.key.length + e.value.length;
  }
  if (restarts.length === 0) restarts.push(0);
  const tail = new DataView(new ArrayBuffer(4 * (restarts.length + 1)));
  restarts.forEach((r, i) => tail.setUint32(4 * i, r, true));
  tail.setUint32(4 * restarts.length, restarts.length, true);
  parts.push(new Uint8Array(tail.buffer));
  return Buffer.concat(parts);
}

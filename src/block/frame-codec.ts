import { compress, decompress } from '@mongodb-js/zstd';
import { corruption } from '../errors.js';
import { decodeBlockFrame, encodeBlockFrame } from '../record/block-frame.js';

/**
 * A frame payload, before compression, is the records laid end to end, each as `u32le length` + ChunkRecord
 * FlatBuffers bytes. The frame is zstd-compressed as one unit and wrapped in a checksummed envelope.
 * Pure functions: used both on the engine thread and inside GC workers.
 */
export const DEFAULT_ZSTD_LEVEL = 3;

/** Lays records end to end, each as `u32le length` + bytes: the payload of one frame before compression. */
export function joinRecords(records: readonly Uint8Array[]): Buffer {
  let size = 0;
  for (const r of records) size += 4 + r.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const r of records) {
    out.writeUInt32LE(r.length, at);
    out.set(r, at + 4);
    at += 4 + r.length;
  }
  return out;
}

/** Splits a payload into record views (valid while `payload` is). */
export function splitRecords(payload: Buffer, expected: number, what: string): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < payload.length) {
    if (at + 4 > payload.length) throw corruption(`${what}: truncated record length at byte ${at}`);
    const len = payload.readUInt32LE(at);
    if (at + 4 + len > payload.length) throw corruption(`${what}: record at byte ${at} overruns the frame`);
    out.push(payload.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  if (out.length !== expected) throw corruption(`${what}: holds ${out.length} records, header says ${expected}`);
  return out;
}

export interface EncodedFrame {
  readonly value: Buffer;
  readonly rawBytes: number;
}

/** Packs, compresses and envelopes one frame. `rawBytes` counts the record bytes (not length prefixes). */
export async function encodeFrame(
  blockId: number,
  frameNo: number,
  userId: string,
  records: readonly Uint8Array[],
  level = DEFAULT_ZSTD_LEVEL,
): Promise<EncodedFrame> {
  const payload = joinRecords(records);
  const compressed = await compress(payload, level);
  let rawBytes = 0;
  for (const r of records) rawBytes += r.length;
  const value = encodeBlockFrame({
    blockId,
    frameNo,
    userId,
    codec: 'zstd',
    rawBytes: payload.length,
    recordCount: records.length,
    payload: compressed,
  });
  return { value, rawBytes };
}

export interface DecodedFrame {
  readonly blockId: number;
  readonly frameNo: number;
  readonly userId: string;
  /** Each record's FlatBuffers bytes, in slot order; owned by the caller. */
  readonly records: Buffer[];
  /** Decompressed size, for cache accounting. */
  readonly bytes: number;
}

/**
 * Verifies the checksum, decompresses once and splits the frame into records. Any damage surfaces as
 * AKASHIC_CORRUPTION naming `what`; damaged bytes are never returned as data.
 */
export async function decodeFrame(value: Uint8Array, what: string): Promise<DecodedFrame> {
  const f = decodeBlockFrame(value, what);
  let payload: Buffer;
  if (f.codec === 'zstd') {
    try {
      payload = await decompress(Buffer.from(f.payload));
    } catch (err) {
      throw corruption(`${what}: zstd payload does not decompress`, err);
    }
  } else {
    payload = Buffer.from(f.payload);
  }
  if (payload.length !== f.rawBytes) {
    throw corruption(`${what}: payload is ${payload.length} bytes, header says ${f.rawBytes}`);
  }
  const records = splitRecords(payload, f.recordCount, what);
  return { blockId: f.blockId, frameNo: f.frameNo, userId: f.userId, records, bytes: payload.length };
}

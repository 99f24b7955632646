import { compress, decompress } from './zstd-binding.js';
import { corruption } from '../errors.js';
import { decodeBlockFrame, encodeBlockFrame, type BlockFrameValue } from '../record/block-frame.js';

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

/** Most decompressed bytes one joint decompression of `decodeFrames` produces. */
const JOINT_RAW_BYTES = 1 << 20;

/**
 * `decodeFrame` for several frames at once, in order. Each frame's checksum and header are verified first; the zstd
 * payloads are then decompressed with one native call per group of up to `JOINT_RAW_BYTES` (zstd decodes concatenated
 * frames into the concatenation of their contents), and the output is split by each frame's `rawBytes`. A fetch of
 * several one-chunk frames thus costs one trip to the thread pool instead of one per frame. When a joint call fails,
 * the group is decoded frame by frame, so damage is reported as AKASHIC_CORRUPTION naming the frame (`whats[i]`).
 * Each returned frame owns its memory (it never keeps a larger joint buffer alive in the frame cache).
 */
export async function decodeFrames(values: readonly Uint8Array[], whats: readonly string[]): Promise<DecodedFrame[]> {
  if (values.length === 1) return [await decodeFrame(values[0]!, whats[0]!)];
  const headers = values.map((v, i) => decodeBlockFrame(v, whats[i]!));
  const out: DecodedFrame[] = new Array(values.length);
  const groups: number[][] = [];
  let group: number[] = [];
  let groupBytes = 0;
  headers.forEach((f, i) => {
    if (f.codec !== 'zstd') {
      out[i] = splitFrame(f, Buffer.from(f.payload), whats[i]!);
      return;
    }
    if (group.length > 0 && groupBytes + f.rawBytes > JOINT_RAW_BYTES) {
      groups.push(group);
      group = [];
      groupBytes = 0;
    }
    group.push(i);
    groupBytes += f.rawBytes;
  });
  if (group.length > 0) groups.push(group);
  await Promise.all(
    groups.map(async (g) => {
      const joint = g.length === 1 ? null : await decompressJoint(g.map((i) => headers[i]!));
      const split = joint === null ? null : splitJoint(joint, g.map((i) => headers[i]!), g.map((i) => whats[i]!));
      const each = split ?? (await Promise.all(g.map((i) => decodeFrame(values[i]!, whats[i]!))));
      g.forEach((i, k) => (out[i] = each[k]!));
    }),
  );
  return out;
}

/** The concatenated contents of zstd frames, or null when the joint call fails or its length is not theirs. */
async function decompressJoint(frames: readonly BlockFrameValue[]): Promise<Buffer | null> {
  let expected = 0;
  for (const f of frames) expected += f.rawBytes;
  try {
    const out = await decompress(Buffer.concat(frames.map((f) => f.payload)));
    return out.length === expected ? out : null;
  } catch {
    return null;
  }
}

/** The frames of a joint decompression, each copied into memory of its own; null if one does not split. */
function splitJoint(joint: Buffer, frames: readonly BlockFrameValue[], whats: readonly string[]): DecodedFrame[] | null {
  const out: DecodedFrame[] = [];
  let at = 0;
  try {
    frames.forEach((f, k) => {
      const own = Buffer.allocUnsafeSlow(f.rawBytes);
      joint.copy(own, 0, at, at + f.rawBytes);
      at += f.rawBytes;
      out.push(splitFrame(f, own, whats[k]!));
    });
  } catch {
    return null;
  }
  return out;
}

/** Checks a decompressed payload against its frame header and splits it into records. */
function splitFrame(f: BlockFrameValue, payload: Buffer, what: string): DecodedFrame {
  if (payload.length !== f.rawBytes) {
    throw corruption(`${what}: payload is ${payload.length} bytes, header says ${f.rawBytes}`);
  }
  const records = splitRecords(payload, f.recordCount, what);
  return { blockId: f.blockId, frameNo: f.frameNo, userId: f.userId, records, bytes: payload.length };
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
  return splitFrame(f, payload, what);
}

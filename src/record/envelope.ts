import { crc32 } from 'node:zlib';
import { corruption } from '../errors.js';

/**
 * Every value Akashic stores is wrapped in a 6-byte envelope:
 *
 *   offset 0  u32le  CRC-32 (ISO-HDLC, zlib's) of bytes 4..end
 *   offset 4  u8     format version (FORMAT_VERSION)
 *   offset 5  u8     value type (ValueType)
 *   offset 6  ...    FlatBuffers bytes
 *
 * So any flipped or truncated byte of any value is detected before it is parsed (docs/format.md, "Envelope").
 */
export const FORMAT_VERSION = 1;
export const ENVELOPE_BYTES = 6;

/** Persisted value types. Frozen: never renumber. */
export const ValueType = {
  DirEntry: 2,
  BlockFrame: 3,
  BlockInfo: 4,
  AllocatorState: 5,
  OpenBlockRef: 6,
  CoAccess: 7,
  Accounting: 8,
  EngineMeta: 9,
  ActiveTurn: 10,
  IndexEntry: 11,
  IndexStats: 12,
  ExpiryMark: 13,
  HistoryVersion: 14,
  HistoryAgeMark: 15,
} as const;
export type ValueType = (typeof ValueType)[keyof typeof ValueType];

const TYPE_NAMES = new Map<number, string>(Object.entries(ValueType).map(([k, v]) => [v, k]));

/** Wraps FlatBuffers bytes in the envelope. The result is a fresh Buffer the caller owns. */
export function wrapEnvelope(type: ValueType, body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(ENVELOPE_BYTES + body.length);
  out[4] = FORMAT_VERSION;
  out[5] = type;
  out.set(body, ENVELOPE_BYTES);
  out.writeUInt32LE(crc32(out.subarray(4)) >>> 0, 0);
  return out;
}

/**
 * Checks the envelope and returns a view of the FlatBuffers bytes (valid as long as `value` is).
 * Throws AKASHIC_CORRUPTION naming `what` on a checksum, version or type mismatch.
 */
export function unwrapEnvelope(type: ValueType, value: Uint8Array, what: string): Uint8Array {
  if (value.length < ENVELOPE_BYTES) {
    throw corruption(`${what}: value of ${value.length} bytes is shorter than the envelope`);
  }
  const buf = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const stored = buf.readUInt32LE(0);
  const actual = crc32(buf.subarray(4)) >>> 0;
  if (stored !== actual) {
    throw corruption(`${what}: checksum mismatch (stored ${hex(stored)}, computed ${hex(actual)})`);
  }
  if (buf[4] !== FORMAT_VERSION) {
    throw corruption(`${what}: unknown format version ${buf[4]}`);
  }
  if (buf[5] !== type) {
    throw corruption(`${what}: holds a ${TYPE_NAMES.get(buf[5] ?? -1) ?? `type ${buf[5]}`}, expected ${TYPE_NAMES.get(type)}`);
  }
  return buf.subarray(ENVELOPE_BYTES);
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

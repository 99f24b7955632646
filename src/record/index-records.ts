import { corruption } from '../errors.js';
import { ValueType, unwrapEnvelope, wrapEnvelope } from './envelope.js';

/**
 * Values of the candidate index (docs/format.md, "Candidate index"). Entry keys carry everything; their value is
 * an envelope with an empty body. Counters are an envelope around two little-endian unsigned 48-bit integers.
 */
export const INDEX_PRESENT: Buffer = wrapEnvelope(ValueType.IndexEntry, new Uint8Array(0));

export interface IndexStats {
  /** Live chunks (for a document-frequency counter: live chunks holding the keyword). */
  readonly docs: number;
  /** Their total keyword count (0 in a document-frequency counter). */
  readonly keywords: number;
}

const STATS_BYTES = 12;

export function encodeIndexStats(s: IndexStats): Buffer {
  const body = Buffer.alloc(STATS_BYTES);
  body.writeUIntLE(s.docs, 0, 6);
  body.writeUIntLE(s.keywords, 6, 6);
  return wrapEnvelope(ValueType.IndexStats, body);
}

export function decodeIndexStats(value: Uint8Array, what: string): IndexStats {
  const body = unwrapEnvelope(ValueType.IndexStats, value, what);
  if (body.length !== STATS_BYTES) throw corruption(`${what}: counter of ${body.length} bytes, expected ${STATS_BYTES}`);
  const b = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return { docs: b.readUIntLE(0, 6), keywords: b.readUIntLE(6, 6) };
}

/** Checks an index entry value. */
export function checkIndexEntry(value: Uint8Array, what: string): void {
  const body = unwrapEnvelope(ValueType.IndexEntry, value, what);
  if (body.length !== 0) throw corruption(`${what}: index entry of ${body.length} bytes, expected 0`);
}

/**
 * How one LangGraph store item is laid out as an engine chunk (docs/adapters.md, "LangGraph store records").
 *
 * - kind `note`, in the session of its namespace (namespace-mapping.ts);
 * - `text`: the value as JSON (what a recall or a dump shows; at most 1 MiB);
 * - `keywords[0]`: the key marker `\u0001k:<key>` (marker-keywords.ts), then up to `keywordLimit` keywords extracted
 *   from the indexed fields, which serve lexical `query` ranking from directory metadata alone;
 * - `attributes`: `lg.key` (the exact key, at most 16 KiB), `lg.format` ("2" when the value's top-level fields are
 *   copied as typed attributes for search filters, field-attributes.ts; "1" when they are not) and those fields;
 * - `payload`: null, or the item's embedding vectors when the store has an embeddings index:
 *   u8 format (1) | u8 0 | u16 LE vector count | u32 LE dims | count × dims float32 LE.
 * - `createdAt`/`updatedAt` of the chunk are the item's; an update keeps `createdAt` (the engine does).
 *
 * Frozen: the tags, attribute names and the vector layout are read back from stored data.
 * @internal
 */
import type { Item } from '@langchain/langgraph-checkpoint';
import { corruption, invalidArgument } from '../../errors.js';
import { extractKeywords } from '../../model/keywords.js';
import type { ChunkRecord } from '../../record/chunk-record.js';
import { LIMITS, type ChunkContent } from '../../api/chunk-input.js';
import { markerKeyword } from '../shared/marker-keywords.js';
import { FORMAT_ATTRIBUTE, fieldAttributes } from './field-attributes.js';

export const KEY_TAG = 'k';
export const KEY_ATTRIBUTE = 'lg.key';
const VECTOR_FORMAT = 1;

/** Validates an item key: a well-formed string that fits an attribute value. */
export function checkItemKey(key: unknown, what = 'key'): string {
  if (typeof key !== 'string' || !key.isWellFormed()) throw invalidArgument(`${what} must be a well-formed string`);
  if (Buffer.byteLength(key, 'utf8') > LIMITS.attributeValueBytes) throw invalidArgument(`${what} is longer than ${LIMITS.attributeValueBytes} bytes`);
  return key;
}

export function keyMarker(key: string): string {
  return markerKeyword(KEY_TAG, key);
}

/** The value as stored text; throws AKASHIC_INVALID_ARGUMENT for a non-object or unserializable value. */
export function valueText(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument('item value must be a JSON object');
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw invalidArgument(`item value is not JSON-serializable: ${(err as Error).message}`);
  }
  if (Buffer.byteLength(text, 'utf8') > LIMITS.textBytes) throw invalidArgument(`item value is over ${LIMITS.textBytes} bytes as JSON`);
  return text;
}

/** Chunk content of an item. `indexTexts`: the texts of its indexed fields (empty when not indexed). */
export function itemContent(key: string, text: string, indexTexts: readonly string[], keywordLimit: number, vectors: readonly number[][] | null): ChunkContent {
  const keywords = indexTexts.length === 0 ? [] : extractKeywords(indexTexts.join('\n'), keywordLimit).filter((k) => Buffer.byteLength(k, 'utf8') <= LIMITS.keywordBytes);
  // The fields as stored: the value's JSON round trip (text is valueText's output, so it parses).
  const fields = fieldAttributes(JSON.parse(text) as Record<string, unknown>);
  return {
    kind: 'note',
    text,
    keywords: [keyMarker(key), ...keywords],
    attributes: { ...fields.attributes, [KEY_ATTRIBUTE]: key, [FORMAT_ATTRIBUTE]: fields.complete ? '2' : '1' },
    payload: vectors === null || vectors.length === 0 ? null : encodeVectors(vectors),
  };
}

/** The item a chunk holds. */
export function itemOf(record: ChunkRecord, namespace: string[]): Item {
  const key = record.attributes[KEY_ATTRIBUTE];
  if (key === undefined) throw corruption(`store item ${record.sessionId}/${record.chunkId} has no ${KEY_ATTRIBUTE} attribute`);
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(record.text) as Record<string, unknown>;
  } catch (err) {
    throw corruption(`store item ${record.sessionId}/${record.chunkId} does not hold JSON`, err);
  }
  return { namespace, key, value, createdAt: new Date(record.createdAt), updatedAt: new Date(record.updatedAt) };
}

export function encodeVectors(vectors: readonly number[][]): Uint8Array {
  const dims = vectors[0]?.length ?? 0;
  if (vectors.some((v) => v.length !== dims)) throw invalidArgument('embeddings returned vectors of different lengths');
  if (vectors.length > 0xffff) throw invalidArgument('too many vectors for one item');
  const buf = Buffer.alloc(8 + vectors.length * dims * 4);
  buf.writeUInt8(VECTOR_FORMAT, 0);
  buf.writeUInt16LE(vectors.length, 2);
  buf.writeUInt32LE(dims, 4);
  let off = 8;
  for (const v of vectors) {
    for (const x of v) {
      buf.writeFloatLE(x, off);
      off += 4;
    }
  }
  if (buf.length > LIMITS.payloadBytes) throw invalidArgument(`item embeddings take ${buf.length} bytes; the limit is ${LIMITS.payloadBytes}`);
  return buf;
}

export function decodeVectors(payload: Uint8Array | null, what: string): Float32Array[] {
  if (payload === null) return [];
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (buf.length < 8 || buf.readUInt8(0) !== VECTOR_FORMAT) throw corruption(`${what}: unknown vector payload format`);
  const count = buf.readUInt16LE(2);
  const dims = buf.readUInt32LE(4);
  if (buf.length !== 8 + count * dims * 4) throw corruption(`${what}: vector payload of ${buf.length} bytes does not hold ${count}×${dims} floats`);
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const v = new Float32Array(dims);
    for (let j = 0; j < dims; j++) v[j] = buf.readFloatLE(8 + (i * dims + j) * 4);
    out.push(v);
  }
  return out;
}

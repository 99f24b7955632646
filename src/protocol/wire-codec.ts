/**
 * The JSON form of engine values on the service's wire, shared by the server and `akashic/client`.
 *
 * JSON has no bytes and no typed arrays, so two fields change shape on the wire and nothing else does:
 * - a chunk's `payload` (bytes or null) travels as a base64 string (or null);
 * - an embedding's `vector` (a Float32Array) travels as an array of numbers (float32 → double → float32 is exact).
 * Every other field of a record, directory entry, history version or recall result is sent as the engine returns it.
 * An AkashicError inside a result (an append's `compactionError`) travels as an error body `{ code, message }`.
 */
import { AkashicError } from '../errors.js';
import { errorFromBody } from './error-body.js';

/**
 * JSON.stringify replacer for responses: bytes as base64, float vectors as number arrays, an AkashicError (a
 * failed compaction inside an append's result) as its `{ code, message }`.
 */
export function wireReplacer(_key: string, value: unknown): unknown {
  if (value instanceof AkashicError) return { code: value.code, message: value.message };
  if (value instanceof Float32Array || value instanceof Float64Array) return Array.from(value);
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  // Buffer.toJSON runs before the replacer sees the Buffer: it arrives here as { type: 'Buffer', data }.
  if (isBufferJson(value)) return Buffer.from(value.data).toString('base64');
  return value;
}

function isBufferJson(v: unknown): v is { type: 'Buffer'; data: number[] } {
  return v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data);
}

/** Serializes a response value with `wireReplacer`. */
export function toWireJson(value: unknown): string {
  return JSON.stringify(value ?? null, wireReplacer);
}

/** Base64 on the wire → bytes; null stays null. Throws TypeError on anything else (callers validate first). */
export function bytesFromWire(v: string | null): Uint8Array | null {
  if (v === null) return null;
  return new Uint8Array(Buffer.from(v, 'base64'));
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Restores an embedding `{ model, vector: number[] }` in place to `{ model, vector: Float32Array }`. */
function reviveEmbedding(holder: Record<string, unknown>): void {
  const e = holder['embedding'];
  if (e !== null && typeof e === 'object' && Array.isArray((e as { vector?: unknown }).vector)) {
    (e as Mutable<{ vector: unknown }>).vector = Float32Array.from((e as { vector: number[] }).vector);
  }
}

/** A chunk record from the wire: payload bytes and embedding vector restored (in place; returns its argument). */
export function recordFromWire<T>(r: T): T {
  if (r === null || typeof r !== 'object') return r;
  const o = r as Record<string, unknown>;
  if (typeof o['payload'] === 'string') o['payload'] = bytesFromWire(o['payload']);
  reviveEmbedding(o);
  return r;
}

/** A listed directory entry `{ userId, sessionId, chunkId, entry }` from the wire (in place). */
export function listedFromWire<T extends { entry: unknown }>(l: T): T {
  if (l.entry !== null && typeof l.entry === 'object') reviveEmbedding(l.entry as Record<string, unknown>);
  return l;
}

/** An append result from the wire: its `compactionError` body, when present, back to an AkashicError (in place). */
export function appendFromWire<T>(r: T): T {
  const o = r as Record<string, unknown>;
  if (o['compactionError'] !== undefined) o['compactionError'] = errorFromBody(o['compactionError'], 200);
  return r;
}

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

/**
 * Serializes a response value with `wireReplacer`. Most values (a recall's text and records without payloads or
 * vectors) hold nothing the replacer changes; they skip it, because a replacer makes V8 call back into JavaScript
 * for every key of the value, which costs more than one walk looking for what needs replacing.
 */
export function toWireJson(value: unknown): string {
  return needsReplacer(value, 0) ? JSON.stringify(value ?? null, wireReplacer) : JSON.stringify(value ?? null);
}

/** Deeper than this, the walk gives up and says yes (the replacer is always right, only slower). */
const WALK_DEPTH = 32;

/** Whether `v` holds bytes, a typed array or an AkashicError anywhere JSON.stringify would reach. */
function needsReplacer(v: unknown, depth: number): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (ArrayBuffer.isView(v) || v instanceof Error || depth > WALK_DEPTH) return true;
  if (Array.isArray(v)) {
    for (const item of v as unknown[]) if (item !== null && typeof item === 'object' && needsReplacer(item, depth + 1)) return true;
    return false;
  }
  for (const key in v) {
    const item = (v as Record<string, unknown>)[key];
    if (item !== null && typeof item === 'object' && needsReplacer(item, depth + 1)) return true;
  }
  return false;
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

/**
 * How AkashicSaver lays out checkpoints in the engine (docs/adapters.md, "LangGraph checkpoint records").
 *
 * All records of one saver live under one engine user (default `langgraph.checkpoints`; a `.` can never start a
 * store namespace user, whose labels cannot contain one). Each thread is one session: `t.<esc(thread_id)>`, or
 * `h.<sha-256 base64url>` when that is over 256 bytes, so a thread's records are one directory range, `deleteThread`
 * is one atomic write and the engine's cross-session blocks pack small threads together.
 *
 * Three record types, all kind `note`, found through marker keywords (marker-keywords.ts) without reading bodies:
 *
 * | type       | keywords                               | payload sections                                  |
 * |------------|----------------------------------------|---------------------------------------------------|
 * | checkpoint | c:<id>, n:<ns>                         | checkpoint without channel_values; metadata       |
 * | blob       | b:<channel>, n:<ns>, v:<json version>  | the channel value (none when the channel is empty)|
 * | writes     | w:<checkpoint id>, n:<ns>, t:<task id> | one per write, meta lists [idx, channel]          |
 *
 * Channel values are stored once per (namespace, channel, version), as blobs, only when the version is in the
 * `newVersions` of a put; reading a checkpoint resolves each entry of its `channel_versions` to a blob. This is
 * the Postgres saver's layout and why unchanged channels are never rewritten.
 *
 * Payload container: u8 format (1) | u32 LE header length | header JSON | sections back to back;
 * header = `{ "meta": any, "sections": [[serde type, byte length], …] }`.
 *
 * Frozen: tags, attribute names, session prefixes and the container layout are read back from stored data.
 * @internal
 */
import { createHash } from 'node:crypto';
import { corruption, invalidArgument } from '../../errors.js';
import { escapeIdPart, fitsEngineId, unescapeIdPart } from '../shared/id-escaping.js';

export const DEFAULT_SAVER_USER = 'langgraph.checkpoints';
export const TAG = { checkpoint: 'c', blob: 'b', writes: 'w', ns: 'n', version: 'v', task: 't' } as const;
export const ATTR = { type: 'lg.type', thread: 'lg.thread', ns: 'lg.ns', id: 'lg.id', parent: 'lg.parent', task: 'lg.task', path: 'lg.path' } as const;
/** Longest checkpoint id: it must fit one readable marker keyword. */
export const MAX_CHECKPOINT_ID_BYTES = 200;
const CONTAINER_FORMAT = 1;

export type RecordType = 'checkpoint' | 'blob' | 'writes';

/** The engine session of a thread. */
export function threadSession(threadId: string): string {
  const readable = 't.' + escapeIdPart(threadId);
  return fitsEngineId(readable) ? readable : 'h.' + createHash('sha256').update(threadId, 'utf8').digest('base64url');
}

/** The thread id of a readable thread session; null for hashed ones (read `lg.thread` from a record instead). */
export function threadOfSession(sessionId: string): string | null {
  return sessionId.startsWith('t.') ? unescapeIdPart(sessionId.slice(2)) : null;
}

/** A thread id from a config: strings as they are, numbers as their decimal text. */
export function checkThreadId(v: unknown, what = 'thread_id'): string {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string' || !v.isWellFormed()) throw invalidArgument(`${what} must be a string`);
  return v;
}

export function checkCheckpointId(v: unknown, what = 'checkpoint id'): string {
  if (typeof v !== 'string' || v === '' || !v.isWellFormed() || Buffer.byteLength(v, 'utf8') > MAX_CHECKPOINT_ID_BYTES) {
    throw invalidArgument(`${what} must be a non-empty string of at most ${MAX_CHECKPOINT_ID_BYTES} bytes`);
  }
  return v;
}

export function checkNs(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string' || !v.isWellFormed()) throw invalidArgument('checkpoint_ns must be a string');
  return v;
}

export interface Section {
  readonly type: string;
  readonly bytes: Uint8Array;
}

export function encodeContainer(meta: unknown, sections: readonly Section[]): Uint8Array {
  const header = Buffer.from(JSON.stringify({ meta, sections: sections.map((s) => [s.type, s.bytes.length]) }), 'utf8');
  const out = Buffer.alloc(5 + header.length + sections.reduce((n, s) => n + s.bytes.length, 0));
  out.writeUInt8(CONTAINER_FORMAT, 0);
  out.writeUInt32LE(header.length, 1);
  header.copy(out, 5);
  let off = 5 + header.length;
  for (const s of sections) {
    out.set(s.bytes, off);
    off += s.bytes.length;
  }
  return out;
}

export function decodeContainer(payload: Uint8Array | null, what: string): { meta: unknown; sections: Section[] } {
  if (payload === null || payload.length < 5) throw corruption(`${what}: missing payload`);
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (buf.readUInt8(0) !== CONTAINER_FORMAT) throw corruption(`${what}: unknown payload format ${buf.readUInt8(0)}`);
  const headerLength = buf.readUInt32LE(1);
  let header: { meta: unknown; sections: [string, number][] };
  try {
    header = JSON.parse(buf.subarray(5, 5 + headerLength).toString('utf8')) as typeof header;
  } catch (err) {
    throw corruption(`${what}: unreadable payload header`, err);
  }
  const sections: Section[] = [];
  let off = 5 + headerLength;
  for (const [type, length] of header.sections) {
    if (off + length > buf.length) throw corruption(`${what}: payload section overruns the payload`);
    sections.push({ type, bytes: new Uint8Array(buf.subarray(off, off + length)) });
    off += length;
  }
  return { meta: header.meta, sections };
}

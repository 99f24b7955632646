import { AkashicError, invalidArgument } from '../errors.js';
import { CHUNK_KINDS, type ChunkKind, type ChunkRecord } from '../record/chunk-record.js';
import { checkContent } from '../store/chunk-input.js';
import { checkChunkId, checkId } from '../store/ids.js';
import { dirKey } from '../store/keys.js';

/**
 * The logical dump format (JSON Lines), version DUMP_FORMAT. Frozen: a change of any line's shape needs a new
 * version number.
 *
 *   line 1   {"type":"header","format":1,"engineVersion":"0.1.0","user":null,"session":null,"chunks":N}
 *   line 2…  {"type":"chunk","userId":…,"sessionId":…,"chunkId":…,"version":…,"createdAt":…,"updatedAt":…,
 *             "tokenCount":…,"kind":…,"text":…,"keywords":[…],"attributes":{…},"payload":"<base64>"|null,
 *             "supersedes":[…],"provenance":[…]}   then, only when present and in this order, before the `}`:
 *             ,"expiresAt":<ms>  ,"agentId":"…"  ,"runId":"…"  ,"embedding":{"model":…,"vector":[…]} (the embedding is
 *             last; added in 0.1: a reader that predates it rejects such a line as an unknown field rather than
 *             losing the vector)
 *
 * `supersedes` items are a bare chunk id for a chunk of the same session (so dumps of older databases and of
 * ordinary reconciliation keep their bytes) and `{"sessionId":…,"chunkId":…}` for one of another session of the
 * same user.
 *
 * Chunk lines hold the live version of every chunk in scope, in key order (user, session, chunkId, compared as
 * UTF-8 bytes, as the engine's directory sorts them). Every object's keys appear in the order above and
 * attribute keys are sorted, so the same logical content always dumps to the same bytes: a dump loaded into
 * a new database dumps again byte for byte. The header therefore holds no timestamp and no path.
 * `user`/`session` record the dump's filter (null when absent); `chunks` counts the chunk lines, so a
 * truncated file is detected before anything is loaded.
 */
export const DUMP_FORMAT = 1;

export interface DumpHeader {
  readonly type: 'header';
  readonly format: number;
  readonly engineVersion: string;
  readonly user: string | null;
  readonly session: string | null;
  readonly chunks: number;
}

const HEADER_FIELDS = ['type', 'format', 'engineVersion', 'user', 'session', 'chunks'] as const;
const CHUNK_FIELDS = [
  'type',
  'userId',
  'sessionId',
  'chunkId',
  'version',
  'createdAt',
  'updatedAt',
  'tokenCount',
  'kind',
  'text',
  'keywords',
  'attributes',
  'payload',
  'supersedes',
  'provenance',
] as const;

/** Serializes a header in the frozen key order. */
export function headerLine(h: Omit<DumpHeader, 'type' | 'format'>): string {
  return `{"type":"header","format":${DUMP_FORMAT},"engineVersion":${JSON.stringify(h.engineVersion)},"user":${JSON.stringify(h.user)},"session":${JSON.stringify(h.session)},"chunks":${h.chunks}}`;
}

/** Sorted-key JSON object of string values (JSON.stringify would put integer-like keys first). */
function attributesJson(a: Readonly<Record<string, string>>): string {
  const keys = Object.keys(a).sort();
  return '{' + keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(a[k])}`).join(',') + '}';
}

/** Serializes one chunk record in the frozen key order. */
export function chunkLine(r: ChunkRecord): string {
  const j = JSON.stringify;
  const payload = r.payload === null ? 'null' : j(Buffer.from(r.payload.buffer, r.payload.byteOffset, r.payload.byteLength).toString('base64'));
  return (
    `{"type":"chunk","userId":${j(r.userId)},"sessionId":${j(r.sessionId)},"chunkId":${j(r.chunkId)},"version":${j(r.version)}` +
    `,"createdAt":${j(r.createdAt)},"updatedAt":${j(r.updatedAt)},"tokenCount":${j(r.tokenCount)},"kind":${j(r.kind)}` +
    `,"text":${j(r.text)},"keywords":${j(r.keywords)},"attributes":${attributesJson(r.attributes)},"payload":${payload}` +
    `,"supersedes":${supersedesJson(r)},"provenance":${j(r.provenance)}` +
    (r.expiresAt === undefined ? '' : `,"expiresAt":${j(r.expiresAt)}`) +
    (r.agentId === undefined ? '' : `,"agentId":${j(r.agentId)}`) +
    (r.runId === undefined ? '' : `,"runId":${j(r.runId)}`) +
    (r.embedding === undefined || r.embedding === null ? '' : `,"embedding":{"model":${j(r.embedding.model)},"vector":${j(Array.from(r.embedding.vector))}}`) +
    '}'
  );
}

/** Same-session refs as bare ids, others as `{"sessionId","chunkId"}` (the user is always the record's own). */
function supersedesJson(r: Pick<ChunkRecord, 'sessionId' | 'supersedes'>): string {
  const j = JSON.stringify;
  return '[' + r.supersedes.map((x) => (x.sessionId === r.sessionId ? j(x.chunkId) : `{"sessionId":${j(x.sessionId)},"chunkId":${j(x.chunkId)}}`)).join(',') + ']';
}

/** The sort key of a chunk line, as the directory orders it (UTF-8 bytes of user\0session\0chunkId). */
export function chunkOrderKey(r: Pick<ChunkRecord, 'userId' | 'sessionId' | 'chunkId'>): Buffer {
  return Buffer.from(dirKey(r.userId, r.sessionId, r.chunkId), 'utf8');
}

function parseObject(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw invalidArgument(`not valid JSON (${(err as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw invalidArgument('not a JSON object');
  return v as Record<string, unknown>;
}

function checkFields(o: Record<string, unknown>, fields: readonly string[], optional: readonly string[] = []): void {
  for (const f of fields) if (!Object.hasOwn(o, f)) throw invalidArgument(`missing field "${f}"`);
  for (const k of Object.keys(o)) if (!fields.includes(k) && !optional.includes(k)) throw invalidArgument(`unknown field ${JSON.stringify(k)}`);
}

function nullableId(v: unknown, what: string): string | null {
  return v === null ? null : checkId(v, what);
}

/** Parses and validates a header line; throws AKASHIC_INVALID_ARGUMENT whose message is the reason. */
export function parseHeaderLine(text: string): DumpHeader {
  const o = parseObject(text);
  if (o['type'] !== 'header') throw invalidArgument('expected the header line ({"type":"header",...}) first');
  checkFields(o, HEADER_FIELDS);
  if (o['format'] !== DUMP_FORMAT) throw invalidArgument(`unsupported dump format ${JSON.stringify(o['format'])}; this tool reads format ${DUMP_FORMAT}`);
  if (typeof o['engineVersion'] !== 'string') throw invalidArgument('"engineVersion" must be a string');
  const chunks = o['chunks'];
  if (typeof chunks !== 'number' || !Number.isSafeInteger(chunks) || chunks < 0) throw invalidArgument('"chunks" must be a non-negative integer');
  return {
    type: 'header',
    format: DUMP_FORMAT,
    engineVersion: o['engineVersion'],
    user: nullableId(o['user'], '"user"'),
    session: nullableId(o['session'], '"session"'),
    chunks,
  };
}

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict, canonical base64 (what Buffer#toString('base64') writes); anything else is rejected, not guessed at. */
export function decodeBase64(s: string, what: string): Buffer {
  if (!BASE64_RE.test(s)) throw invalidArgument(`${what} is not valid base64`);
  const b = Buffer.from(s, 'base64');
  if (b.toString('base64') !== s) throw invalidArgument(`${what} is not canonical base64`);
  return b;
}

function finiteNumber(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidArgument(`"${what}" must be a finite number`);
  return v;
}

function stringArray(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw invalidArgument(`"${what}" must be an array of strings`);
  return v as string[];
}

/**
 * Parses and validates one chunk line into the exact record `AkashicStore.restore` takes. Checks JSON, required
 * and unknown fields, types, ids (user/session ids as the engine accepts them, ULID chunk ids), base64 payload,
 * and the engine's content limits, so that a line that passes cannot be rejected by restore.
 * Throws AKASHIC_INVALID_ARGUMENT whose message is the reason.
 */
export function parseChunkLine(text: string): ChunkRecord {
  const o = parseObject(text);
  if (o['type'] !== 'chunk') throw invalidArgument(o['type'] === 'header' ? 'a second header line' : `"type" must be "chunk", got ${JSON.stringify(o['type'])}`);
  checkFields(o, CHUNK_FIELDS, ['expiresAt', 'agentId', 'runId', 'embedding']);
  const exp = o['expiresAt'];
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < 1)) throw invalidArgument('"expiresAt" must be a positive integer of ms');
  const userId = checkId(o['userId'], '"userId"');
  const sessionId = checkId(o['sessionId'], '"sessionId"');
  const chunkId = checkChunkId(o['chunkId'], '"chunkId"');
  const version = o['version'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > 0xffffffff) {
    throw invalidArgument('"version" must be a positive 32-bit integer');
  }
  const createdAt = finiteNumber(o['createdAt'], 'createdAt');
  const updatedAt = finiteNumber(o['updatedAt'], 'updatedAt');
  if (typeof o['tokenCount'] !== 'number') throw invalidArgument('"tokenCount" must be a number');
  if (typeof o['kind'] !== 'string' || !CHUNK_KINDS.includes(o['kind'] as ChunkKind)) {
    throw invalidArgument(`"kind" must be one of ${CHUNK_KINDS.join(', ')}`);
  }
  if (typeof o['text'] !== 'string') throw invalidArgument('"text" must be a string');
  stringArray(o['keywords'], 'keywords');
  if (!Array.isArray(o['supersedes'])) throw invalidArgument('"supersedes" must be an array of chunk ids or {"sessionId","chunkId"} refs');
  for (const x of o['supersedes'] as unknown[]) {
    if (typeof x === 'object' && x !== null && !Array.isArray(x)) checkFields(x as Record<string, unknown>, ['sessionId', 'chunkId']);
  }
  stringArray(o['provenance'], 'provenance');
  const attrs = o['attributes'];
  if (attrs === null || typeof attrs !== 'object' || Array.isArray(attrs) || !Object.values(attrs).every((v) => typeof v === 'string')) {
    throw invalidArgument('"attributes" must be an object of string values');
  }
  // The engine stores attributes in a plain object, where this key would set the prototype instead.
  if (Object.hasOwn(attrs, '__proto__')) throw invalidArgument('attribute key "__proto__" is not supported');
  const p = o['payload'];
  if (p !== null && typeof p !== 'string') throw invalidArgument('"payload" must be a base64 string or null');
  const payload = p === null ? null : decodeBase64(p, '"payload"');
  let content;
  try {
    content = checkContent({ ...o, payload }, 'chunk');
  } catch (err) {
    // checkContent names fields as `chunk.field`; quote the field like the other reasons do.
    if (err instanceof AkashicError) throw invalidArgument(err.message.replace(/^chunk\.(\w+)/, '"$1"'));
    throw err;
  }
  const supersedes = content.supersedes.map((x) => ({ userId, sessionId: x.sessionId, chunkId: x.chunkId }));
  return { userId, sessionId, chunkId, version, createdAt, updatedAt, ...content, supersedes, ...(exp === undefined ? {} : { expiresAt: exp as number }) };
}

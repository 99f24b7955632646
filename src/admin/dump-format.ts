import { AkashicError, invalidArgument } from '../errors.js';
import { CHUNK_KINDS, type ChunkKind, type ChunkRecord } from '../record/chunk-record.js';
import { checkContent } from '../api/chunk-input.js';
import { checkChunkId, checkId } from '../api/ids.js';
import { checkTurn } from '../memattention/turn-input.js';
import type { ActiveTurnValue } from '../record/engine-records.js';
import type { RestoredVersion } from '../api/results.js';
import { dirKey } from '../api/key-strings.js';

/**
 * The logical dump format (JSON Lines), version DUMP_FORMAT. Frozen: a change of any line's shape needs a new
 * version number. Format 2 added active turns (the header's "turns" and the turn lines); format 3 added history
 * (version lines, the header's "versions"), the agent/run filter of the header and the scope of turn lines.
 * Formats 1 and 2 are still read.
 *
 *   line 1   {"type":"header","format":3,"engineVersion":"0.1.0","user":null,"session":null,"agent":null,"run":null,
 *             "chunks":N,"versions":V,"turns":M}
 *   chunk    {"type":"chunk","userId":…,"sessionId":…,"chunkId":…,"version":…,"createdAt":…,"updatedAt":…,
 *             "tokenCount":…,"kind":…,"text":…,"keywords":[…],"attributes":{…},"payload":"<base64>"|null,
 *             "supersedes":[…],"provenance":[…]}   then, only when present and in this order, before the `}`:
 *             ,"expiresAt":<ms>  ,"agentId":"…"  ,"runId":"…"  ,"embedding":{"model":…,"vector":[…]} (the embedding is
 *             last; added in 0.1: a reader that predates it rejects such a line as an unknown field rather than
 *             losing the vector)
 *   version  {"type":"version","validFrom":<ms>,"validUntil":<ms>,"cause":"update"|"delete",
 *             "supersededBy":null|{"sessionId":…,"chunkId":…},"userId":…,…}   a superseded version kept by history:
 *             when it was current, what ended it and the chunk that replaced it, then its record exactly as a chunk
 *             line writes one (same fields, same order).
 *   turn     {"type":"turn","userId":…,"sessionId":…,"turnId":…,"role":…,"text":…,"at":…,"tokenCount":…}
 *             then ,"agentId":"…" ,"runId":"…" when the turn has them (format 3).
 *
 * `supersedes` items are a bare chunk id for a chunk of the same session (so dumps of older databases and of
 * ordinary reconciliation keep their bytes) and `{"sessionId":…,"chunkId":…}` for one of another session of the
 * same user.
 *
 * After the header come the chunks in scope in directory key order (user, session, chunkId, compared as UTF-8
 * bytes, as the engine's directory sorts them); for each, its chunk line when it is live, then the version lines of
 * its kept versions, oldest first. A deleted chunk has no chunk line, only its version lines (when history kept
 * any), and the newest of them ended with cause "delete": loading them brings its tombstone back. Then one turn
 * line per active turn (MemAttention's turns not compacted yet), in namespace order (user, session) and, within a
 * namespace, in arrival order. The agent/run filter selects chunks by their directory entry's scope (a deleted
 * chunk's by its tombstone's), their versions go with them, and turns by their own scope.
 *
 * Every object's keys appear in the order above and attribute keys are sorted, so the same logical content always
 * dumps to the same bytes: a dump loaded into a new database dumps again byte for byte. The header therefore
 * holds no timestamp and no path. `user`/`session`/`agent`/`run` record the dump's filter (null when absent);
 * `chunks`, `versions` and `turns` count the lines of each kind, so a truncated file is detected before anything
 * is loaded.
 */
export const DUMP_FORMAT = 3;
const READABLE_FORMATS = [1, 2, 3];

export interface DumpHeader {
  readonly type: 'header';
  readonly format: number;
  readonly engineVersion: string;
  readonly user: string | null;
  readonly session: string | null;
  /** The agent filter (null when absent, and in formats 1 and 2). */
  readonly agent: string | null;
  /** The run filter (null when absent, and in formats 1 and 2). */
  readonly run: string | null;
  readonly chunks: number;
  /** Version lines (0 before format 3). */
  readonly versions: number;
  /** Turn lines that follow the chunk lines (0 in format 1). */
  readonly turns: number;
}

/** One active turn of a namespace, as a turn line holds it. */
export interface DumpedTurn extends ActiveTurnValue {
  readonly userId: string;
  readonly sessionId: string;
}

const HEADER_FIELDS = ['type', 'format', 'engineVersion', 'user', 'session', 'chunks'] as const;
const TURN_FIELDS = ['type', 'userId', 'sessionId', 'turnId', 'role', 'text', 'at', 'tokenCount'] as const;
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

/** Serializes a header in the frozen key order (absent filters are null, absent counts 0). */
export function headerLine(
  h: Pick<DumpHeader, 'engineVersion' | 'user' | 'session' | 'chunks'> & Partial<Pick<DumpHeader, 'agent' | 'run' | 'versions' | 'turns'>>,
): string {
  const j = JSON.stringify;
  return (
    `{"type":"header","format":${DUMP_FORMAT},"engineVersion":${j(h.engineVersion)},"user":${j(h.user)},"session":${j(h.session)}` +
    `,"agent":${j(h.agent ?? null)},"run":${j(h.run ?? null)},"chunks":${h.chunks},"versions":${h.versions ?? 0},"turns":${h.turns ?? 0}}`
  );
}

/** Serializes one active turn in the frozen key order. */
export function turnLine(t: DumpedTurn): string {
  const j = JSON.stringify;
  return (
    `{"type":"turn","userId":${j(t.userId)},"sessionId":${j(t.sessionId)},"turnId":${j(t.turnId)},"role":${j(t.role)},"text":${j(t.text)},"at":${j(t.at)},"tokenCount":${j(t.tokenCount)}` +
    (t.agentId === undefined ? '' : `,"agentId":${j(t.agentId)}`) +
    (t.runId === undefined ? '' : `,"runId":${j(t.runId)}`) +
    '}'
  );
}

const CHUNK_PREFIX = '{"type":"chunk",';

/** Serializes one kept version: its history fields, then its record as a chunk line writes it. */
export function versionLine(v: RestoredVersion): string {
  const j = JSON.stringify;
  const by = v.supersededBy === null ? 'null' : `{"sessionId":${j(v.supersededBy.sessionId)},"chunkId":${j(v.supersededBy.chunkId)}}`;
  return `{"type":"version","validFrom":${j(v.validFrom)},"validUntil":${j(v.validUntil)},"cause":${j(v.cause)},"supersededBy":${by},` + chunkLine(v.record).slice(CHUNK_PREFIX.length);
}

const VERSION_FIELDS = ['validFrom', 'validUntil', 'cause', 'supersededBy'] as const;

/**
 * Parses and validates one version line into what `AkashicStore.restoreHistory` takes: the history fields, then
 * the record exactly as `parseChunkLine` checks it. Throws AKASHIC_INVALID_ARGUMENT whose message is the reason.
 */
export function parseVersionLine(text: string): RestoredVersion {
  const o = parseObject(text);
  if (o['type'] !== 'version') throw invalidArgument(`"type" must be "version", got ${JSON.stringify(o['type'])}`);
  for (const f of VERSION_FIELDS) if (!Object.hasOwn(o, f)) throw invalidArgument(`missing field "${f}"`);
  const validFrom = finiteNumber(o['validFrom'], 'validFrom');
  const validUntil = finiteNumber(o['validUntil'], 'validUntil');
  const cause = o['cause'];
  if (cause !== 'update' && cause !== 'delete') throw invalidArgument('"cause" must be "update" or "delete"');
  const by = o['supersededBy'];
  let supersededBy: RestoredVersion['supersededBy'] = null;
  if (by !== null) {
    if (typeof by !== 'object' || Array.isArray(by)) throw invalidArgument('"supersededBy" must be null or {"sessionId","chunkId"}');
    checkFields(by as Record<string, unknown>, ['sessionId', 'chunkId']);
    const b = by as Record<string, unknown>;
    supersededBy = { sessionId: checkId(b['sessionId'], '"supersededBy.sessionId"'), chunkId: checkChunkId(b['chunkId'], '"supersededBy.chunkId"') };
  }
  const rest: Record<string, unknown> = { type: 'chunk' };
  for (const [k, v] of Object.entries(o)) if (k !== 'type' && !(VERSION_FIELDS as readonly string[]).includes(k)) Object.defineProperty(rest, k, { value: v, enumerable: true, writable: true, configurable: true });
  return { record: parseChunkObject(rest), validFrom, validUntil, cause, supersededBy };
}

/** The namespace order of turn lines (UTF-8 bytes of user\0session), as chunk lines order their namespaces. */
export function namespaceOrderKey(t: Pick<DumpedTurn, 'userId' | 'sessionId'>): Buffer {
  return Buffer.from(`${t.userId}\u0000${t.sessionId}`, 'utf8');
}

/**
 * Parses and validates one turn line: fields, ids, and the turn as appendTurn would accept it (so the target's
 * active chunk can always be compacted). Throws AKASHIC_INVALID_ARGUMENT whose message is the reason.
 */
export function parseTurnLine(text: string): DumpedTurn {
  const o = parseObject(text);
  if (o['type'] !== 'turn') throw invalidArgument(o['type'] === 'chunk' ? 'a chunk line after the turn lines' : `"type" must be "turn", got ${JSON.stringify(o['type'])}`);
  checkFields(o, TURN_FIELDS, ['agentId', 'runId']);
  const userId = checkId(o['userId'], '"userId"');
  const sessionId = checkId(o['sessionId'], '"sessionId"');
  if (typeof o['at'] !== 'number' || !Number.isFinite(o['at']) || o['at'] < 0) throw invalidArgument('"at" must be a non-negative number of ms');
  const tokenCount = o['tokenCount'];
  if (typeof tokenCount !== 'number' || !Number.isSafeInteger(tokenCount) || tokenCount < 0) throw invalidArgument('"tokenCount" must be a non-negative integer');
  let turn;
  try {
    turn = checkTurn(
      {
        role: o['role'] as string,
        text: o['text'] as string,
        at: o['at'],
        turnId: o['turnId'] as string,
        ...(o['agentId'] === undefined ? {} : { agentId: o['agentId'] as string }),
        ...(o['runId'] === undefined ? {} : { runId: o['runId'] as string }),
      },
      'turn',
    );
  } catch (err) {
    if (err instanceof AkashicError) throw invalidArgument(err.message.replace(/^turn\.(\w+)/, '"$1"'));
    throw err;
  }
  return {
    userId,
    sessionId,
    turnId: turn.turnId!,
    role: turn.role,
    text: turn.text,
    at: o['at'],
    tokenCount,
    ...(turn.agentId === undefined ? {} : { agentId: turn.agentId }),
    ...(turn.runId === undefined ? {} : { runId: turn.runId }),
  };
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

/** The "type" of a line ("header", "chunk", "version", "turn"), or null when it is not a JSON object with a string type. */
export function lineType(text: string): string | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string' ? (v as { type: string }).type : null;
  } catch {
    return null;
  }
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
  if (!READABLE_FORMATS.includes(o['format'] as number)) throw invalidArgument(`unsupported dump format ${JSON.stringify(o['format'])}; this tool reads formats ${READABLE_FORMATS.join(' and ')}`);
  const format = o['format'] as number;
  checkFields(o, format === 1 ? HEADER_FIELDS : format === 2 ? [...HEADER_FIELDS, 'turns'] : [...HEADER_FIELDS, 'turns', 'agent', 'run', 'versions']);
  if (typeof o['engineVersion'] !== 'string') throw invalidArgument('"engineVersion" must be a string');
  const chunks = o['chunks'];
  if (typeof chunks !== 'number' || !Number.isSafeInteger(chunks) || chunks < 0) throw invalidArgument('"chunks" must be a non-negative integer');
  const turns = format === 1 ? 0 : o['turns'];
  if (typeof turns !== 'number' || !Number.isSafeInteger(turns) || turns < 0) throw invalidArgument('"turns" must be a non-negative integer');
  const versions = format < 3 ? 0 : o['versions'];
  if (typeof versions !== 'number' || !Number.isSafeInteger(versions) || versions < 0) throw invalidArgument('"versions" must be a non-negative integer');
  return {
    type: 'header',
    format,
    engineVersion: o['engineVersion'],
    user: nullableId(o['user'], '"user"'),
    session: nullableId(o['session'], '"session"'),
    agent: format < 3 ? null : nullableId(o['agent'], '"agent"'),
    run: format < 3 ? null : nullableId(o['run'], '"run"'),
    chunks,
    versions,
    turns,
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
  return parseChunkObject(parseObject(text));
}

function parseChunkObject(o: Record<string, unknown>): ChunkRecord {
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
  // JSON.parse defines every key as an own property (`__proto__` included), and checkContent copies them with
  // Object.fromEntries, which does the same: prototype-like attribute keys stay data, as the engine stores them.
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

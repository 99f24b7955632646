import { invalidArgument } from '../errors.js';
import { CHUNK_KINDS, type ChunkKind, type FullChunkRef } from '../record/chunk-record.js';
import type { ChunkEmbedding } from '../record/chunk-embedding.js';
import type { SlotRef } from '../record/dir-entry.js';
import { checkChunkId, checkId } from './ids.js';

/** Limits on one chunk record (docs/format.md, "ChunkRecord (inside frames)"). */
export const LIMITS = {
  textBytes: 1024 * 1024,
  payloadBytes: 4 * 1024 * 1024,
  keywords: 256,
  keywordBytes: 256,
  attributes: 64,
  attributeKeyBytes: 256,
  attributeValueBytes: 16 * 1024,
  provenance: 4096,
  /** Highest chunk version: versions are u32 on disk. An update past it is refused, never wrapped. */
  version: 0xffffffff,
  /** Refs per coAccess() call: the pairs it reads grow with the square (at most 64·63/2 = 2,016 pairs). */
  coAccessRefs: 64,
  /** Dimensions of a chunk's embedding vector. */
  embeddingDimensions: 8192,
  /** UTF-8 bytes of an embedding's model id. */
  embeddingModelBytes: 256,
} as const;

/** The content fields of a chunk a caller supplies. */
export interface ChunkContent {
  readonly kind?: ChunkKind;
  readonly text: string;
  readonly tokenCount?: number;
  readonly keywords?: readonly string[];
  readonly attributes?: Readonly<Record<string, string>>;
  readonly payload?: Uint8Array | null;
  /**
   * The chunks this one replaces: `{ sessionId, chunkId }` refs of the same user (a `userId`, when given, must be
   * the writer's), or bare chunk ids, which name chunks of this chunk's own session.
   */
  readonly supersedes?: readonly (string | SupersedesRef)[];
  readonly provenance?: readonly string[];
  /**
   * The chunk's vector from an embedder and that embedder's model id (1–8192 finite numbers). Stored with the
   * record and its directory entry. `null` in an update removes it; an update that changes `text` without giving
   * an embedding removes it too (it described the old text).
   */
  readonly embedding?: { readonly model: string; readonly vector: Float32Array | readonly number[] } | null;
  /** The agent writing the chunk (an id like a session id); scoped reads filter on it. Absent: none. */
  readonly agentId?: string;
  /** The run (one task or episode) the chunk belongs to (an id like a session id). Absent: none. */
  readonly runId?: string;
}

/**
 * The content fields of a chunk, as `ChunkContent` declares them: what a put gives and what an update may change
 * (an update changes only those it gives). A field added to `ChunkContent` must be listed here, or this file does
 * not compile; then the record codec (`ChunkRecord`) and the dump format carry it, and `checkContent` checks it.
 */
export const CONTENT_FIELDS = ['kind', 'text', 'tokenCount', 'keywords', 'attributes', 'payload', 'supersedes', 'provenance', 'embedding', 'agentId', 'runId'] as const satisfies readonly (keyof ChunkContent)[];

/** A field of `ChunkContent` that `CONTENT_FIELDS` does not list (must be none). */
type UnlistedContentField = Exclude<keyof ChunkContent, (typeof CONTENT_FIELDS)[number]>;
const everyContentFieldListed: [UnlistedContentField] extends [never] ? true : false = true;
void everyContentFieldListed;

/** A reference to another chunk of the writing user. */
export interface SupersedesRef {
  readonly userId?: string;
  readonly sessionId: string;
  readonly chunkId: string;
}

/** `index`, when given, names an item of the array `what` (the name is only built for an error message). */
function checkText(v: unknown, what: string, maxBytes: number, index?: number): string {
  const name = (): string => (index === undefined ? what : `${what}[${index}]`);
  if (typeof v !== 'string') throw invalidArgument(`${name()} must be a string, got ${typeof v}`);
  if (!v.isWellFormed()) throw invalidArgument(`${name()} contains a lone UTF-16 surrogate`);
  const n = Buffer.byteLength(v, 'utf8');
  if (n > maxBytes) throw invalidArgument(`${name()} is ${n} bytes; the limit is ${maxBytes}`);
  return v;
}

function checkStrings(v: unknown, what: string, max: number, maxBytes: number): string[] {
  if (!Array.isArray(v)) throw invalidArgument(`${what} must be an array of strings`);
  if (v.length > max) throw invalidArgument(`${what} has ${v.length} items; the limit is ${max}`);
  // Every index, holes of a sparse array included (as undefined), which map() would skip and keep as holes.
  const items = v as unknown[];
  const out = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = checkText(items[i], what, maxBytes, i);
  return out;
}

/** Validated, defaulted content. @internal */
export interface CheckedContent {
  readonly kind: ChunkKind;
  readonly text: string;
  readonly tokenCount: number;
  readonly keywords: readonly string[];
  readonly attributes: Readonly<Record<string, string>>;
  readonly payload: Uint8Array | null;
  readonly supersedes: readonly SupersedesRef[];
  readonly provenance: readonly string[];
  readonly agentId?: string;
  readonly runId?: string;
  /** Present only when given (or kept from `base`); null: remove it. */
  readonly embedding?: ChunkEmbedding | null;
}

/** Validates an embedding from an untrusted caller (a copy as Float32Array is returned). */
export function checkEmbedding(v: unknown, what: string): ChunkEmbedding | null {
  if (v === null) return null;
  if (typeof v !== 'object') throw invalidArgument(`${what} must be { model, vector } or null`);
  const o = v as Record<string, unknown>;
  const model = checkText(o['model'], `${what}.model`, LIMITS.embeddingModelBytes);
  if (model === '') throw invalidArgument(`${what}.model must not be empty`);
  const raw = o['vector'];
  if (!(raw instanceof Float32Array) && !Array.isArray(raw)) throw invalidArgument(`${what}.vector must be a Float32Array or an array of numbers`);
  const n = (raw as ArrayLike<unknown>).length;
  if (n < 1 || n > LIMITS.embeddingDimensions) throw invalidArgument(`${what}.vector has ${n} dimensions; it must have 1 to ${LIMITS.embeddingDimensions}`);
  const vector = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const x = (raw as ArrayLike<unknown>)[i];
    if (typeof x !== 'number' || !Number.isFinite(x) || !Number.isFinite(Math.fround(x))) throw invalidArgument(`${what}.vector[${i}] must be a finite 32-bit number`);
    vector[i] = x;
  }
  return { model, vector };
}

/**
 * Validates content from an untrusted (possibly plain-JS) caller; throws AKASHIC_INVALID_ARGUMENT and never
 * partially accepts. `base` supplies fields an update leaves out.
 */
export function checkContent(c: unknown, what: string, base?: CheckedContent): CheckedContent {
  if (c === null || typeof c !== 'object') throw invalidArgument(`${what} must be an object`);
  const o = c as Record<string, unknown>;
  // Only an absent field takes the default: a null from a plain-JS caller is a wrong type, not "default" (with
  // `??`, an update given `kind: null` silently reset the chunk's kind to 'memory').
  const kind = o['kind'] === undefined ? (base?.kind ?? 'memory') : o['kind'];
  if (!CHUNK_KINDS.includes(kind as ChunkKind)) throw invalidArgument(`${what}.kind must be one of ${CHUNK_KINDS.join(', ')}`);
  const text = o['text'] === undefined && base ? base.text : checkText(o['text'], `${what}.text`, LIMITS.textBytes);
  const tc = o['tokenCount'] === undefined ? (base?.tokenCount ?? 0) : o['tokenCount'];
  if (typeof tc !== 'number' || !Number.isInteger(tc) || tc < 0 || tc > 0xffffffff) {
    throw invalidArgument(`${what}.tokenCount must be a non-negative integer`);
  }
  const keywords =
    o['keywords'] === undefined ? (base?.keywords ?? []) : checkStrings(o['keywords'], `${what}.keywords`, LIMITS.keywords, LIMITS.keywordBytes);
  let attributes: Record<string, string> = Object.fromEntries(Object.entries(base?.attributes ?? {}));
  if (o['attributes'] !== undefined) {
    const a = o['attributes'];
    if (a === null || typeof a !== 'object' || Array.isArray(a)) throw invalidArgument(`${what}.attributes must be a string→string object`);
    const entries = Object.entries(a as Record<string, unknown>);
    if (entries.length > LIMITS.attributes) throw invalidArgument(`${what}.attributes has ${entries.length} keys; the limit is ${LIMITS.attributes}`);
    // fromEntries defines own properties, so a key such as `__proto__` is kept as data, not swallowed.
    attributes = Object.fromEntries(
      entries.map(([k, v]) => [
        checkText(k, `${what}.attributes key`, LIMITS.attributeKeyBytes),
        checkText(v, `${what}.attributes[${JSON.stringify(k)}]`, LIMITS.attributeValueBytes),
      ]),
    );
  }
  let payload: Uint8Array | null = base?.payload ?? null;
  if (o['payload'] !== undefined) {
    const p = o['payload'];
    if (p !== null && !(p instanceof Uint8Array)) throw invalidArgument(`${what}.payload must be a Uint8Array or null`);
    if (p !== null && p.length > LIMITS.payloadBytes) throw invalidArgument(`${what}.payload is ${p.length} bytes; the limit is ${LIMITS.payloadBytes}`);
    payload = p;
  }
  const supersedes = o['supersedes'] === undefined ? (base?.supersedes ?? []) : checkSupersedes(o['supersedes'], o['sessionId'], `${what}.supersedes`);
  const provenance =
    o['provenance'] === undefined ? (base?.provenance ?? []) : checkStrings(o['provenance'], `${what}.provenance`, LIMITS.provenance, LIMITS.keywordBytes);
  const embedding = o['embedding'] === undefined ? base?.embedding : checkEmbedding(o['embedding'], `${what}.embedding`);
  const agentId = o['agentId'] === undefined ? base?.agentId : checkId(o['agentId'], `${what}.agentId`);
  const runId = o['runId'] === undefined ? base?.runId : checkId(o['runId'], `${what}.runId`);
  return {
    kind: kind as ChunkKind,
    text,
    tokenCount: tc,
    keywords,
    attributes,
    payload,
    supersedes,
    provenance,
    ...(embedding === undefined ? {} : { embedding }),
    ...(agentId === undefined ? {} : { agentId }),
    ...(runId === undefined ? {} : { runId }),
  };
}

/** Refs or bare ids (of `ownSession`) of replaced chunks, as full session refs. */
function checkSupersedes(v: unknown, ownSession: unknown, what: string): SupersedesRef[] {
  if (!Array.isArray(v)) throw invalidArgument(`${what} must be an array of chunk ids or { sessionId, chunkId } refs`);
  if (v.length > LIMITS.provenance) throw invalidArgument(`${what} has ${v.length} items; the limit is ${LIMITS.provenance}`);
  return Array.from(v as unknown[], (x, i) => {
    const w = `${what}[${i}]`;
    if (typeof x === 'string') {
      if (typeof ownSession !== 'string') throw invalidArgument(`${w}: a bare chunk id needs the chunk's sessionId; give { sessionId, chunkId }`);
      return { sessionId: ownSession, chunkId: checkChunkId(x, w) };
    }
    const r = checkRef(x, w);
    const u = (x as { userId?: unknown }).userId;
    return u === undefined ? r : { userId: checkId(u, `${w}.userId`), ...r };
  });
}

/**
 * Full refs of replaced chunks for a record of `userId`; throws AKASHIC_INVALID_ARGUMENT when a ref names another
 * user (references never cross users).
 */
export function fullRefs(userId: string, refs: readonly SupersedesRef[]): FullChunkRef[] {
  return refs.map((r) => {
    if (r.userId !== undefined && r.userId !== userId) {
      throw invalidArgument(`supersedes names chunk ${r.sessionId}/${r.chunkId} of user ${JSON.stringify(r.userId)}: references never cross users`);
    }
    return { userId, sessionId: r.sessionId, chunkId: r.chunkId };
  });
}

/** A caller's reference to one chunk. */
export interface ChunkRef {
  readonly sessionId: string;
  readonly chunkId: string;
}

export function checkRef(r: unknown, what: string): ChunkRef {
  if (r === null || typeof r !== 'object') throw invalidArgument(`${what} must be { sessionId, chunkId }`);
  const o = r as Record<string, unknown>;
  return { sessionId: checkId(o['sessionId'], `${what}.sessionId`), chunkId: checkChunkId(o['chunkId'], `${what}.chunkId`) };
}

export function checkRefs(refs: unknown, what: string, max = 10_000): ChunkRef[] {
  if (!Array.isArray(refs)) throw invalidArgument(`${what} must be an array`);
  if (refs.length > max) throw invalidArgument(`${what} has ${refs.length} items; the limit is ${max}`);
  return Array.from(refs as unknown[], (r, i) => checkRef(r, `${what}[${i}]`)); // holes of a sparse array included
}

/**
 * Where a chunk's version was, as a directory entry said when the caller read it (candidate gathering, `locate`):
 * a hint that lets a read skip the directory. Never trusted: the record found there must be this chunk at this
 * version, or the read goes through the directory.
 */
export interface LocatedRef extends ChunkRef {
  readonly version: number;
  readonly location: SlotRef;
  /** The entry's expiry (ms since the epoch), if any. */
  readonly expiresAt?: number;
}

/** Block ids are 12 hex digits; frame and slot numbers are u16 (docs/format.md). */
const MAX_BLOCK_ID = 2 ** 48 - 1;
const MAX_FRAME_OR_SLOT = 0xffff;

function checkIndex(v: unknown, max: number, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw invalidArgument(`${what} must be an integer in [0, ${max}]`);
  return v;
}

export function checkLocatedRefs(located: unknown, what: string, max = 10_000): LocatedRef[] {
  if (!Array.isArray(located)) throw invalidArgument(`${what} must be an array`);
  if (located.length > max) throw invalidArgument(`${what} has ${located.length} items; the limit is ${max}`);
  return Array.from(located as unknown[], (r, i) => {
    const w = `${what}[${i}]`;
    const ref = checkRef(r, w);
    const o = r as Record<string, unknown>;
    const version = o['version'];
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > LIMITS.version) throw invalidArgument(`${w}.version must be an integer in [1, ${LIMITS.version}]`);
    const loc = o['location'];
    if (loc === null || typeof loc !== 'object') throw invalidArgument(`${w}.location must be { blockId, frame, slot }`);
    const l = loc as Record<string, unknown>;
    const location = {
      blockId: checkIndex(l['blockId'], MAX_BLOCK_ID, `${w}.location.blockId`),
      frame: checkIndex(l['frame'], MAX_FRAME_OR_SLOT, `${w}.location.frame`),
      slot: checkIndex(l['slot'], MAX_FRAME_OR_SLOT, `${w}.location.slot`),
    };
    const exp = o['expiresAt'];
    if (exp !== undefined && (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < 1)) throw invalidArgument(`${w}.expiresAt must be a positive integer of ms`);
    return { ...ref, version, location, ...(exp === undefined ? {} : { expiresAt: exp }) };
  });
}

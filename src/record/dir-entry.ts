import * as flatbuffers from 'flatbuffers';
import { scratchBuilder } from './scratch-builder.js';
import { createUtf8String } from './short-utf8.js';
import { corruption } from '../errors.js';
import { undecodable } from './undecodable.js';
import { FORMAT_VERSION, ValueType, unwrapEnvelope, wrapEnvelope } from './envelope.js';
import { kindFromFb, kindToFb, type ChunkKind } from './chunk-record.js';
import { DirEntry as FbDirEntry } from './generated/akashic/fb/dir-entry.js';
import { EntryState } from './generated/akashic/fb/entry-state.js';
import { Attribute } from './generated/akashic/fb/attribute.js';
import { readEmbedding, type ChunkEmbedding } from './chunk-embedding.js';
import { readStringVector } from './string-vector.js';
import { StoredStrings } from './stored-strings.js';

/** Whether the entry was written with the attributes field (vtable slot 34), even an empty one. */
function hasAttributes(d: FbDirEntry): boolean {
  return d.bb!.__offset(d.bb_pos, 34) !== 0;
}

function readAttributes(d: FbDirEntry): Record<string, string> {
  const pairs: [string, string][] = [];
  for (let i = 0; i < d.attributesLength(); i++) {
    const a = d.attributes(i);
    if (a) pairs.push([a.key() ?? '', a.value() ?? '']);
  }
  return Object.fromEntries(pairs); // own properties: `__proto__` stays data
}

/** The keywords field's vtable slot (see the generated `keywords` accessor). */
const KEYWORDS_SLOT = 26;
/** The keyword_terms field's vtable slot (see the generated `keywordTerms` accessor). */
const KEYWORD_TERMS_SLOT = 46;

function supersededRef(d: FbDirEntry, ownSession: string): DirEntry['supersededBy'] {
  const id = d.supersededBy();
  if (id === null) return null;
  return { sessionId: d.supersededBySession() ?? ownSession, chunkId: id };
}

/** Where a chunk version lives: block, frame within the block, record index within the frame. */
export interface SlotRef {
  readonly blockId: number;
  readonly frame: number;
  readonly slot: number;
}

/**
 * The logical directory entry of one chunk, keyed user/session/ulid. Carries the metadata recall needs
 * (keywords, time, tokens) so candidates are gathered without reading chunk bodies.
 * A deleted chunk keeps a tombstone entry (state 'deleted', no slot) for accounting and inspection.
 */
export interface DirEntry {
  readonly state: 'live' | 'deleted';
  readonly version: number;
  /** Null for deleted entries. */
  readonly location: SlotRef | null;
  readonly recordBytes: number;
  readonly tokenCount: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly kind: ChunkKind;
  readonly keywords: readonly string[];
  /** For entries deleted by reconciliation: the chunk (of the same user) that replaced this one. */
  readonly supersededBy: { readonly sessionId: string; readonly chunkId: string } | null;
  readonly deletedAt: number | null;
  /** When the chunk expires (ms since epoch); absent: never. An expired live entry is invisible to reads. */
  readonly expiresAt?: number;
  /**
   * The live version's attributes (filters read them without the body). Absent on tombstones and on entries
   * written before the field existed; a filter on attributes then reads the record.
   */
  readonly attributes?: Readonly<Record<string, string>>;
  /** The live version's vector (a copy of the record's), for SELECT and grouping without the body. */
  readonly embedding?: ChunkEmbedding;
  /** The live version's agent and run scopes (absent: none); tombstones keep them so scoped listings see them. */
  readonly agentId?: string;
  readonly runId?: string;
  /**
   * SELECT's matching terms of `keywords`, derived when the keywords were written, with the version of the
   * derivation. Absent on tombstones, on entries written before the field existed and on entries written without a
   * derivation; a reader whose derivation has another version derives the terms itself.
   */
  readonly keywordTerms?: StoredKeywordTerms;
}

/** Terms derived from an entry's keywords by a versioned, deterministic function of the keywords alone. */
export interface StoredKeywordTerms {
  /** The derivation's version, never 0 (0 is how an entry without terms reads). */
  readonly version: number;
  readonly terms: readonly string[];
}

/**
 * The derivation a store writes with every entry's keywords: a pure function of the keywords, and the version that
 * names it (readers trust stored terms only under their own version).
 */
export interface KeywordTermsDerivation {
  readonly version: number;
  derive(keywords: readonly string[]): readonly string[];
}

/** Whether a live entry has expired at `now` (it is then treated as absent until the sweep deletes it). */
export function isExpired(e: Pick<DirEntry, 'expiresAt'>, now: number): boolean {
  return e.expiresAt !== undefined && e.expiresAt <= now;
}

export function sameLocation(a: SlotRef | null, b: SlotRef | null): boolean {
  if (a === null || b === null) return a === b;
  return a.blockId === b.blockId && a.frame === b.frame && a.slot === b.slot;
}

export function encodeDirEntry(e: DirEntry): Buffer {
  const b = scratchBuilder();
  const keywordStrings = e.keywords.map((k) => createUtf8String(b, k));
  // Most terms are their keyword unchanged (no stem to cut): such a term points at the keyword's string, and only the
  // others are written, next to the keywords (the ASCII fast path of `readStringVector` reads them as one span).
  const termStrings = e.keywordTerms === undefined ? null : sharedStrings(b, e.keywords, keywordStrings, e.keywordTerms.terms);
  const kws = FbDirEntry.createKeywordsVector(b, keywordStrings);
  const sup = e.supersededBy === null ? 0 : createUtf8String(b, e.supersededBy.chunkId);
  const supSession = e.supersededBy === null || e.supersededBy.sessionId === '' ? 0 : createUtf8String(b, e.supersededBy.sessionId);
  const agent = e.agentId === undefined ? 0 : createUtf8String(b, e.agentId);
  const run = e.runId === undefined ? 0 : createUtf8String(b, e.runId);
  const attrKeys = e.attributes === undefined ? null : Object.keys(e.attributes).sort();
  const attrs =
    attrKeys === null ? 0 : FbDirEntry.createAttributesVector(b, attrKeys.map((k) => Attribute.createAttribute(b, createUtf8String(b, k), createUtf8String(b, e.attributes![k]!))));
  const embVector = e.embedding === undefined ? 0 : FbDirEntry.createEmbeddingVector(b, e.embedding.vector);
  const embModel = e.embedding === undefined ? 0 : createUtf8String(b, e.embedding.model);
  const terms = termStrings === null ? 0 : FbDirEntry.createKeywordTermsVector(b, termStrings);
  FbDirEntry.startDirEntry(b);
  FbDirEntry.addFormatVersion(b, FORMAT_VERSION);
  FbDirEntry.addState(b, e.state === 'live' ? EntryState.Live : EntryState.Deleted);
  FbDirEntry.addVersion(b, e.version);
  if (e.location !== null) {
    FbDirEntry.addBlockId(b, BigInt(e.location.blockId));
    FbDirEntry.addFrame(b, e.location.frame);
    FbDirEntry.addSlot(b, e.location.slot);
  }
  FbDirEntry.addRecordBytes(b, e.recordBytes);
  FbDirEntry.addTokenCount(b, e.tokenCount);
  FbDirEntry.addCreatedAtMs(b, e.createdAt);
  FbDirEntry.addUpdatedAtMs(b, e.updatedAt);
  FbDirEntry.addKind(b, kindToFb(e.kind));
  FbDirEntry.addKeywords(b, kws);
  if (sup !== 0) FbDirEntry.addSupersededBy(b, sup);
  if (e.deletedAt !== null) FbDirEntry.addDeletedAtMs(b, e.deletedAt);
  if (e.expiresAt !== undefined) FbDirEntry.addExpiresAtMs(b, e.expiresAt);
  if (attrs !== 0) FbDirEntry.addAttributes(b, attrs);
  if (embVector !== 0) {
    FbDirEntry.addEmbedding(b, embVector);
    FbDirEntry.addEmbeddingModel(b, embModel);
  }
  if (agent !== 0) FbDirEntry.addAgentId(b, agent);
  if (run !== 0) FbDirEntry.addRunId(b, run);
  if (supSession !== 0) FbDirEntry.addSupersededBySession(b, supSession);
  if (e.keywordTerms !== undefined) {
    FbDirEntry.addKeywordTerms(b, terms);
    FbDirEntry.addKeywordTermsVersion(b, e.keywordTerms.version);
  }
  b.finish(FbDirEntry.endDirEntry(b));
  return wrapEnvelope(ValueType.DirEntry, b.asUint8Array());
}

/** The string offsets of `terms`: a keyword's own string where a term equals it, else a new string (one per term). */
function sharedStrings(b: flatbuffers.Builder, keywords: readonly string[], keywordStrings: readonly number[], terms: readonly string[]): number[] {
  const known = new Map<string, number>();
  for (let i = 0; i < keywords.length; i++) known.set(keywords[i]!, keywordStrings[i]!);
  return terms.map((t) => {
    let at = known.get(t);
    if (at === undefined) {
      at = createUtf8String(b, t);
      known.set(t, at);
    }
    return at;
  });
}

/**
 * Decodes a directory entry. `sessionId` is the session of its key: an entry written before superseded-by refs
 * carried their session names a chunk of that same session.
 */
export function decodeDirEntry(value: Uint8Array, what: string, sessionId = ''): DirEntry {
  return decode(value, what, sessionId, false);
}

/**
 * The same entry, its keywords and stored terms decoded only when first read (then kept): `keywords` and
 * `keywordTerms` are enumerable getters, so the entry reads, spreads and serializes as the eager one does, and
 * {@link storedTermsOf} gives the terms still encoded. For entries kept and read in bulk (recall's candidates, most
 * of whose strings are never read). `value` must be bytes of its own (`ownBytes`): the entry keeps it.
 */
export function decodeDirEntryLazily(value: Buffer, what: string, sessionId = ''): DirEntry {
  return decode(value, what, sessionId, true);
}

const STORED_TERMS = Symbol('storedTerms');
const STORED_KEYWORDS = Symbol('storedKeywords');

/** Stored terms still encoded, with the version of their derivation. */
export class EncodedKeywordTerms {
  #decoded: StoredKeywordTerms | undefined;

  constructor(
    readonly version: number,
    readonly terms: StoredStrings,
  ) {}

  /** The entry's `keywordTerms`, decoded on the first call (the same object after). */
  decoded(): StoredKeywordTerms {
    return (this.#decoded ??= { version: this.version, terms: this.terms.strings() });
  }
}

type LazyEntry = DirEntry & { readonly [STORED_KEYWORDS]: StoredStrings; readonly [STORED_TERMS]?: EncodedKeywordTerms };

const KEYWORDS_GETTER: PropertyDescriptor = {
  get(this: LazyEntry) {
    return this[STORED_KEYWORDS].strings();
  },
  enumerable: true,
};

const KEYWORD_TERMS_GETTER: PropertyDescriptor = {
  get(this: LazyEntry) {
    return this[STORED_TERMS]!.decoded();
  },
  enumerable: true,
};

/**
 * The stored terms of an entry from {@link decodeDirEntryLazily}, still encoded (the same strings its `keywordTerms`
 * decodes); undefined for any other entry and for an entry without stored terms.
 */
export function storedTermsOf(e: DirEntry): EncodedKeywordTerms | undefined {
  return (e as { readonly [STORED_TERMS]?: EncodedKeywordTerms })[STORED_TERMS];
}

/** How many keywords an entry has, without decoding them where they are still encoded. */
export function keywordCountOf(e: DirEntry): number {
  const lazy = (e as { readonly [STORED_KEYWORDS]?: StoredStrings })[STORED_KEYWORDS];
  return lazy === undefined ? e.keywords.length : lazy.count;
}

/** The strings of the vector at `slot`, left encoded ([] when the field is absent). */
function storedStrings(d: FbDirEntry, slot: number, bytes: Buffer): StoredStrings {
  const bb = d.bb!;
  const field = bb.__offset(d.bb_pos, slot);
  return field === 0 ? new StoredStrings(bytes, 0, 0) : new StoredStrings(bytes, bb.__vector(d.bb_pos + field), bb.__vector_len(d.bb_pos + field));
}

function decode(value: Uint8Array, what: string, sessionId: string, lazy: boolean): DirEntry {
  const body = unwrapEnvelope(ValueType.DirEntry, value, what);
  try {
    const d = FbDirEntry.getRootAsDirEntry(new flatbuffers.ByteBuffer(body));
    const live = d.state() === EntryState.Live;
    if (!live && d.state() !== EntryState.Deleted) throw corruption(`${what}: unknown entry state ${d.state()}`);
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const storedKeywords = lazy ? storedStrings(d, KEYWORDS_SLOT, bytes) : null;
    const keywords = storedKeywords === null ? readStringVector(d.bb!, d.bb_pos, KEYWORDS_SLOT, bytes) : [];
    const termsVersion = d.keywordTermsVersion();
    const storedTerms = lazy && termsVersion !== 0 ? storedStrings(d, KEYWORD_TERMS_SLOT, bytes) : null;
    const embedding = readEmbedding(d.embeddingLength(), (i) => d.embedding(i), d.embeddingModel());
    // Optional fields assigned in order rather than spread in: the same properties in the same order, without a
    // temporary object per field (entries are decoded by the hundred at every cold recall).
    const entry: { -readonly [K in keyof DirEntry]: DirEntry[K] } = {
      state: live ? 'live' : 'deleted',
      version: d.version(),
      location: live ? { blockId: Number(d.blockId()), frame: d.frame(), slot: d.slot() } : null,
      recordBytes: d.recordBytes(),
      tokenCount: d.tokenCount(),
      createdAt: d.createdAtMs(),
      updatedAt: d.updatedAtMs(),
      kind: kindFromFb(d.kind(), what),
      keywords,
      supersededBy: supersededRef(d, sessionId),
      deletedAt: live ? null : d.deletedAtMs(),
    };
    const expiresAt = d.expiresAtMs();
    if (expiresAt > 0) entry.expiresAt = expiresAt;
    if (hasAttributes(d)) entry.attributes = readAttributes(d);
    if (embedding !== undefined) entry.embedding = embedding;
    const agentId = d.agentId();
    if (agentId) entry.agentId = agentId;
    const runId = d.runId();
    if (runId) entry.runId = runId;
    if (termsVersion !== 0 && storedTerms === null) entry.keywordTerms = { version: termsVersion, terms: readStringVector(d.bb!, d.bb_pos, KEYWORD_TERMS_SLOT, bytes) };
    if (storedKeywords === null) return entry;
    // Getters in place of the decoded strings (`keywords` keeps its place among the properties). The getters are
    // shared by every entry and read the encoded strings from a hidden property: entries keep a few shapes.
    // (One property at a time: faster than `Object.defineProperties`.)
    Object.defineProperty(entry, 'keywords', KEYWORDS_GETTER);
    Object.defineProperty(entry, STORED_KEYWORDS, { value: storedKeywords });
    if (storedTerms !== null) {
      Object.defineProperty(entry, 'keywordTerms', KEYWORD_TERMS_GETTER);
      Object.defineProperty(entry, STORED_TERMS, { value: new EncodedKeywordTerms(termsVersion, storedTerms) });
    }
    return entry;
  } catch (err) {
    throw undecodable(what, 'directory entry', err);
  }
}

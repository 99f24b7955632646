import * as flatbuffers from 'flatbuffers';
import { scratchBuilder } from './scratch-builder.js';
import { createUtf8String } from './short-utf8.js';
import { corruption } from '../errors.js';
import { undecodable } from './undecodable.js';
import { FORMAT_VERSION } from './envelope.js';
import { Attribute } from './generated/akashic/fb/attribute.js';
import { ChunkRecord as FbChunkRecord } from './generated/akashic/fb/chunk-record.js';
import { ChunkKind as FbChunkKind } from './generated/akashic/fb/chunk-kind.js';
import { readEmbedding, type ChunkEmbedding } from './chunk-embedding.js';
import { readStringVector } from './string-vector.js';
import { ChunkRef as FbChunkRef } from './generated/akashic/fb/chunk-ref.js';

/** What a chunk holds. */
export type ChunkKind = 'memory' | 'turn' | 'summary' | 'note';
export const CHUNK_KINDS: readonly ChunkKind[] = ['memory', 'turn', 'summary', 'note'];

/**
 * The full address of a chunk: (user, session, ULID). References between chunks never cross users (a user is a
 * tenant), so on disk a record keeps only the session and id of the chunks it names; the user is its own.
 */
export interface FullChunkRef {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
}

/** One immutable chunk record: a version of a logical chunk (user, session, chunkId). */
export interface ChunkRecord {
  readonly userId: string;
  readonly sessionId: string;
  /** ULID; key order within a namespace is time order. */
  readonly chunkId: string;
  /** 1 for the first write, +1 per content update. */
  readonly version: number;
  /** When the logical chunk was first written (ms since epoch). */
  readonly createdAt: number;
  /** When this version was written (ms since epoch). */
  readonly updatedAt: number;
  readonly tokenCount: number;
  readonly kind: ChunkKind;
  readonly text: string;
  readonly keywords: readonly string[];
  readonly attributes: Readonly<Record<string, string>>;
  /** Opaque binary payload (embeddings, KV tensors), or null. */
  readonly payload: Uint8Array | null;
  /** The chunks this chunk replaced during reconciliation (full refs; always of the record's own user). */
  readonly supersedes: readonly FullChunkRef[];
  /** Ids of the turns this chunk was built from. */
  readonly provenance: readonly string[];
  /** When the chunk expires (ms since epoch): from then on it is never read or recalled. Absent: never. */
  readonly expiresAt?: number;
  /** The chunk's vector and the embedder that produced it; absent (or null) when none was stored. */
  readonly embedding?: ChunkEmbedding | null;
  /** The agent that wrote the chunk (a scope beside user and session); absent: none. */
  readonly agentId?: string;
  /** The run (one task or episode of an agent) the chunk belongs to; absent: none. */
  readonly runId?: string;
}

const KIND_TO_FB: Record<ChunkKind, FbChunkKind> = {
  memory: FbChunkKind.Memory,
  turn: FbChunkKind.Turn,
  summary: FbChunkKind.Summary,
  note: FbChunkKind.Note,
};

export function kindToFb(kind: ChunkKind): FbChunkKind {
  return KIND_TO_FB[kind];
}

export function kindFromFb(kind: FbChunkKind, what: string): ChunkKind {
  const k = CHUNK_KINDS[kind];
  if (k === undefined) throw corruption(`${what}: unknown chunk kind ${kind}`);
  return k;
}

function strings(builder: flatbuffers.Builder, values: readonly string[]): number[] {
  return values.map((v) => createUtf8String(builder, v));
}

/** Encodes a record as FlatBuffers bytes (not enveloped: records live inside checksummed block frames). */
export function encodeChunkRecord(r: ChunkRecord): Uint8Array {
  const b = scratchBuilder();
  const user = createUtf8String(b, r.userId);
  const session = createUtf8String(b, r.sessionId);
  const id = createUtf8String(b, r.chunkId);
  const text = createUtf8String(b, r.text);
  const keywords = FbChunkRecord.createKeywordsVector(b, strings(b, r.keywords));
  const attrKeys = Object.keys(r.attributes).sort();
  const attrs = FbChunkRecord.createAttributesVector(
    b,
    attrKeys.map((k) => Attribute.createAttribute(b, createUtf8String(b, k), createUtf8String(b, r.attributes[k] ?? ''))),
  );
  const payload = r.payload === null ? 0 : FbChunkRecord.createPayloadVector(b, r.payload);
  const supersedes = FbChunkRecord.createSupersedesVector(b, strings(b, r.supersedes.map((x) => x.chunkId)));
  const supersedesRefs =
    r.supersedes.length === 0
      ? 0
      : FbChunkRecord.createSupersedesRefsVector(
          b,
          r.supersedes.map((x) => {
            const sid = createUtf8String(b, x.sessionId);
            const cid = createUtf8String(b, x.chunkId);
            return FbChunkRef.createChunkRef(b, sid, cid);
          }),
        );
  const agent = r.agentId === undefined ? 0 : createUtf8String(b, r.agentId);
  const run = r.runId === undefined ? 0 : createUtf8String(b, r.runId);
  const provenance = FbChunkRecord.createProvenanceVector(b, strings(b, r.provenance));
  const emb = r.embedding ?? null;
  const embVector = emb === null ? 0 : FbChunkRecord.createEmbeddingVector(b, emb.vector);
  const embModel = emb === null ? 0 : createUtf8String(b, emb.model);
  FbChunkRecord.startChunkRecord(b);
  FbChunkRecord.addFormatVersion(b, FORMAT_VERSION);
  FbChunkRecord.addUserId(b, user);
  FbChunkRecord.addSessionId(b, session);
  FbChunkRecord.addChunkId(b, id);
  FbChunkRecord.addVersion(b, r.version);
  FbChunkRecord.addCreatedAtMs(b, r.createdAt);
  FbChunkRecord.addUpdatedAtMs(b, r.updatedAt);
  FbChunkRecord.addTokenCount(b, r.tokenCount);
  FbChunkRecord.addKind(b, kindToFb(r.kind));
  FbChunkRecord.addText(b, text);
  FbChunkRecord.addKeywords(b, keywords);
  FbChunkRecord.addAttributes(b, attrs);
  if (payload !== 0) FbChunkRecord.addPayload(b, payload);
  FbChunkRecord.addSupersedes(b, supersedes);
  FbChunkRecord.addProvenance(b, provenance);
  if (r.expiresAt !== undefined) FbChunkRecord.addExpiresAtMs(b, r.expiresAt);
  if (embVector !== 0) {
    FbChunkRecord.addEmbedding(b, embVector);
    FbChunkRecord.addEmbeddingModel(b, embModel);
  }
  if (agent !== 0) FbChunkRecord.addAgentId(b, agent);
  if (run !== 0) FbChunkRecord.addRunId(b, run);
  if (supersedesRefs !== 0) FbChunkRecord.addSupersedesRefs(b, supersedesRefs);
  b.finish(FbChunkRecord.endChunkRecord(b));
  // A copy: the builder is reused by the next encode.
  return b.asUint8Array().slice();
}

/** The keywords and provenance fields' vtable slots (see the generated accessors). */
const KEYWORDS_SLOT = 24;
const PROVENANCE_SLOT = 32;

/** Decodes a record; `what` names it in errors. Payload is copied, so the result owns its memory. */
export function decodeChunkRecord(bytes: Uint8Array, what: string): ChunkRecord {
  try {
    const r = FbChunkRecord.getRootAsChunkRecord(new flatbuffers.ByteBuffer(bytes));
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (r.formatVersion() !== FORMAT_VERSION) throw corruption(`${what}: chunk format version ${r.formatVersion()}`);
    const pairs: [string, string][] = [];
    for (let i = 0; i < r.attributesLength(); i++) {
      const a = r.attributes(i);
      if (a) pairs.push([a.key() ?? '', a.value() ?? '']);
    }
    // fromEntries defines own properties: an attribute named `__proto__` stays data.
    const attributes: Record<string, string> = Object.fromEntries(pairs);
    const payloadArr = r.payloadArray();
    const expiresAt = r.expiresAtMs();
    const embedding = readEmbedding(r.embeddingLength(), (i) => r.embedding(i), r.embeddingModel());
    const userId = r.userId() ?? '';
    const sessionId = r.sessionId() ?? '';
    const agentId = r.agentId();
    const runId = r.runId();
    // Records written before refs were stored name bare ids: those are read as chunks of the record's own session.
    const supersedes: FullChunkRef[] = [];
    if (r.supersedesRefsLength() > 0) {
      for (let i = 0; i < r.supersedesRefsLength(); i++) {
        const x = r.supersedesRefs(i);
        supersedes.push({ userId, sessionId: x?.sessionId() ?? '', chunkId: x?.chunkId() ?? '' });
      }
    } else {
      for (let i = 0; i < r.supersedesLength(); i++) supersedes.push({ userId, sessionId, chunkId: r.supersedes(i) ?? '' });
    }
    return {
      userId,
      sessionId,
      chunkId: r.chunkId() ?? '',
      version: r.version(),
      createdAt: r.createdAtMs(),
      updatedAt: r.updatedAtMs(),
      tokenCount: r.tokenCount(),
      kind: kindFromFb(r.kind(), what),
      text: r.text() ?? '',
      keywords: readStringVector(r.bb!, r.bb_pos, KEYWORDS_SLOT, body),
      attributes,
      payload: payloadArr === null ? null : Uint8Array.from(payloadArr),
      supersedes,
      provenance: readStringVector(r.bb!, r.bb_pos, PROVENANCE_SLOT, body),
      ...(expiresAt > 0 ? { expiresAt } : {}),
      ...(embedding === undefined ? {} : { embedding }),
      ...(agentId ? { agentId } : {}),
      ...(runId ? { runId } : {}),
    };
  } catch (err) {
    throw undecodable(what, 'chunk record', err);
  }
}

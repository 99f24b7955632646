/**
 * Request and response schemas shared by the memory and store routes. They check shapes and types and reject
 * unknown fields (every object is strict); the limits (id bytes, text bytes, counts) are checked once, by the
 * library call the route makes, so the service and the embedded library refuse the same inputs with the same code.
 */
import { z } from '@hono/zod-openapi';
import { CHUNK_KINDS, type ChunkKind as ChunkKindName } from '../record/chunk-record.js';

export const Id = z.string().describe('An id: a non-empty UTF-8 string of at most 256 bytes (user, session, agent or run).');
export const ChunkId = z.string().describe('A chunk id (a ULID unless the writer chose one).');
/** One id or several (a shared scope such as a team of agents). */
export const Ids = z.union([Id, z.array(Id)]);
export const Millis = z.number().describe('Milliseconds since the epoch.');
export const ChunkKind = z.enum(CHUNK_KINDS as unknown as [ChunkKindName, ...ChunkKindName[]]);

export const ChunkRef = z.strictObject({ sessionId: Id, chunkId: ChunkId }).openapi('ChunkRef');

export const SupersedesRef = z.union([ChunkId, z.strictObject({ userId: Id.optional(), sessionId: Id, chunkId: ChunkId })]);

export const AttributeCondition = z.union([
  z.string(),
  z.strictObject({
    eq: z.string().optional(),
    ne: z.string().optional(),
    in: z.array(z.string()).optional(),
    gt: z.union([z.string(), z.number()]).optional(),
    gte: z.union([z.string(), z.number()]).optional(),
    lt: z.union([z.string(), z.number()]).optional(),
    lte: z.union([z.string(), z.number()]).optional(),
    exists: z.boolean().optional(),
  }),
]);

export const ChunkFilter = z
  .strictObject({
    attributes: z.record(z.string(), AttributeCondition).optional(),
    createdAfter: Millis.optional(),
    createdBefore: Millis.optional(),
  })
  .openapi('ChunkFilter');

export const Embedding = z.strictObject({ model: z.string(), vector: z.array(z.number()) });

/** The content fields of a chunk (`ChunkContent`); `payload` is base64 on the wire. */
export const contentFields = {
  kind: ChunkKind.optional(),
  text: z.string(),
  tokenCount: z.number().optional(),
  keywords: z.array(z.string()).optional(),
  attributes: z.record(z.string(), z.string()).optional(),
  payload: z.base64().nullable().optional().describe('Opaque bytes, base64-encoded; null for none.'),
  supersedes: z.array(SupersedesRef).optional(),
  provenance: z.array(z.string()).optional(),
  embedding: Embedding.nullable().optional(),
  agentId: Id.optional(),
  runId: Id.optional(),
};

export const ErrorBody = z
  .object({
    code: z.string().describe('A stable AKASHIC_* error code; docs/server.md lists the HTTP status of each.'),
    message: z.string(),
  })
  .openapi('Error');

/** A chunk record as the wire carries it: `payload` base64 (or null), an embedding's vector as numbers. */
export const ChunkRecord = z
  .object({
    userId: Id,
    sessionId: Id,
    chunkId: ChunkId,
    version: z.number().int(),
    createdAt: Millis,
    updatedAt: Millis,
    tokenCount: z.number().int(),
    kind: ChunkKind,
    text: z.string(),
    keywords: z.array(z.string()),
    attributes: z.record(z.string(), z.string()),
    payload: z.string().nullable(),
    supersedes: z.array(z.object({ userId: Id, sessionId: Id, chunkId: ChunkId })),
    provenance: z.array(z.string()),
    expiresAt: Millis.optional(),
    embedding: z.object({ model: z.string(), vector: z.array(z.number()) }).nullable().optional(),
    agentId: Id.optional(),
    runId: Id.optional(),
    superseded: z.object({ at: Millis, cause: z.enum(['update', 'delete']), by: z.object({ sessionId: Id, chunkId: ChunkId }).nullable() }).optional().describe('Set on superseded versions a read asked for.'),
  })
  .openapi('ChunkRecord');

export const MutationResult = z
  .object({ op: z.string(), sessionId: Id, chunkId: ChunkId, version: z.number().int(), skipped: z.boolean().optional() })
  .openapi('MutationResult');

export const ChunkVersion = z
  .object({
    record: ChunkRecord,
    version: z.number().int(),
    validFrom: Millis,
    validUntil: Millis.nullable(),
    cause: z.enum(['update', 'delete']).nullable(),
    supersededBy: z.object({ userId: Id, sessionId: Id, chunkId: ChunkId }).nullable(),
  })
  .openapi('ChunkVersion');

export const PurgeBody = z.strictObject({ user: Id, session: Id.optional() });

export const PurgeReport = z
  .object({ userId: Id, sessionId: Id.nullable(), chunks: z.number(), tombstones: z.number(), blocksReleased: z.number() })
  .loose()
  .openapi('PurgeReport');

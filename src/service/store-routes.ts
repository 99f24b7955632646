/**
 * Routes over `AkashicStore`: put, write, get, getMany, list, history, update, delete, purge, users, sessions and
 * stats. Each one validates its body, names the user it touches, and makes one library call; `payload` bytes
 * arrive base64-encoded and are decoded here, the only change a route makes to its input.
 */
import { z } from '@hono/zod-openapi';
import type { WriteOp } from '../api/requests.js';
import { bytesFromWire } from '../protocol/wire-codec.js';
import { STORE_ROUTES } from '../protocol/routes.js';
import { ChunkFilter, ChunkId, ChunkRecord, ChunkRef, ChunkVersion, Id, Ids, Millis, MutationResult, PurgeBody, PurgeReport, SupersedesRef, contentFields } from './common-schemas.js';
import { defineRoute, type RouteDef } from './route-definition.js';

const putFields = {
  ...contentFields,
  sessionId: Id,
  chunkId: ChunkId.optional(),
  createdAt: Millis.optional(),
  ttlMs: z.number().optional(),
  expiresAt: Millis.optional(),
};
const PutInput = z.strictObject(putFields).openapi('PutInput');

const { text, ...optionalContent } = contentFields;
const updateFields = {
  ...optionalContent,
  text: text.optional(),
  sessionId: Id,
  chunkId: ChunkId,
  expectVersion: z.number().optional().describe('Compare-and-swap: AKASHIC_CONFLICT unless the chunk is at this version.'),
  supersededBy: SupersedesRef.optional(),
  ttlMs: z.number().optional(),
  expiresAt: Millis.nullable().optional(),
};
const deleteFields = { sessionId: Id, chunkId: ChunkId, expectVersion: z.number().optional(), supersededBy: SupersedesRef.optional() };

const WriteOpSchema = z
  .discriminatedUnion('op', [
    z.strictObject({ op: z.literal('put'), ...putFields }),
    z.strictObject({ op: z.literal('update'), ...updateFields }),
    z.strictObject({ op: z.literal('delete'), ...deleteFields }),
  ])
  .openapi('WriteOp');

const ListBody = z
  .strictObject({
    userId: Id,
    sessionId: Id.optional(),
    includeDeleted: z.boolean().optional(),
    includeExpired: z.boolean().optional(),
    filter: ChunkFilter.optional(),
    asOf: Millis.optional(),
    includeSuperseded: z.boolean().optional(),
    agentId: Ids.optional(),
    runId: Ids.optional(),
  })
  .openapi('ListInput');

const ListedChunk = z
  .object({ userId: Id, sessionId: Id, chunkId: ChunkId, entry: z.object({ state: z.enum(['live', 'deleted']), version: z.number() }).loose() })
  .loose()
  .openapi('ListedChunk');

/** A payload field from the wire (base64) as bytes; every other field as given. */
function withPayloadBytes<T extends object>(o: T): Omit<T, 'payload'> & { payload?: Uint8Array | null } {
  const p = (o as { payload?: string | null }).payload;
  if (p === undefined) return o as Omit<T, 'payload'>;
  return { ...o, payload: bytesFromWire(p) };
}

export const STORE_ROUTE_DEFS: readonly RouteDef[] = [
  defineRoute({
    operationId: 'storePut',
    path: STORE_ROUTES.put,
    tag: 'store',
    summary: 'Creates one chunk; returns its id and version.',
    body: z.strictObject({ userId: Id, chunk: PutInput }),
    response: MutationResult,
    users: (b) => [b.userId],
    run: (b, { store }) => store.put(b.userId, withPayloadBytes(b.chunk)),
  }),
  defineRoute({
    operationId: 'storeWrite',
    path: STORE_ROUTES.write,
    tag: 'store',
    summary: "Applies puts, updates and deletes of one user in one atomic batch: all land or none does.",
    body: z.strictObject({ userId: Id, ops: z.array(WriteOpSchema) }),
    response: z.array(MutationResult),
    users: (b) => [b.userId],
    run: (b, { store }) => store.write(b.userId, b.ops.map((o) => withPayloadBytes(o) as WriteOp)),
  }),
  defineRoute({
    operationId: 'storeGet',
    path: STORE_ROUTES.get,
    tag: 'store',
    summary: 'One chunk, or null when it does not exist or was deleted (with asOf: the version current then).',
    body: z.strictObject({ userId: Id, sessionId: Id, chunkId: ChunkId, asOf: Millis.optional() }),
    response: ChunkRecord.nullable(),
    users: (b) => [b.userId],
    run: (b, { store }) => store.get(b.userId, b.sessionId, b.chunkId, b.asOf === undefined ? {} : { asOf: b.asOf }),
  }),
  defineRoute({
    operationId: 'storeGetMany',
    path: STORE_ROUTES.getMany,
    tag: 'store',
    summary: 'Chunks read together, each block touched once; null where a chunk is absent or deleted.',
    body: z.strictObject({ userId: Id, refs: z.array(ChunkRef), asOf: Millis.optional() }),
    response: z.object({ chunks: z.array(ChunkRecord.nullable()), blocksTouched: z.number() }).loose(),
    users: (b) => [b.userId],
    run: (b, { store }) => store.getMany(b.userId, b.refs, b.asOf === undefined ? {} : { asOf: b.asOf }),
  }),
  defineRoute({
    operationId: 'storeList',
    path: STORE_ROUTES.list,
    tag: 'store',
    summary: "The directory entries of a user's chunks (one session's with sessionId), streamed as NDJSON.",
    body: ListBody,
    response: ListedChunk,
    stream: true,
    users: (b) => [b.userId],
    run: ({ userId, ...opts }, { store }) => store.list(userId, opts),
  }),
  defineRoute({
    operationId: 'storeHistory',
    path: STORE_ROUTES.history,
    tag: 'store',
    summary: 'Every readable version of one chunk, newest first.',
    body: z.strictObject({ userId: Id, sessionId: Id, chunkId: ChunkId }),
    response: z.array(ChunkVersion),
    users: (b) => [b.userId],
    run: (b, { store }) => store.history(b.userId, b.sessionId, b.chunkId),
  }),
  defineRoute({
    operationId: 'storeUpdate',
    path: STORE_ROUTES.update,
    tag: 'store',
    summary: 'Changes fields of one chunk (a new version); with expectVersion, only if it is still at that version.',
    body: z.strictObject({ userId: Id, ...updateFields }),
    response: MutationResult,
    users: (b) => [b.userId],
    run: async ({ userId, ...u }, { store }) => (await store.write(userId, [{ op: 'update', ...withPayloadBytes(u) }]))[0],
  }),
  defineRoute({
    operationId: 'storeDelete',
    path: STORE_ROUTES.delete,
    tag: 'store',
    summary: 'Deletes one chunk (a tombstone; its versions stay in history as retention allows).',
    body: z.strictObject({ userId: Id, ...deleteFields }),
    response: MutationResult,
    users: (b) => [b.userId],
    run: async ({ userId, ...d }, { store }) => (await store.write(userId, [{ op: 'delete', ...d }]))[0],
  }),
  defineRoute({
    operationId: 'storePurge',
    path: STORE_ROUTES.purge,
    tag: 'store',
    summary: 'Provable erasure of a user or one of its sessions (active turns included).',
    body: PurgeBody,
    response: PurgeReport,
    users: (b) => [b.user],
    // Through the memory, so queued compactions of the scope finish first and none lands after the purge.
    run: (b, { memory }) => memory.purge(b),
  }),
  defineRoute({
    operationId: 'storeUsers',
    path: STORE_ROUTES.users,
    tag: 'store',
    summary: "The users that have chunks, limited to the users the request's key is allowed.",
    body: z.strictObject({}),
    response: z.array(Id),
    users: () => [],
    run: async (_b, { store }, tenant) => (await store.users()).filter((u) => tenant.allows(u)),
  }),
  defineRoute({
    operationId: 'storeSessions',
    path: STORE_ROUTES.sessions,
    tag: 'store',
    summary: 'The sessions of one user that have chunks.',
    body: z.strictObject({ userId: Id }),
    response: z.array(Id),
    users: (b) => [b.userId],
    run: (b, { store }) => store.sessions(b.userId),
  }),
  defineRoute({
    operationId: 'storeStats',
    path: STORE_ROUTES.stats,
    method: 'get',
    tag: 'store',
    summary: 'Engine figures of the whole database (admin keys only).',
    body: z.strictObject({}),
    response: z.object({ users: z.number(), chunks: z.number(), blocks: z.number() }).loose().openapi('StoreStats'),
    adminOnly: true,
    users: () => [],
    run: (_b, { store }) => store.stats(),
  }),
];

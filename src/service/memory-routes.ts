/**
 * Routes over `AkashicMemory`: append turns, complete a request, end sessions, recall, read a chunk's history and
 * purge. Each one validates its body, names the user it touches, and makes one library call.
 */
import { z } from '@hono/zod-openapi';
import { MEMORY_ROUTES } from '../protocol/routes.js';
import { ChunkFilter, ChunkId, ChunkRecord, ChunkVersion, Id, Ids, Millis, PurgeBody, PurgeReport } from './common-schemas.js';
import { defineRoute, type RouteDef } from './route-definition.js';

const sessionRef = { user: Id, session: Id };

const turnFields = {
  role: z.string().describe("Who spoke: 'user', 'assistant', a tool name, …"),
  text: z.string(),
  at: Millis.optional(),
  turnId: z.string().optional().describe('A stable id, unique within the active chunk; default a fresh ULID.'),
  agentId: Id.optional(),
  runId: Id.optional(),
};
const Turn = z.strictObject(turnFields).openapi('Turn');

const SessionRef = z.strictObject(sessionRef).openapi('SessionRef');

const ActiveTurn = z
  .object({ turnId: z.string(), role: z.string(), text: z.string(), at: Millis, tokenCount: z.number(), agentId: Id.optional(), runId: Id.optional() })
  .openapi('ActiveTurn');

const CompactionResult = z
  .object({ chunk: z.object({ sessionId: Id, chunkId: ChunkId }).nullable(), turnIds: z.array(z.string()), turnTokens: z.number(), tokenCount: z.number() })
  .loose()
  .openapi('CompactionResult');

const AppendResult = z
  .object({
    turnIds: z.array(z.string()),
    activeTokens: z.number(),
    compacted: CompactionResult.optional(),
    compactionError: z.object({ code: z.string(), message: z.string() }).optional().describe('The gate fired but compaction failed; the turns are stored.'),
  })
  .openapi('AppendResult');

const RecallBody = z
  .strictObject({
    ...sessionRef,
    query: z.string(),
    topP: z.number().optional(),
    memoryBudgetTokens: z.number().optional(),
    scope: z.enum(['session', 'user']).optional(),
    relevanceFloor: z.number().optional(),
    enableRetrieval: z.boolean().optional(),
    turnId: z.string().optional(),
    filter: ChunkFilter.optional(),
    agentId: Ids.optional(),
    runId: Ids.optional(),
    asOf: Millis.optional(),
    includeSuperseded: z.boolean().optional(),
  })
  .openapi('RecallInput');

const RecallResult = z
  .object({
    chunks: z.array(ChunkRecord),
    passages: z.array(z.object({ sessionId: Id, chunkId: ChunkId, text: z.string(), turnIds: z.array(z.string()), score: z.number().describe('How well it answers the query, comparable within one recall.'), createdAt: Millis.describe("Its chunk's creation time.") })),
    text: z.string().describe('What to prepend to the prompt.'),
    tokenCount: z.number(),
    blocksTouched: z.number(),
    activeTurns: z.array(ActiveTurn),
    candidates: z.number(),
    dropped: z.number(),
    relocation: z.object({ status: z.string() }).loose(),
  })
  .openapi('RecallResult');

export const MEMORY_ROUTE_DEFS: readonly RouteDef[] = [
  defineRoute({
    operationId: 'memoryAppendTurn',
    path: MEMORY_ROUTES.appendTurn,
    tag: 'memory',
    summary: "Durably appends one turn to the session's active chunk, then runs the chunk gate (which may compact).",
    body: z.strictObject({ ...sessionRef, ...turnFields }).openapi('AppendTurnInput'),
    response: AppendResult.extend({ turnId: z.string() }),
    users: (b) => [b.user],
    run: (b, { memory }) => memory.appendTurn(b),
  }),
  defineRoute({
    operationId: 'memoryCompleteRequest',
    path: MEMORY_ROUTES.completeRequest,
    tag: 'memory',
    summary: "Appends a finished request's turns in one batch and runs the chunk gate once.",
    body: z.strictObject({ ...sessionRef, turns: z.array(Turn), enableWriteback: z.boolean().optional(), agentId: Id.optional(), runId: Id.optional() }).openapi('CompleteRequestInput'),
    response: AppendResult.extend({ writtenBack: z.boolean() }),
    users: (b) => [b.user],
    run: (b, { memory }) => memory.completeRequest(b),
  }),
  defineRoute({
    operationId: 'memoryEndSession',
    path: MEMORY_ROUTES.endSession,
    tag: 'memory',
    summary: "Compacts what is left of the session's active chunk.",
    body: SessionRef,
    response: z.object({ compacted: z.array(CompactionResult) }),
    users: (b) => [b.user],
    run: (b, { memory }) => memory.endSession(b),
  }),
  defineRoute({
    operationId: 'memoryEndOtherSessions',
    path: MEMORY_ROUTES.endOtherSessions,
    tag: 'memory',
    summary: "Compacts the pending turns of the user's other sessions (not this one).",
    body: SessionRef,
    response: z.object({ sessions: z.array(Id), compacted: z.array(CompactionResult) }),
    users: (b) => [b.user],
    run: (b, { memory }) => memory.endOtherSessions(b),
  }),
  defineRoute({
    operationId: 'memoryActiveTurns',
    path: MEMORY_ROUTES.activeTurns,
    tag: 'memory',
    summary: "The session's turns not yet compacted, oldest first.",
    body: SessionRef,
    response: z.array(ActiveTurn),
    users: (b) => [b.user],
    run: (b, { memory }) => memory.activeTurns(b),
  }),
  defineRoute({
    operationId: 'memoryRecall',
    path: MEMORY_ROUTES.recall,
    tag: 'memory',
    summary: 'Query-aware recall under a token budget, plus the active turns of the session.',
    body: RecallBody,
    response: RecallResult,
    users: (b) => [b.user],
    run: (b, { memory }) => memory.recall(b),
  }),
  defineRoute({
    operationId: 'memoryHistory',
    path: MEMORY_ROUTES.history,
    tag: 'memory',
    summary: 'Every readable version of one chunk, newest first.',
    body: z.strictObject({ ...sessionRef, chunkId: ChunkId }),
    response: z.array(ChunkVersion),
    users: (b) => [b.user],
    run: (b, { memory }) => memory.history(b),
  }),
  defineRoute({
    operationId: 'memoryPurge',
    path: MEMORY_ROUTES.purge,
    tag: 'memory',
    summary: 'Provable erasure of a user or one of its sessions, active turns included.',
    body: PurgeBody,
    response: PurgeReport,
    users: (b) => [b.user],
    run: (b, { memory }) => memory.purge(b),
  }),
];

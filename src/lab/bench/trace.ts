/**
 * The benchmark trace (the Akashic paper §5.4: "we replay the same inference traces ... varying only the physical layout
 * policy"). A trace is recorded once, by ingesting conversations through MemAttention with the default model, and
 * then replayed, unchanged, into a fresh store per layout policy and into the peer stores. It holds:
 *
 * - every chunk write MemAttention produced (puts, updates, deletes, with the exact texts and metadata), as the
 *   atomic batches they landed in between two questions;
 * - every question as a request with two chunk sets: the oracle (live chunks whose provenance holds the question's
 *   evidence turns) and the model's top-p recall (the chunks SELECT picked, before the recall's token budget cut).
 *
 * Chunk ids are kept, so a request names the same chunks in every store.
 */
import { MemoryLevel } from 'memory-level';
import { AkashicStore } from '../../engine/akashic-store.js';
import { replayConversation } from '../harness/replay.js';
import { AkashicMemory, type RecallResult } from '../../memattention/index.js';
import { EmbeddedModel } from '../../model/embedded-model.js';
import type { ChunkMetaView } from '../../model/memory-model.js';
import { selectSetup, type SelectVariant } from '../../model/select-variants.js';
import type { ChunkRef } from '../../api/chunk-input.js';
import type { Conversation } from '../workload/conversation.js';
import { recordInWorkers } from './trace-workers.js';

/** A chunk's content as it was written; `chunkId` and `createdAt` are replayed as given. */
export interface TraceChunk {
  readonly sessionId: string;
  readonly chunkId: string;
  readonly createdAt: number;
  readonly text: string;
  readonly tokenCount: number;
  readonly keywords: readonly string[];
  readonly provenance: readonly string[];
}

export type TraceOp =
  | ({ readonly op: 'put' } & TraceChunk)
  | ({ readonly op: 'update' } & TraceChunk)
  | { readonly op: 'delete'; readonly sessionId: string; readonly chunkId: string };

/** One atomic batch of one user. */
export interface TraceWrite {
  readonly kind: 'write';
  readonly user: string;
  readonly ops: readonly TraceOp[];
  /**
   * For each put of `ops` (same order): the user's prior live chunks the default model finds most similar to it at
   * write time (SELECT over the user's chunk metadata, top-p). The semantic-only policy places the new chunk next
   * to these; the other policies ignore them.
   */
  readonly neighbours: readonly (readonly ChunkRef[])[];
}

/** One question of one user. */
export interface TraceRequest {
  readonly kind: 'request';
  readonly user: string;
  /** Position among all requests of the trace (0-based). */
  readonly index: number;
  readonly category: number;
  /** Live chunks whose provenance holds at least one evidence turn (empty for questions without evidence). */
  readonly oracle: readonly ChunkRef[];
  /** The model's top-p selection (rank cut only; the token budget does not apply). */
  readonly recall: readonly ChunkRef[];
  /** Whether every evidence turn was in a recalled chunk's provenance (a quality figure, not a layout one). */
  readonly evidenceFound: boolean;
  /** The request's query text (the question, or the user's turn on an admission trace): end-to-end recalls re-run it. */
  readonly query: string;
  /** The session the request was made in. */
  readonly sessionId: string;
}

export type TraceEvent = TraceWrite | TraceRequest;

/**
 * Which requests a trace holds. `questions`: each benchmark question once, asked when its evidence is written.
 * `admission`: a recall at every turn of the conversation's first speaker (the user), with the turn as the query,
 * before the turn is appended — the serving trace of request admission, where consecutive turns on one topic recall
 * overlapping sets.
 */
export type TraceKind = 'questions' | 'admission';
export const TRACE_KINDS: readonly TraceKind[] = ['questions', 'admission'];

export interface Trace {
  readonly kind: TraceKind;
  readonly source: string;
  readonly users: number;
  readonly events: readonly TraceEvent[];
  readonly chunksWritten: number;
  readonly requests: number;
  readonly recordMs: number;
}

/** Which chunk set of a request drives a replay. */
export type RequestSet = 'recall' | 'oracle';

export interface RecordOptions {
  readonly kind?: TraceKind;
  readonly topP?: number;
  /** Worker threads, each recording one conversation at a time (default 1: in this thread). */
  readonly workers?: number;
  /**
   * The SELECT the recording memory runs (default `lexical`, the engine's default): `hybrid` plugs the offline
   * word-mean embedder into `AkashicMemory` as a user would; `dense` is the embedder's ranking alone (an experiment).
   */
  readonly select?: SelectVariant;
  /** Called after each conversation is recorded. */
  readonly onConversation?: (done: number, total: number) => void;
}

/** Key of a chunk inside one user's maps. */
function key(sessionId: string, chunkId: string): string {
  return sessionId + '\u0000' + chunkId;
}

/** Bound of the neighbour search, as SELECT's candidate set is bounded (memattention/candidates.ts). */
const NEIGHBOUR_WINDOW = 256;

/**
 * Records the trace: each conversation is replayed through a fresh AkashicMemory (default model and options,
 * online relocation off, recall scope 'user') over an in-memory store; the chunk writes between two questions are
 * read back from the store's directory, and each question's sets are taken at the moment it is asked.
 * Conversations are then interleaved session by session (user 1's first session, user 2's first session, ...), as
 * concurrent agents would write.
 */
export async function recordTrace(conversations: readonly Conversation[], source: string, opts: RecordOptions = {}): Promise<Trace> {
  const started = Date.now();
  const topP = opts.topP ?? 5;
  const kind = opts.kind ?? 'questions';
  const select = opts.select ?? 'lexical';
  const workers = Math.max(1, Math.min(opts.workers ?? 1, conversations.length));
  let chunksWritten = 0;
  let done = 0;
  const perUser: TraceEvent[][][] = new Array<TraceEvent[][]>(conversations.length);
  const record = workers > 1 ? await recordInWorkers(workers) : null;
  try {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < conversations.length) {
        const ci = next++;
        const conv = conversations[ci]!;
        const got = record === null ? await recordConversation(conv, kind, topP, select) : await record.run(conv, kind, topP, select);
        perUser[ci] = got.sessions;
        chunksWritten += got.chunksWritten;
        opts.onConversation?.(++done, conversations.length);
      }
    };
    await Promise.all(Array.from({ length: workers }, lane));
  } finally {
    await record?.close();
  }
  // Interleave: round r holds every user's r-th session (and the questions asked after it).
  const events: TraceEvent[] = [];
  const rounds = Math.max(0, ...perUser.map((s) => s.length));
  let requests = 0;
  for (let r = 0; r < rounds; r++) {
    for (const sessions of perUser) {
      for (const e of sessions[r] ?? []) {
        events.push(e.kind === 'request' ? { ...e, index: requests++ } : e);
      }
    }
  }
  return { kind, source, users: conversations.length, events, chunksWritten, requests, recordMs: Date.now() - started };
}

/** One conversation's recorded events, session by session (the unit a recording worker returns). */
export interface RecordedConversation {
  readonly sessions: TraceEvent[][];
  readonly chunksWritten: number;
}

/**
 * Records one conversation: replayed through a fresh AkashicMemory (default model and options, online relocation
 * off, recall scope 'user'; the model and embedder of `select`) over an in-memory store. Conversations are
 * independent, so they may be recorded in parallel (`recordInWorkers`).
 */
export async function recordConversation(conv: Conversation, kind: TraceKind, topP: number, select: SelectVariant = 'lexical'): Promise<RecordedConversation> {
  let chunksWritten = 0;
  // The write-time neighbours of the semantic-only policy stay the default model's in every variant.
  const model = new EmbeddedModel();
  const setup = await selectSetup(select);
  // The recording store keeps the default frame cache: its reads are not measured, and decompressing every
  // recalled frame again was a tenth of the recording time.
  const store = await AkashicStore.open({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }), gc: { intervalMs: 0 }, durability: 'relaxed' });
  // Awaiting write-back: each question is asked once every compaction before it committed, so a trace is reproducible.
  const memory = new AkashicMemory(store, { relocateEveryRecalls: 0, writeBack: 'await', topP, model: setup.model, ...(setup.embedder === undefined ? {} : { embedder: setup.embedder }) });
  const user = conv.id;
  const versions = new Map<string, number>();
  const provenance = new Map<string, { ref: ChunkRef; turns: ReadonlySet<string> }>();
  const metas: ChunkMetaView[] = [];
  const sessions: TraceEvent[][] = [];
  let current: TraceEvent[] = [];
  let pending = false;
  const flushWrites = async (): Promise<void> => {
    const puts: ChunkRef[] = [];
    const updates: ChunkRef[] = [];
    const deletes: ChunkRef[] = [];
    for await (const e of store.list(user, { includeDeleted: true })) {
      const k = key(e.sessionId, e.chunkId);
      const before = versions.get(k);
      if (e.entry.state === 'live') {
        if (before === undefined) puts.push(e);
        else if (e.entry.version > before) updates.push(e);
        versions.set(k, e.entry.version);
      } else if (before !== undefined && before > 0) {
        deletes.push(e);
        versions.set(k, 0);
      }
    }
    if (puts.length + updates.length + deletes.length === 0) return;
    const refs = [...puts, ...updates].map((r) => ({ sessionId: r.sessionId, chunkId: r.chunkId }));
    const read = refs.length === 0 ? { chunks: [] } : await store.getMany(user, refs);
    const chunks = read.chunks.map((c) => {
      if (c === null) throw new Error('trace: a listed chunk vanished');
      return { sessionId: c.sessionId, chunkId: c.chunkId, createdAt: c.createdAt, text: c.text, tokenCount: c.tokenCount, keywords: c.keywords, provenance: c.provenance };
    });
    // One batch per new chunk, in id (= time) order, then the rewrites and deletions.
    for (const c of chunks.slice(0, puts.length)) {
      const prior = metas.length <= NEIGHBOUR_WINDOW ? metas : metas.slice(metas.length - NEIGHBOUR_WINDOW);
      const ids = await model.select({ text: c.text, keywords: c.keywords }, prior, topP);
      const neighbours = ids.map((id) => {
        const i = id.indexOf('\u0000');
        return { sessionId: id.slice(0, i), chunkId: id.slice(i + 1) };
      });
      current.push({ kind: 'write', user, ops: [{ op: 'put', ...c }], neighbours: [neighbours] });
      metas.push({ id: key(c.sessionId, c.chunkId), sessionId: c.sessionId, createdAt: c.createdAt, tokenCount: c.tokenCount, keywords: c.keywords });
      provenance.set(key(c.sessionId, c.chunkId), { ref: { sessionId: c.sessionId, chunkId: c.chunkId }, turns: new Set(c.provenance) });
      chunksWritten++;
    }
    const rest: TraceOp[] = [];
    for (const c of chunks.slice(puts.length)) {
      rest.push({ op: 'update', ...c });
      provenance.set(key(c.sessionId, c.chunkId), { ref: { sessionId: c.sessionId, chunkId: c.chunkId }, turns: new Set(c.provenance) });
      const m = metas.findIndex((x) => x.id === key(c.sessionId, c.chunkId));
      if (m >= 0) metas[m] = { ...metas[m]!, keywords: c.keywords, tokenCount: c.tokenCount };
    }
    for (const d of deletes) {
      rest.push({ op: 'delete', sessionId: d.sessionId, chunkId: d.chunkId });
      provenance.delete(key(d.sessionId, d.chunkId));
      const m = metas.findIndex((x) => x.id === key(d.sessionId, d.chunkId));
      if (m >= 0) metas.splice(m, 1);
    }
    if (rest.length > 0) current.push({ kind: 'write', user, ops: rest, neighbours: [] });
  };
  const onRecall = (sessionId: string, query: string, recall: RecallResult): void => {
    const refs = recall.chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId }));
    current.push({ kind: 'request', user, index: -1, category: 0, oracle: [], recall: refs, evidenceFound: false, query, sessionId });
  };
  try {
    if (kind === 'admission') {
      for (const s of conv.sessions) {
        for (const t of s.turns) {
          if (t.speaker === conv.speakers[0]) {
            // Chunks compacted earlier in the current session must be in the trace before a request can name them.
            if (pending) await flushWrites();
            pending = false;
            onRecall(s.id, t.text, await memory.recall({ user, session: s.id, query: t.text, scope: 'user', topP, memoryBudgetTokens: 10_000_000 }));
          }
          const r = await memory.appendTurn({ user, session: s.id, role: t.speaker, text: t.text, at: t.at, turnId: t.turnId });
          if (r.compacted !== undefined) pending = true;
        }
        await memory.endSession({ user, session: s.id });
        await flushWrites();
        pending = false;
        sessions.push(current);
        current = [];
      }
    } else await replayConversation(memory, conv, {
      scope: 'user',
      topP,
      // The request's set is SELECT's top-p; the prompt budget is a separate concern.
      memoryBudgetTokens: 10_000_000,
      onSessionEnd: async () => {
        await flushWrites();
        sessions.push(current);
        current = [];
      },
      onQuestion: (a) => {
        const evidence = new Set(a.question.evidence);
        const oracle: ChunkRef[] = [];
        if (evidence.size > 0) {
          for (const { ref, turns } of provenance.values()) {
            for (const t of turns) {
              if (evidence.has(t)) {
                oracle.push(ref);
                break;
              }
            }
          }
        }
        const recall = a.recall.chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId }));
        const found = a.question.evidence.length > 0 && a.evidenceFound.length === a.question.evidence.length;
        const sessionId = conv.sessions[sessions.length - 1]?.id ?? '';
        sessions[sessions.length - 1]!.push({ kind: 'request', user, index: -1, category: a.question.category, oracle, recall, evidenceFound: found, query: a.question.question, sessionId });
      },
    });
  } finally {
    await memory.close();
    await store.close();
  }
  return { sessions, chunksWritten };
}

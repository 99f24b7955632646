/**
 * Gate-triggered chunk compaction with cross-chunk reconciliation (the Akashic paper, Algorithm 1 lines 4–12):
 *
 *   m ← COMPRESS(turns); K_m ← BUILDMETA(m); M ← bounded candidate metas of the scope (candidates.ts);
 *   R ← SELECT(K_m, M, p); bodies of R ← getMany; (m′, U, D) ← JOINT-COMPACT(m, R); K_m′ ← BUILDMETA(m′)
 *
 * then ONE atomic batch: put m′ (kind 'memory'), rewrite U out of place, tombstone D (supersededBy m′), and delete the
 * consumed active turns. Every model call happens before that batch, so a model failure, a contract violation, a
 * lost compare-and-swap or a crash anywhere changes nothing: the turns stay in the active chunk and the next gate
 * retries them.
 *
 * Work per compaction, whatever the history length: COMPRESS sees the consumed turns (< τ_c + one turn), SELECT at
 * most window + prefilter metas, JOINT-COMPACT at most p bodies, and getMany reads at most p records.
 * @internal
 */
import type { AkashicStore } from '../engine/akashic-store.js';
import { activeTurnLog, isConsumedElsewhere, trustedCalls, type ListedEntry, type Mutation, type StoredTurn } from '../engine/internal-seams.js';
import type { ChunkKind, ChunkRecord } from '../record/chunk-record.js';
import { checkContent, LIMITS, type ChunkRef } from '../api/chunk-input.js';
import { gatherCandidates } from './candidates.js';
import { denseRanking, fuseRankings } from './hybrid-select.js';
import { storage } from './layer-errors.js';
import type { CheckedModel } from './model-calls.js';
import type { ResolvedMemoryOptions } from './options.js';
import { countTokensYielding } from '../model/tokenizer.js';

const RELATED_CHANGED = Symbol('akashic.relatedChangedMeanwhile');

/**
 * A compare-and-swap of the commit lost: a related chunk the reconciliation rewrote or retired was changed or
 * removed by someone else after it was read (the commit's `expectVersion` / existence check). Nothing was applied.
 */
function isRelatedChange(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (code === 'AKASHIC_CONFLICT' || code === 'AKASHIC_NOT_FOUND') && !isConsumedElsewhere(err);
}

/**
 * True when a compaction failed only because related memory changed between its reads and its commit (nothing was
 * applied): compacting the same turns again reconciles them with what is there now.
 */
export function isRelatedChangedMeanwhile(err: unknown): boolean {
  return err !== null && typeof err === 'object' && (err as { [RELATED_CHANGED]?: boolean })[RELATED_CHANGED] === true;
}

/** What one compaction did. */
export interface CompactionResult {
  /** The new memory chunk, or null when joint compaction left no text for it (everything went into updates). */
  readonly chunk: ChunkRef | null;
  /** Ids of the consumed turns: the new chunk's provenance. */
  readonly turnIds: readonly string[];
  /** Tokens of the consumed turns (L_chunk). */
  readonly turnTokens: number;
  /** Tokens of the new chunk's text. */
  readonly tokenCount: number;
  readonly keywords: readonly string[];
  /** Chunk metas shown to SELECT (bounded). */
  readonly candidates: number;
  /** Directory entries scanned to choose them (grows with history; metadata only). */
  readonly scanned: number;
  /** Prior chunks handed to JOINT-COMPACT (at most p). */
  readonly related: readonly ChunkRef[];
  readonly updated: readonly ChunkRef[];
  readonly deleted: readonly ChunkRef[];
  /**
   * Why each updated or deleted chunk changed, when the model said (the embedded model names the retired statement,
   * the one that replaced it, the fact and the old and new values); also kept in the ended version's history.
   */
  readonly reasons: readonly { readonly chunk: ChunkRef; readonly reason: string }[];
  /** Chunk records read (the related bodies) and the distinct blocks that took. */
  readonly recordsRead: number;
  readonly blocksTouched: number;
}

/** What the compactor needs from AkashicMemory. @internal */
export interface CompactorContext {
  readonly store: AkashicStore;
  readonly model: CheckedModel;
  readonly options: ResolvedMemoryOptions;
  /**
   * A fresh monotonic ULID: new chunk ids (known before the batch, so deletions can name their successor) and
   * generated turn ids.
   */
  ulid(now: number): string;
}

/** Provenance union, oldest first, cut to what a record can hold (the newest turns are kept). */
function unionProvenance(old: readonly string[], added: readonly string[]): string[] {
  const all = [...new Set([...old, ...added])];
  return all.length > LIMITS.provenance ? all.slice(all.length - LIMITS.provenance) : all;
}

/**
 * Whether `next` is `prev` with statements taken out of its lines: the same lines, each equal to its old line or
 * made only of pieces of it (a left-out statement may leave ` …`).
 */
function onlyRemoves(prev: string, next: string): boolean {
  const a = prev.split('\n');
  const b = next.split('\n');
  if (a.length !== b.length || prev === next) return false;
  return b.every((line, i) => {
    const old = a[i]!;
    if (line === old) return true;
    return line
      .split(/\s*…\s*|(?<=[.!?])\s+/u)
      .filter((piece) => piece.trim() !== '')
      .every((piece) => old.includes(piece.trim()));
  });
}

const MEMORY_ONLY: ReadonlySet<ChunkKind> = new Set(['memory']);

/**
 * Compacts `turns` (a prefix of the namespace's active chunk) into one memory chunk. Requires: the caller holds the
 * namespace's queue, so the turns are still stored when the batch commits.
 */
export async function compactTurns(ctx: CompactorContext, userId: string, sessionId: string, turns: readonly StoredTurn[]): Promise<CompactionResult> {
  const { store, model, options } = ctx;
  if (turns.length === 0) throw new Error('compactTurns needs at least one turn');
  const tok = options.tokenizer;
  const turnIds = turns.map((t) => t.turnId);
  let turnTokens = 0;
  for (const t of turns) turnTokens += t.tokenCount;

  const m = await model.compress(turns.map((t) => ({ turnId: t.turnId, role: t.role, text: t.text, at: t.at })));
  const km = await model.buildMeta(m);
  // With an embedder, m's vector joins SELECT (fused with the model's ranking) and is stored with the chunk.
  const mVector = options.embedder === null ? undefined : (await options.embedder.embed([m]))[0];

  const scope = options.reconcileScope === 'session' ? sessionId : null;
  const bounds = { window: options.candidateWindow, prefilter: options.candidatePrefilter, keywords: options.candidateKeywords };
  // Only chunks this layer writes are reconciled: notes or summaries put by the application are never rewritten.
  // The turns share one agent/run scope (scopeGroups); the chunk carries it, and only chunks of exactly that scope
  // are reconciled: an agent never rewrites another agent's (or the unscoped) memory.
  const agentId = turns[0]!.agentId;
  const runId = turns[0]!.runId;
  const sameScope = (e: ListedEntry): boolean => e.entry.agentId === agentId && e.entry.runId === runId;
  const { candidates, scanned } = await gatherCandidates(store, userId, scope, km, bounds, { kinds: MEMORY_ONLY, accept: sameScope });
  const metas = candidates.map((c) => c.meta);
  const lexical = await model.select({ text: m, keywords: km }, metas, options.topP);
  const selected = mVector === undefined ? lexical : fuseRankings(lexical, denseRanking(mVector, metas, options.topP), options.topP);
  const byId = new Map(candidates.map((c) => [c.meta.id, c]));
  const chosen = selected.map((id) => byId.get(id)!);

  let related: { id: string; ref: ChunkRef; record: ChunkRecord }[] = [];
  let blocksTouched = 0;
  if (chosen.length > 0) {
    const read = await store[trustedCalls].getMany(userId, chosen.map((c) => c.ref), null);
    blocksTouched = read.blocksTouched;
    // A chunk deleted since the listing simply drops out of the reconciliation.
    related = chosen.flatMap((c, i) => {
      const record = read.chunks[i];
      return record === null || record === undefined ? [] : [{ id: c.meta.id, ref: c.ref, record }];
    });
  }

  // With nothing to reconcile there is nothing for JOINT-COMPACT to do: m is already the chunk.
  const joint =
    related.length === 0
      ? { text: m, updates: [], deletions: [], reasons: new Map<string, string>() }
      : await model.jointCompact(
          { text: m, keywords: km },
          related.map((r) => ({
            id: r.id,
            sessionId: r.ref.sessionId,
            createdAt: r.record.createdAt,
            tokenCount: r.record.tokenCount,
            keywords: r.record.keywords,
            text: r.record.text,
          })),
        );
  const hasChunk = joint.text.trim().length > 0;
  const keywords = !hasChunk ? [] : joint.text === m ? km : await model.buildMeta(joint.text);
  const relatedById = new Map(related.map((r) => [r.id, r]));
  const updates: { r: (typeof related)[number]; text: string; keywords: string[] }[] = [];
  for (const u of joint.updates) {
    const r = relatedById.get(u.id)!;
    updates.push({ r, text: u.text, keywords: await model.buildMeta(u.text) });
  }

  // With an embedder, a rewritten new chunk and every updated one get a vector of their text (one call, before the batch).
  const fresh = hasChunk && joint.text !== m;
  const vectors = options.embedder === null ? [] : await options.embedder.embed([...(fresh ? [joint.text] : []), ...updates.map((u) => u.text)]);
  const chunkVector = !hasChunk ? undefined : fresh ? vectors[0] : mVector;
  const updateVectors = fresh ? vectors.slice(1) : vectors;

  const now = store.options.now();
  const chunkId = hasChunk ? ctx.ulid(now) : null;
  const attributes = { tokenizer: tok.name };
  const mutations: Mutation[] = [];
  const tokenCount = hasChunk ? await countTokensYielding(tok, joint.text) : 0;
  if (chunkId !== null) {
    // Dated by its newest turn, so replayed conversations keep their own timeline.
    const createdAt = Math.max(...turns.map((t) => t.at));
    const content = checkContent(
      {
        kind: 'memory',
        text: joint.text,
        tokenCount,
        keywords,
        attributes,
        provenance: unionProvenance([], turnIds),
        supersedes: joint.deletions.map((id) => relatedById.get(id)!.ref),
        ...(chunkVector === undefined ? {} : { embedding: chunkVector }),
        ...(agentId === undefined ? {} : { agentId }),
        ...(runId === undefined ? {} : { runId }),
      },
      'compacted chunk',
    );
    mutations.push({ op: 'put', sessionId, chunkId, createdAt, content });
  }
  for (const [k, u] of updates.entries()) {
    const vector = updateVectors[k];
    const content = checkContent(
      {
        kind: 'memory',
        text: u.text,
        tokenCount: await countTokensYielding(tok, u.text),
        keywords: u.keywords,
        // A rewrite that only removes statements (a stale one retired inside its turn) keeps its turns: it says
        // nothing the new turns said, and adding them would break the line-per-turn alignment recall splits
        // passages by. Any other rewrite carries the new turns over (the text now holds what they said).
        provenance: onlyRemoves(u.r.record.text, u.text) ? [...u.r.record.provenance] : unionProvenance(u.r.record.provenance, turnIds),
        // A rewritten text without a vector of its own loses the old one (it described the old text).
        embedding: vector ?? null,
      },
      'updated chunk',
    );
    const by = chunkId === null ? {} : { supersededBy: { sessionId, chunkId } };
    const why = joint.reasons.get(u.r.id);
    mutations.push({ op: 'update', sessionId: u.r.ref.sessionId, chunkId: u.r.ref.chunkId, expectVersion: u.r.record.version, content, ...by, ...(why === undefined ? {} : { reason: why }) });
  }
  for (const id of joint.deletions) {
    const r = relatedById.get(id)!;
    const why = joint.reasons.get(id);
    mutations.push({
      op: 'delete',
      sessionId: r.ref.sessionId,
      chunkId: r.ref.chunkId,
      expectVersion: r.record.version,
      ...(chunkId === null ? {} : { supersededBy: { sessionId, chunkId } }),
      ...(why === undefined ? {} : { reason: why }),
    });
  }

  try {
    await storage(store[activeTurnLog].commitCompaction(userId, mutations, turns));
  } catch (err) {
    throw mutations.some((m) => m.op !== 'put') && isRelatedChange(err) ? Object.assign(err as object, { [RELATED_CHANGED]: true }) : err;
  }
  return {
    chunk: chunkId === null ? null : { sessionId, chunkId },
    turnIds,
    turnTokens,
    tokenCount,
    keywords,
    candidates: candidates.length,
    scanned,
    related: related.map((r) => r.ref),
    updated: updates.map((u) => u.r.ref),
    deleted: joint.deletions.map((id) => relatedById.get(id)!.ref),
    reasons: [...joint.reasons].map(([id, reason]) => ({ chunk: relatedById.get(id)!.ref, reason })),
    recordsRead: chosen.length,
    blocksTouched,
  };
}

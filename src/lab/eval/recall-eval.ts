/**
 * The recall-quality evaluation: replays conversations through MemAttention with the embedded
 * model and measures, per question, whether the recalled chunks hold the question's evidence turns; compares with
 * BM25 over raw turns at the same token budget. Writes no output: callers print the report.
 */
import { invalidArgument } from '../../errors.js';
import {
  DEFAULT_CANDIDATE_KEYWORDS,
  DEFAULT_CHUNK_GATE_TOKENS,
  DEFAULT_MEMORY_BUDGET_TOKENS,
  DEFAULT_RECALL_TOP_P,
  DEFAULT_RECALL_UNIT,
  DEFAULT_RELEVANCE_FLOOR,
  floorOption,
  intOption,
  type RecallUnit,
} from '../../memattention/options.js';
import { DEFAULT_KEYWORD_LIMIT } from '../../model/keywords.js';
import { createTokenizer } from '../../model/tokenizer.js';
import type { Conversation } from '../workload/conversation.js';
import {
  categoryRatiosOf,
  costsOf,
  ratiosOf,
  type CategoryRatios,
  type QuestionOutcome,
  type RecallCosts,
  type RecallRatios,
} from './recall-metrics.js';
import { replayWithBaseline } from './replay-with-baseline.js';
import { checkSelectVariant, type SelectVariant } from '../../model/select-variants.js';
import { holdsAnswerSentence } from './answer-sentence.js';
import { marginSpread, type MarginSpread } from './margin-spread.js';

/** Options of {@link evaluateRecall}. Every field is optional; the defaults are the library's. */
export interface RecallEvalOptions {
  /** p of recall's SELECT (`recallTopP`). Default the library default, 15. */
  readonly topP?: number;
  /** Token budget of both the recall and the baseline. Default the library default, 1536. */
  readonly memoryBudgetTokens?: number;
  /** τ_c of the gate. Default the library default, 1024. */
  readonly chunkGateTokens?: number;
  /**
   * Keywords the embedded model keeps per chunk (its `keywordLimit`); SELECT is shown at least that many per
   * candidate. Default the model's default, 24 (and the layer's 32 per candidate).
   */
  readonly keywordLimit?: number;
  /** What recall fills its budget with. Default the library default, 'sentence'. */
  readonly recallUnit?: RecallUnit;
  /** The recall's relevance floor (`relevanceFloor`). Default the library default. */
  readonly relevanceFloor?: number;
  /**
   * The SELECT of the replays (`model/select-variants.ts`): `lexical` (default, the embedded model), `hybrid` (plus
   * the offline word-mean embedder, fused with BM25), `dense` (the embedder's ranking alone, an experiment).
   */
  readonly select?: SelectVariant;
  /** A label for the report, e.g. `locomo` or `synthetic`. Default `custom`. */
  readonly dataset?: string;
  /** Called after each question with the questions done and the total. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** The settings a report was produced with. */
export interface RecallEvalConfig {
  /** `embedded`: the lexical, non-LLM default model. */
  readonly model: string;
  readonly keywordLimit: number;
  readonly candidateKeywords: number;
  readonly topP: number;
  readonly memoryBudgetTokens: number;
  readonly chunkGateTokens: number;
  readonly recallUnit: RecallUnit;
  readonly relevanceFloor: number;
  /** The SELECT variant (`lexical` unless asked otherwise). */
  readonly select: SelectVariant;
  /** Recall scope of the questions: `user` (LoCoMo questions span sessions). */
  readonly scope: 'user';
  readonly tokenizer: string;
  /** Backend of the per-conversation store: `memory-level` (results do not depend on the backend). */
  readonly store: 'memory-level';
  /** How the baseline ranks and cuts. */
  readonly baseline: string;
}

/** Figures of one conversation (one user). */
export interface ConversationRatios extends RecallRatios {
  readonly id: string;
  readonly sessions: number;
  readonly turns: number;
  /** Live chunks of the user once the replay ended. */
  readonly chunks: number;
}

/** What {@link evaluateRecall} measured. Ratios are in [0, 1], or null when no question has evidence. */
export interface RecallEvalReport extends RecallRatios, RecallCosts {
  readonly dataset: string;
  readonly config: RecallEvalConfig;
  readonly conversations: number;
  readonly sessions: number;
  readonly turns: number;
  /** Questions with no evidence turn: asked, but left out of every ratio. */
  readonly questionsWithoutEvidence: number;
  /** Live chunks per user after the replay, averaged over conversations. */
  readonly chunksPerUser: number | null;
  /** Mean tokens of those chunks. */
  readonly meanChunkTokens: number | null;
  readonly byCategory: readonly CategoryRatios[];
  readonly byConversation: readonly ConversationRatios[];
  /** The margin over the baseline per conversation, and its spread. */
  readonly marginByConversation: MarginSpread;
  /** Errors of background work (relocation) during the replays; expected 0. */
  readonly backgroundErrors: number;
  readonly elapsedMs: number;
}

const BASELINE = 'BM25 (wink, k1 1.2, b 0.75) over raw turns ingested so far; top-ranked turns with score > 0 until the budget is full';

function unitOf(v: unknown): RecallUnit {
  if (v !== 'sentence' && v !== 'passage' && v !== 'chunk') throw invalidArgument(`recallUnit must be 'sentence', 'passage' or 'chunk'`);
  return v;
}

/** Validates the options shared by the recall and QA evaluations and fills the library defaults. @internal */
export function resolveRecallEvalConfig(o: RecallEvalOptions): RecallEvalConfig {
  if (o === null || typeof o !== 'object') throw invalidArgument('evaluateRecall options must be an object');
  const keywordLimit = intOption('keywordLimit', o.keywordLimit, 1, 256, DEFAULT_KEYWORD_LIMIT);
  return {
    model: 'embedded',
    keywordLimit,
    candidateKeywords: Math.max(DEFAULT_CANDIDATE_KEYWORDS, keywordLimit),
    topP: intOption('topP', o.topP, 1, 64, DEFAULT_RECALL_TOP_P),
    memoryBudgetTokens: intOption('memoryBudgetTokens', o.memoryBudgetTokens, 0, 10_000_000, DEFAULT_MEMORY_BUDGET_TOKENS),
    chunkGateTokens: intOption('chunkGateTokens', o.chunkGateTokens, 1, 1_000_000, DEFAULT_CHUNK_GATE_TOKENS),
    recallUnit: o.recallUnit === undefined ? DEFAULT_RECALL_UNIT : unitOf(o.recallUnit),
    relevanceFloor: floorOption('relevanceFloor', o.relevanceFloor, DEFAULT_RELEVANCE_FLOOR),
    select: checkSelectVariant(o.select ?? 'lexical'),
    scope: 'user',
    tokenizer: createTokenizer().name,
    store: 'memory-level',
    baseline: BASELINE,
  };
}

/**
 * Replays each conversation into a fresh in-memory store (memory-level, background GC off) through an
 * `AkashicMemory` with the embedded model, asks every question as `replayConversation` does (user scope, once the
 * session holding its last evidence has ended), and for each question also runs the BM25-over-turns baseline over
 * the turns ingested so far, at the same budget.
 *
 * @example
 * ```ts
 * const report = await evaluateRecall(await loadLocomo('./locomo'), { dataset: 'locomo' });
 * console.log(report.evidenceRecallAt5, report.bm25EvidenceRecall);
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming a bad option; any error of the store or the layer.
 */
export async function evaluateRecall(conversations: readonly Conversation[], options: RecallEvalOptions = {}): Promise<RecallEvalReport> {
  const config = resolveRecallEvalConfig(options);
  if (!Array.isArray(conversations)) throw invalidArgument('evaluateRecall needs an array of conversations');
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') throw invalidArgument('option onProgress must be a function');
  const started = performance.now();
  const total = conversations.reduce((n, c) => n + c.questions.length, 0);
  const outcomes: QuestionOutcome[] = [];
  const byConversation: ConversationRatios[] = [];
  const chunkCounts: number[] = [];
  let chunkTokens = 0;
  let backgroundErrors = 0;

  for (const conv of conversations) {
    const run = await replayOne(conv, config, (o) => {
      outcomes.push(o);
      options.onProgress?.(outcomes.length, total);
    });
    backgroundErrors += run.backgroundErrors;
    chunkCounts.push(run.chunks);
    chunkTokens += run.chunkTokens;
    byConversation.push({
      id: conv.id,
      sessions: conv.sessions.length,
      turns: turnCount(conv),
      chunks: run.chunks,
      ...ratiosOf(run.outcomes),
    });
  }

  const chunks = chunkCounts.reduce((a, b) => a + b, 0);
  const ratios = ratiosOf(outcomes);
  return {
    dataset: options.dataset ?? 'custom',
    config,
    conversations: conversations.length,
    sessions: byConversation.reduce((n, c) => n + c.sessions, 0),
    turns: byConversation.reduce((n, c) => n + c.turns, 0),
    ...ratios,
    questionsWithoutEvidence: ratios.questions - ratios.questionsWithEvidence,
    ...costsOf(outcomes),
    chunksPerUser: conversations.length === 0 ? null : chunks / conversations.length,
    meanChunkTokens: chunks === 0 ? null : chunkTokens / chunks,
    byCategory: categoryRatiosOf(outcomes),
    byConversation,
    marginByConversation: marginSpread(byConversation),
    backgroundErrors,
    elapsedMs: Math.round(performance.now() - started),
  };
}

function turnCount(conv: Conversation): number {
  let n = 0;
  for (const s of conv.sessions) n += s.turns.length;
  return n;
}

interface ConversationRun {
  readonly outcomes: readonly QuestionOutcome[];
  readonly chunks: number;
  readonly chunkTokens: number;
  readonly backgroundErrors: number;
}

async function replayOne(conv: Conversation, config: RecallEvalConfig, onOutcome: (o: QuestionOutcome) => void): Promise<ConversationRun> {
  const outcomes: QuestionOutcome[] = [];
  const turnText = new Map<string, string>();
  for (const s of conv.sessions) for (const t of s.turns) turnText.set(t.turnId, t.text);
  const tok = createTokenizer();
  const run = await replayWithBaseline(conv, config, ({ question, recall, evidenceFound }, picked) => {
    const selected = new Set(picked.turnIds);
    const evidence = new Set(question.evidence);
    let memoryEvidenceTokens = 0;
    let memoryPassageTokens = 0;
    for (const p of recall.passages) {
      const n = tok.count(p.text);
      memoryPassageTokens += n;
      if (p.turnIds.some((t) => evidence.has(t))) memoryEvidenceTokens += n;
    }
    let bm25EvidenceTokens = 0;
    for (const t of picked.turnIds) if (evidence.has(t)) bm25EvidenceTokens += tok.count(turnText.get(t) ?? '');
    const answerFound = evidenceFound.filter((e) => {
      const parts = recall.passages.filter((p) => p.turnIds.includes(e));
      if (parts.length === 0) return true; // an active turn, returned whole
      if (parts.some((p) => p.turnIds.length > 1)) return true;
      return holdsAnswerSentence(turnText.get(e) ?? '', parts.map((p) => p.text).join('\n'), question.question, question.answer);
    });
    const o: QuestionOutcome = {
      conversationId: conv.id,
      category: question.category,
      evidence: question.evidence.length,
      memoryFound: evidenceFound.length,
      memoryFoundAnswer: answerFound.length,
      bm25Found: question.evidence.filter((e) => selected.has(e)).length,
      memoryTokens: recall.tokenCount,
      memoryEvidenceTokens,
      memoryPassageTokens,
      bm25EvidenceTokens,
      bm25Tokens: picked.tokenCount,
      chunksRecalled: recall.chunks.length,
      chunksDropped: recall.dropped,
      blocksTouched: recall.blocksTouched,
    };
    outcomes.push(o);
    onOutcome(o);
  });
  return { outcomes, ...run };
}

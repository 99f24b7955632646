/**
 * Options of the MemAttention layer (the Akashic paper §4.1, §4.3): the user-facing `MemoryOptions`, the filled-defaults
 * `ResolvedMemoryOptions`, and the validator that names the bad option.
 */
import { invalidArgument } from '../errors.js';
import { keysOf, rejectUnknownKeys } from '../api/option-keys.js';
import { CHUNK_KINDS, type ChunkKind } from '../record/chunk-record.js';
import { EmbeddedModel } from '../model/embedded-model.js';
import type { MemoryModel } from '../model/memory-model.js';
import type { Embedder } from '../model/embedder.js';
import { CheckedEmbedder } from './embedding-calls.js';
import { createTokenizer, type Tokenizer } from '../model/tokenizer.js';

/** Which chunks a compaction or a recall may look at: the current session's (the paper's T[u][s]) or all of the user's. */
export type MemoryScope = 'session' | 'user';

/** The default of `recallScope` and `reconcileScope`: memory follows the user across sessions. */
export const DEFAULT_MEMORY_SCOPE: MemoryScope = 'user';

/** What a recall fills its budget with (see `MemoryOptions.recallUnit`). */
export type RecallUnit = 'sentence' | 'passage' | 'chunk';

/** The default recall unit: extractive sentences (docs/recall-quality.md has the measurements). */
export const DEFAULT_RECALL_UNIT: RecallUnit = 'sentence';

/** τ_c, the chunk gate in model tokens (the Akashic paper §5.5). */
export const DEFAULT_CHUNK_GATE_TOKENS = 1024;
/** p, the selection width of SELECT (the Akashic paper §4.1). */
export const DEFAULT_TOP_P = 5;
/** p of a recall: chunks SELECT may pick for a recall, whose passages then compete for the budget. */
export const DEFAULT_RECALL_TOP_P = 15;
/** memory_budget_tokens of a recall. */
export const DEFAULT_MEMORY_BUDGET_TOKENS = 1536;
/** τ_assoc of COLOCATE. */
export const DEFAULT_TAU_ASSOC = 0.7;
/** Newest chunk metas always shown to SELECT. */
export const DEFAULT_CANDIDATE_WINDOW = 256;
/** Older chunk metas shown to SELECT when they share keywords with the query. */
export const DEFAULT_CANDIDATE_PREFILTER = 64;
/** Keywords per candidate shown to SELECT. */
export const DEFAULT_CANDIDATE_KEYWORDS = 64;
/** One COLOCATE attempt per this many recalls of a user. */
export const DEFAULT_RELOCATE_EVERY_RECALLS = 10;

/**
 * The relevance floor of a recall: a passage scoring below this share of the recall's best passage is not
 * recalled (docs/recall-quality.md, "Relevance floor", has the measurements behind the value).
 */
export const DEFAULT_RELEVANCE_FLOOR = 0.05;

/** Co-accesses a pair needs before online relocation moves it together (see relocateMinRecurrence). */
export const DEFAULT_RELOCATE_MIN_RECURRENCE = 3;
export interface MemoryOptions {
  /** The model behind COMPRESS, BUILDMETA, SELECT, JOINT-COMPACT and COLOCATE. Default: `new EmbeddedModel()`. */
  readonly model?: MemoryModel;
  /**
   * Dense vectors for chunks and queries (e.g. `OpenAIEmbedder` over any `/v1/embeddings` server). With one, each
   * compacted chunk is stored with its vector, and SELECT fuses the cosine ranking with the model's by reciprocal
   * rank; COLOCATE and GC grouping associate chunks by cosine too. Default: none.
   */
  readonly embedder?: Embedder;
  /** Counts tokens for the gate, chunk token counts and the recall budget. Default: `createTokenizer()` (o200k_base). */
  readonly tokenizer?: Tokenizer;
  /** τ_c: an active chunk is compacted once its turns hold at least this many tokens. Default 1024. */
  readonly chunkGateTokens?: number;
  /** p of compaction: prior chunks SELECT picks for joint compaction. Default 5. */
  readonly topP?: number;
  /**
   * p of a recall: chunks SELECT may pick for a recall. With passage recall they are a pool larger than the budget
   * holds, and their best passages fill it. Default 15.
   */
  readonly recallTopP?: number;
  /**
   * Which prior chunks a compaction may reconcile with (and so update or delete). Default 'user': a new chunk may
   * correct what the user said in any earlier session ("I started at Globex" retires "I work at Acme" of last
   * week). 'session' keeps the paper's namespace T[u][s]: a chunk reconciles only with its own session's.
   */
  readonly reconcileScope?: MemoryScope;
  /**
   * Default scope of `recall` when the call does not give one. Default 'user': a new conversation remembers the
   * earlier ones. 'session' searches only the calling session's chunks (the paper's T[u][s]).
   */
  readonly recallScope?: MemoryScope;
  /** Default token budget of the memory text a recall returns. Default 1536. */
  readonly memoryBudgetTokens?: number;
  /**
   * Chunk kinds a recall may return. Default ['memory', 'summary']: compacted memory, not the raw 'turn' chunks
   * or application 'note's (adapter items, transcripts) that share the user's namespace.
   */
  readonly recallKinds?: readonly ChunkKind[];
  /**
   * What a recall fills its budget with: 'sentence' (default) takes the sentences of the selected chunks' turns that
   * match the query best, and those of the turns around a match, each under its speaker and its chunk's date line,
   * in time order (extractive: the rest of a turn is left out, ` … ` marks a gap); 'passage' takes whole turns the
   * same way; 'chunk' takes whole chunks in SELECT's order. Chunks whose text is not one line per turn (a model's
   * summary) are taken whole in every unit.
   */
  readonly recallUnit?: RecallUnit;
  /**
   * The relevance floor, in [0, 1]: a recall leaves out every passage (sentence, turn or chunk, per `recallUnit`)
   * that matches nothing or scores below this share of its best passage's score, even when budget remains, so a
   * small memory is not returned whole and unrelated chunks do not pad a large one. 0 keeps every passage that
   * matches at all. Default DEFAULT_RELEVANCE_FLOOR.
   */
  readonly relevanceFloor?: number;
  /** N: the newest chunk metas of the scope always shown to SELECT. Default 256. */
  readonly candidateWindow?: number;
  /** M: at most this many older metas sharing a keyword with the query are added. Default 64. */
  readonly candidatePrefilter?: number;
  /** Keywords per candidate passed to SELECT (a chunk's most important first). Default 64. */
  readonly candidateKeywords?: number;
  /** τ_assoc of COLOCATE, in [0, 1]. Default 0.7. */
  readonly tauAssoc?: number;
  /**
   * Rate limit of online relocation: per user, one COLOCATE (and the relocations it asks for) per this many recalls;
   * 0 disables online relocation. Default 10.
   */
  readonly relocateEveryRecalls?: number;
  /**
   * Online relocation moves chunks together only once requests have materialized them together at least this many
   * times (1 = on the first co-access). Default DEFAULT_RELOCATE_MIN_RECURRENCE.
   */
  readonly relocateMinRecurrence?: number;
  /** Run relocation on the recall's path and report its outcome (tests). Default false: it runs in the background. */
  readonly relocateSync?: boolean;
  /** Compact a session's partial active chunk after this many ms without a new turn; 0 disables. Default 0. */
  readonly idleCompactMs?: number;
  /** Receives errors of background work (idle compaction, background relocation), which has no caller to throw to. */
  readonly onBackgroundError?: (err: unknown) => void;
  /**
   * When the gate's compaction runs. 'background' (default): `appendTurn` and `completeRequest` resolve once the
   * turns are durable in the active chunk, and the compaction runs in the write-back queue (`flush()` waits for
   * it). 'await': they resolve after the compaction, and report it (`compacted`, `compactionError`): for scripts
   * and tests that want each append's compaction in hand.
   */
  readonly writeBack?: WriteBackMode;
  /** Namespaces whose background compaction may run at once. Default 2. */
  readonly writeBackConcurrency?: number;
  /**
   * Namespaces that may wait in the write-back queue. When it is full, an append that needs a compaction resolves
   * only once a queued namespace has started (its turns are durable before it waits). Default 1024.
   */
  readonly writeBackQueueLimit?: number;
  /** First delay before a failed background compaction is retried, in ms; each retry doubles it (≤ 60 s). Default 1000. */
  readonly writeBackRetryMs?: number;
  /** Retries of a failed background compaction before it waits for the namespace's next append. Default 5. */
  readonly writeBackMaxRetries?: number;
}

/** When the gate's compaction runs (see `MemoryOptions.writeBack`). */
export type WriteBackMode = 'background' | 'await';

/** Options with every default filled in. @internal */
export interface ResolvedMemoryOptions {
  readonly model: MemoryModel;
  readonly embedder: CheckedEmbedder | null;
  readonly tokenizer: Tokenizer;
  readonly chunkGateTokens: number;
  readonly topP: number;
  readonly recallTopP: number;
  readonly reconcileScope: MemoryScope;
  readonly recallScope: MemoryScope;
  readonly memoryBudgetTokens: number;
  readonly recallKinds: ReadonlySet<ChunkKind>;
  readonly recallUnit: RecallUnit;
  readonly relevanceFloor: number;
  readonly candidateWindow: number;
  readonly candidatePrefilter: number;
  readonly candidateKeywords: number;
  readonly tauAssoc: number;
  readonly relocateEveryRecalls: number;
  readonly relocateMinRecurrence: number;
  readonly relocateSync: boolean;
  readonly idleCompactMs: number;
  readonly onBackgroundError: (err: unknown) => void;
  readonly writeBack: WriteBackMode;
  readonly writeBackConcurrency: number;
  readonly writeBackQueueLimit: number;
  readonly writeBackRetryMs: number;
  readonly writeBackMaxRetries: number;
}

/** Validates an integer option in [min, max]; throws AKASHIC_INVALID_ARGUMENT naming it. @internal */
export function intOption(name: string, v: unknown, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    throw invalidArgument(`option ${name} must be an integer in [${min}, ${max}], got ${show(v)}`);
  }
  return v;
}

/** Validates a scope option. @internal */
export function scopeOption(name: string, v: unknown, dflt: MemoryScope): MemoryScope {
  if (v === undefined) return dflt;
  if (v !== 'session' && v !== 'user') throw invalidArgument(`option ${name} must be 'session' or 'user', got ${show(v)}`);
  return v;
}

function isModel(m: unknown): m is MemoryModel {
  if (m === null || typeof m !== 'object') return false;
  const o = m as Record<string, unknown>;
  return ['compress', 'buildMeta', 'select', 'jointCompact', 'colocate', 'group'].every((f) => typeof o[f] === 'function');
}

/** Validates options and fills defaults; throws AKASHIC_INVALID_ARGUMENT naming the bad option. @internal */
const MEMORY_KEYS = keysOf<MemoryOptions>()(
  'model', 'embedder', 'tokenizer', 'chunkGateTokens', 'topP', 'recallTopP', 'reconcileScope', 'recallScope', 'memoryBudgetTokens', 'recallKinds',
  'recallUnit', 'candidateWindow', 'candidatePrefilter', 'candidateKeywords', 'tauAssoc', 'relocateEveryRecalls', 'relocateMinRecurrence',
  'relocateSync', 'idleCompactMs', 'onBackgroundError', 'relevanceFloor', 'writeBack', 'writeBackConcurrency', 'writeBackQueueLimit',
  'writeBackRetryMs', 'writeBackMaxRetries',
);

export function resolveMemoryOptions(o: MemoryOptions = {}): ResolvedMemoryOptions {
  if (o === null || typeof o !== 'object') throw invalidArgument('options must be an object');
  rejectUnknownKeys(o, MEMORY_KEYS, 'memory options');
  if (o.model !== undefined && !isModel(o.model)) throw invalidArgument('option model must implement MemoryModel');
  if (o.tokenizer !== undefined && (o.tokenizer === null || typeof o.tokenizer.count !== 'function')) {
    throw invalidArgument('option tokenizer must have a count(text) method');
  }
  const tauAssoc = o.tauAssoc ?? DEFAULT_TAU_ASSOC;
  if (typeof tauAssoc !== 'number' || !(tauAssoc >= 0 && tauAssoc <= 1)) throw invalidArgument(`option tauAssoc must be in [0, 1], got ${String(tauAssoc)}`);
  if (o.relocateSync !== undefined && typeof o.relocateSync !== 'boolean') throw invalidArgument('option relocateSync must be a boolean');
  if (o.onBackgroundError !== undefined && typeof o.onBackgroundError !== 'function') throw invalidArgument('option onBackgroundError must be a function');
  if (o.writeBack !== undefined && o.writeBack !== 'background' && o.writeBack !== 'await') throw invalidArgument(`option writeBack must be 'background' or 'await', got ${show(o.writeBack)}`);
  return {
    model: o.model ?? new EmbeddedModel(),
    ...tokenizerAndEmbedder(o.tokenizer ?? createTokenizer(), o.embedder),
    chunkGateTokens: intOption('chunkGateTokens', o.chunkGateTokens, 1, 1_000_000, DEFAULT_CHUNK_GATE_TOKENS),
    topP: intOption('topP', o.topP, 1, 64, DEFAULT_TOP_P),
    recallTopP: intOption('recallTopP', o.recallTopP, 1, 64, DEFAULT_RECALL_TOP_P),
    reconcileScope: scopeOption('reconcileScope', o.reconcileScope, DEFAULT_MEMORY_SCOPE),
    recallScope: scopeOption('recallScope', o.recallScope, DEFAULT_MEMORY_SCOPE),
    memoryBudgetTokens: intOption('memoryBudgetTokens', o.memoryBudgetTokens, 0, 10_000_000, DEFAULT_MEMORY_BUDGET_TOKENS),
    recallKinds: kindsOption(o.recallKinds),
    recallUnit: unitOption(o.recallUnit),
    relevanceFloor: floorOption('relevanceFloor', o.relevanceFloor, DEFAULT_RELEVANCE_FLOOR),
    candidateWindow: intOption('candidateWindow', o.candidateWindow, 1, 100_000, DEFAULT_CANDIDATE_WINDOW),
    candidatePrefilter: intOption('candidatePrefilter', o.candidatePrefilter, 0, 100_000, DEFAULT_CANDIDATE_PREFILTER),
    candidateKeywords: intOption('candidateKeywords', o.candidateKeywords, 1, 256, DEFAULT_CANDIDATE_KEYWORDS),
    tauAssoc,
    relocateEveryRecalls: intOption('relocateEveryRecalls', o.relocateEveryRecalls, 0, 1_000_000, DEFAULT_RELOCATE_EVERY_RECALLS),
    relocateMinRecurrence: intOption('relocateMinRecurrence', o.relocateMinRecurrence, 1, 1_000_000, DEFAULT_RELOCATE_MIN_RECURRENCE),
    relocateSync: o.relocateSync ?? false,
    idleCompactMs: intOption('idleCompactMs', o.idleCompactMs, 0, 7 * 24 * 3600 * 1000, 0),
    onBackgroundError: o.onBackgroundError ?? (() => undefined),
    writeBack: o.writeBack ?? 'background',
    writeBackConcurrency: intOption('writeBackConcurrency', o.writeBackConcurrency, 1, 1024, 2),
    writeBackQueueLimit: intOption('writeBackQueueLimit', o.writeBackQueueLimit, 1, 1_000_000, 1024),
    writeBackRetryMs: intOption('writeBackRetryMs', o.writeBackRetryMs, 0, 3_600_000, 1000),
    writeBackMaxRetries: intOption('writeBackMaxRetries', o.writeBackMaxRetries, 0, 1000, 5),
  };
}

/** Validates a relevance floor (a share in [0, 1]). @internal */
export function floorOption(name: string, v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw invalidArgument(`option ${name} must be a number in [0, 1], got ${show(v)}`);
  return v;
}

function unitOption(v: unknown): RecallUnit {
  if (v === undefined) return DEFAULT_RECALL_UNIT;
  if (v !== 'sentence' && v !== 'passage' && v !== 'chunk') throw invalidArgument(`option recallUnit must be 'sentence', 'passage' or 'chunk', got ${show(v)}`);
  return v;
}

function kindsOption(v: unknown): ReadonlySet<ChunkKind> {
  if (v === undefined) return new Set<ChunkKind>(['memory', 'summary']);
  if (!Array.isArray(v) || v.length === 0 || !v.every((k) => CHUNK_KINDS.includes(k as ChunkKind))) {
    throw invalidArgument(`option recallKinds must be a non-empty array of ${CHUNK_KINDS.join(', ')}`);
  }
  return new Set(v as ChunkKind[]);
}

/** Prints any value for an error message; String() throws on null-prototype objects. */
function show(v: unknown): string {
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/** The tokenizer, and the checked embedder (none: null) that estimates with it. */
function tokenizerAndEmbedder(tokenizer: Tokenizer, embedder: Embedder | undefined): { tokenizer: Tokenizer; embedder: CheckedEmbedder | null } {
  return { tokenizer, embedder: embedder === undefined ? null : new CheckedEmbedder(embedder, tokenizer) };
}

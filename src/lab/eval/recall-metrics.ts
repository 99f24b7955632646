/**
 * Counting for the recall evaluation: what is recorded per question, and how questions add up into ratios.
 * Kept apart from the replay so the arithmetic can be checked on hand-made outcomes.
 *
 * @internal
 */
import { QUESTION_CATEGORY } from '../workload/conversation.js';

/** What one question produced, for MemAttention's recall and for the BM25 baseline. */
export interface QuestionOutcome {
  readonly conversationId: string;
  readonly category: number;
  /** Evidence turns of the question (ids that resolved to a turn of the conversation). */
  readonly evidence: number;
  /** Evidence turns found in the recalled chunks' provenance or the returned active turns. */
  readonly memoryFound: number;
  /** Of those, evidence turns whose recalled part holds the answer sentence (`holdsAnswerSentence`). */
  readonly memoryFoundAnswer: number;
  /** Evidence turns among the baseline's selected turns. */
  readonly bm25Found: number;
  /** Tokens of the recalled memory text. */
  readonly memoryTokens: number;
  /** Tokens of the recalled passages that carry an evidence turn (each passage counted alone, no date lines). */
  readonly memoryEvidenceTokens: number;
  /** Tokens of the recalled passages, counted the same way (the denominator of the evidence token share). */
  readonly memoryPassageTokens: number;
  /** Tokens of the baseline's selected turns that are evidence turns. */
  readonly bm25EvidenceTokens: number;
  readonly bm25Tokens: number;
  readonly chunksRecalled: number;
  /** Chunks SELECT picked that the budget cut dropped. */
  readonly chunksDropped: number;
  readonly blocksTouched: number;
}

/** Ratios of a set of questions. A ratio is null when no question of the set has evidence. */
export interface RecallRatios {
  /** Questions asked, with or without evidence. */
  readonly questions: number;
  /** Questions with at least one evidence turn: the denominator of the two `…EvidenceRecall` ratios. */
  readonly questionsWithEvidence: number;
  /** Evidence turns over those questions: the denominator of the two `…TurnRecall` ratios. */
  readonly evidenceTurns: number;
  /** Share of questions whose evidence turns ALL lie in the recalled chunks (evidence recall@p, p = config.topP). */
  readonly evidenceRecallAt5: number | null;
  /** Share of evidence turns recovered, pooled over questions (micro average). */
  readonly turnRecall: number | null;
  /**
   * Like `evidenceRecallAt5`, but an evidence turn counts only when its recalled part holds the sentence that
   * carries the answer (`holdsAnswerSentence`): the stricter figure for sentence recall. The baseline keeps whole
   * turns, so its counterpart is `bm25EvidenceRecall`.
   */
  readonly answerSentenceRecall: number | null;
  /** Share of questions whose evidence turns all lie in the baseline's selected turns. */
  readonly bm25EvidenceRecall: number | null;
  /** Share of evidence turns the baseline recovered, pooled. */
  readonly bm25TurnRecall: number | null;
  /**
   * Share of the recalled passages' tokens that lie in evidence turns, pooled over the questions with evidence:
   * how lean a recall is (1 = nothing but evidence). Null when nothing was recalled.
   */
  readonly evidenceTokenShare: number | null;
  /** The same share for the baseline's selected turns. */
  readonly bm25EvidenceTokenShare: number | null;
}

/** Ratios of one LoCoMo question category. */
export interface CategoryRatios extends RecallRatios {
  readonly category: number;
  /** LoCoMo's name of the category, e.g. `single-hop`; `other` for a number LoCoMo does not define. */
  readonly name: string;
}

/** Means over every asked question (with or without evidence). Null when no question was asked. */
export interface RecallCosts {
  readonly meanTokensRecalled: number | null;
  readonly meanBm25Tokens: number | null;
  readonly meanChunksRecalled: number | null;
  readonly meanChunksDropped: number | null;
  readonly meanBlocksTouched: number | null;
}

const CATEGORY_NAMES: ReadonlyMap<number, string> = new Map([
  [QUESTION_CATEGORY.multiHop, 'multi-hop'],
  [QUESTION_CATEGORY.temporal, 'temporal'],
  [QUESTION_CATEGORY.openDomain, 'open-domain'],
  [QUESTION_CATEGORY.singleHop, 'single-hop'],
  [QUESTION_CATEGORY.adversarial, 'adversarial'],
]);

/** LoCoMo's name of a category number. */
export function categoryName(category: number): string {
  return CATEGORY_NAMES.get(category) ?? 'other';
}

function ratio(n: number, d: number): number | null {
  return d === 0 ? null : n / d;
}

function mean(outcomes: readonly QuestionOutcome[], f: (o: QuestionOutcome) => number): number | null {
  if (outcomes.length === 0) return null;
  let sum = 0;
  for (const o of outcomes) sum += f(o);
  return sum / outcomes.length;
}

/**
 * Adds up outcomes. Questions without evidence count in `questions` only: with nothing to find, "all evidence
 * found" would be vacuously true and would inflate every ratio.
 */
export function ratiosOf(outcomes: readonly QuestionOutcome[]): RecallRatios {
  let withEvidence = 0;
  let evidenceTurns = 0;
  let memoryAll = 0;
  let answerAll = 0;
  let memoryTurns = 0;
  let bm25All = 0;
  let bm25Turns = 0;
  let evidenceTokens = 0;
  let passageTokens = 0;
  let bm25EvidenceTokens = 0;
  let bm25Tokens = 0;
  for (const o of outcomes) {
    if (o.evidence === 0) continue;
    withEvidence++;
    evidenceTokens += o.memoryEvidenceTokens;
    passageTokens += o.memoryPassageTokens;
    bm25EvidenceTokens += o.bm25EvidenceTokens;
    bm25Tokens += o.bm25Tokens;
    evidenceTurns += o.evidence;
    memoryTurns += o.memoryFound;
    bm25Turns += o.bm25Found;
    if (o.memoryFound === o.evidence) memoryAll++;
    if (o.memoryFoundAnswer === o.evidence) answerAll++;
    if (o.bm25Found === o.evidence) bm25All++;
  }
  return {
    questions: outcomes.length,
    questionsWithEvidence: withEvidence,
    evidenceTurns,
    evidenceRecallAt5: ratio(memoryAll, withEvidence),
    turnRecall: ratio(memoryTurns, evidenceTurns),
    answerSentenceRecall: ratio(answerAll, withEvidence),
    bm25EvidenceRecall: ratio(bm25All, withEvidence),
    bm25TurnRecall: ratio(bm25Turns, evidenceTurns),
    evidenceTokenShare: ratio(evidenceTokens, passageTokens),
    bm25EvidenceTokenShare: ratio(bm25EvidenceTokens, bm25Tokens),
  };
}

/** Ratios per category, in category order. */
export function categoryRatiosOf(outcomes: readonly QuestionOutcome[]): CategoryRatios[] {
  const by = new Map<number, QuestionOutcome[]>();
  for (const o of outcomes) by.set(o.category, [...(by.get(o.category) ?? []), o]);
  return [...by.entries()]
    .sort(([a], [b]) => a - b)
    .map(([category, os]) => ({ category, name: categoryName(category), ...ratiosOf(os) }));
}

export function costsOf(outcomes: readonly QuestionOutcome[]): RecallCosts {
  return {
    meanTokensRecalled: mean(outcomes, (o) => o.memoryTokens),
    meanBm25Tokens: mean(outcomes, (o) => o.bm25Tokens),
    meanChunksRecalled: mean(outcomes, (o) => o.chunksRecalled),
    meanChunksDropped: mean(outcomes, (o) => o.chunksDropped),
    meanBlocksTouched: mean(outcomes, (o) => o.blocksTouched),
  };
}

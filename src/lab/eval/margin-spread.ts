/**
 * How the margin over the baseline spreads across conversations: a set's overall margin can come from one
 * conversation far ahead while most sit below it, so the report gives the margin of each conversation's questions
 * (memory's evidence recall minus the baseline's) summarised by its mean, median and extremes.
 * @internal
 */
import type { RecallRatios } from './recall-metrics.js';

/** The margin a conversation should reach; the count of conversations below it is reported. */
export const MARGIN_TARGET = 0.1;

/** The spread of per-conversation margins; every figure is null when no conversation has a question with evidence. */
export interface MarginSpread {
  /** Conversations with at least one question with evidence. */
  readonly conversations: number;
  readonly mean: number | null;
  /** The middle margin (the mean of the two middle ones for an even count). */
  readonly median: number | null;
  readonly min: number | null;
  readonly max: number | null;
  /** Conversations whose margin is below {@link MARGIN_TARGET}. */
  readonly belowTarget: number;
}

/** The margins of `conversations` (evidence recall minus the baseline's) and their spread. */
export function marginSpread(conversations: readonly RecallRatios[]): MarginSpread {
  const margins: number[] = [];
  for (const c of conversations) {
    if (c.evidenceRecallAt5 !== null && c.bm25EvidenceRecall !== null) margins.push(c.evidenceRecallAt5 - c.bm25EvidenceRecall);
  }
  if (margins.length === 0) return { conversations: 0, mean: null, median: null, min: null, max: null, belowTarget: 0 };
  const sorted = [...margins].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  // A margin of exactly the target, up to rounding of the ratios, is not below it.
  const below = margins.filter((m) => m < MARGIN_TARGET - 1e-9).length;
  return {
    conversations: margins.length,
    mean: margins.reduce((a, b) => a + b, 0) / margins.length,
    median,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    belowTarget: below,
  };
}

/**
 * The relevance floor of a recall: which scored passages (or sentences) may fill the budget at all. A passage is
 * eligible when its score is above zero and at least `floor` × the best score of the recall; the rest are left
 * out even when budget remains, so a small memory is not returned whole (chit-chat included) and chunks that match
 * nothing do not pad a larger one. The floor is relative because a model's `scorePassages` may use any positive
 * scale. docs/recall-quality.md has the measurements behind the default.
 * @internal
 */

/**
 * The lowest score a passage may have to be recalled, given every score of the recall; null when no passage scores
 * above zero: the scorer saw no match at all, so the chunks were chosen on another signal (an embedder's cosine
 * ranking) and the floor cannot judge them — then every passage stays eligible, in rank order.
 */
export function floorScore(scores: Iterable<number>, floor: number): number | null {
  let best = 0;
  for (const s of scores) if (s > best) best = s;
  return best > 0 ? floor * best : null;
}

/** Whether a passage with `score` passes a floor computed by {@link floorScore}. */
export function aboveFloor(score: number, threshold: number | null): boolean {
  return threshold === null || (score > 0 && score >= threshold);
}

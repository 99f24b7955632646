/**
 * Scoring a reader's answer against LoCoMo's gold answer, as LoCoMo's QA protocol does: token-level F1 after the
 * usual normalization (lower case, punctuation, the articles a/an/the and the word "and" removed, whitespace
 * collapsed), tokens reduced to their Porter2 stems (wink-porter2-stemmer). Per category:
 * - multi-hop (1): the gold answer lists several items separated by commas; each gold item takes its best F1
 *   against the answer's comma-separated parts, and the item scores are averaged;
 * - open-domain (3): only the gold answer's first `;`-separated alternative counts;
 * - adversarial (5): the right answer is that the conversation never said it, so an answer scores 1 when it says
 *   so ("not mentioned", "no information available") and 0 otherwise;
 * - the others: plain F1.
 * @internal
 */
import porter2Stem from 'wink-porter2-stemmer';

const ARTICLES = /\b(a|an|the|and)\b/gu;

/** Normalized tokens of a text (see the module comment), stemmed. */
export function answerTokens(text: string): string[] {
  const s = text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(ARTICLES, ' ');
  return s
    .split(/\s+/u)
    .filter((t) => t !== '')
    .map((t) => (/^[a-z]+$/u.test(t) ? porter2Stem(t) : t));
}

/** Token-level F1 of `prediction` against `gold` (multiset overlap); 0 when either has no token. */
export function tokenF1(prediction: string, gold: string): number {
  const p = answerTokens(prediction);
  const g = answerTokens(gold);
  if (p.length === 0 || g.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      common++;
      counts.set(t, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Multi-answer F1: mean over the gold items of each one's best F1 against the prediction's parts. */
export function multiAnswerF1(prediction: string, gold: string): number {
  const parts = prediction.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const items = gold.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0 || items.length === 0) return 0;
  const best = items.map((g) => Math.max(...parts.map((p) => tokenF1(p, g))));
  return best.reduce((a, b) => a + b, 0) / best.length;
}

/** Phrases by which an answer says the conversation does not hold it. */
const NOT_MENTIONED = /\b(not mentioned|no information available)\b/iu;

/** The score of one answer to one question of `category` with `gold` (see the module comment). */
export function scoreAnswer(category: number, prediction: string, gold: string): number {
  switch (category) {
    case 1:
      return multiAnswerF1(prediction, gold);
    case 3:
      return tokenF1(prediction, gold.split(';')[0] ?? '');
    case 5:
      return NOT_MENTIONED.test(prediction) ? 1 : 0;
    default:
      return tokenF1(prediction, gold);
  }
}

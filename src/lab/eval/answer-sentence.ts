/**
 * A stricter count of a recalled evidence turn, for recall that keeps sentences rather than whole turns.
 *
 * `evidenceRecallAt5` counts an evidence turn as recalled when any part of it was recalled, so a sentence recall
 * that kept only a turn's small talk ("Hey! How's it going?") would score as if it had kept the fact. The answer
 * sentence rule asks instead for the sentence of the turn that carries the answer: the sentence sharing the most
 * content words (`termsOf`) with the question and its reference answer (any one of them on a tie); when no sentence
 * shares any, the whole turn is required. A one-sentence turn, a turn kept whole, and a passage carrying several
 * turns (a chunk not written one line per turn) always count. The BM25 baseline keeps whole turns, so for it both
 * counts are the same.
 * @internal
 */
import { sentencesOf } from '../../memattention/sentence-passages.js';
import { termsOf } from '../../model/keywords.js';

/** Whether `kept` (the recalled text of one evidence turn) holds the sentence of `turnText` that answers. */
export function holdsAnswerSentence(turnText: string, kept: string, question: string, answer: string): boolean {
  const sentences = sentencesOf(turnText);
  if (sentences.length <= 1) return true;
  const asked = new Set(termsOf(`${question}\n${answer}`));
  const overlap = sentences.map((s) => new Set(termsOf(s).filter((t) => asked.has(t))).size);
  const most = Math.max(...overlap);
  if (most === 0) return sentences.every((s) => kept.includes(s));
  return sentences.some((s, i) => overlap[i] === most && kept.includes(s));
}

/**
 * What kind of answer a question expects, read from its first words, and whether a passage can hold one. Only one
 * kind is read: a question that asks for something named ("Which places has Hollis traveled to?", "Where does Kaia
 * work now?", "Who moved to Lisbon?") is answered by a passage naming a place, a person, a company or a title,
 * which a lexical score does not see: "I just got back from Meandmer!" shares no word with the question, and the
 * small talk around it often shares as many. A name is a capitalised word that does not open a sentence.
 * @internal
 */

const ASKS_FOR_NAME = /^\s*(?:which|where|who|whom|whose)\b|\bwhat(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+)?names?\b/i;

/** Whether `question` asks for something named (a which, where or who question, or one asking for a name). */
export function asksForName(question: string): boolean {
  return ASKS_FOR_NAME.test(question);
}

/** Capitalised words that are not names of a thing the question could ask for. */
const NOT_A_NAME = new Set(
  (
    'i i\'m i\'ve i\'d i\'ll ok okay monday tuesday wednesday thursday friday saturday sunday january february march ' +
    'april may june july august september october november december'
  ).split(' '),
);

/**
 * A capitalised word after a word character and a space (so not the first word of the text, of a sentence or of a
 * line, nor the word after `role: `).
 */
const INNER_CAPITAL = /(?<=[\p{L}\p{N},;'’)-] )\p{Lu}[\p{L}'’-]*/gu;

/** Whether `text` names something: a capitalised word other than the first of a sentence, `I` or a day or month. */
export function namesSomething(text: string): boolean {
  for (const m of text.matchAll(INNER_CAPITAL)) if (!NOT_A_NAME.has(m[0].toLowerCase())) return true;
  return false;
}

const COUNT_WORDS = 'two|three|four|five|six|seven|eight|nine|ten|eleven|twelve';
/** "which two places", "the first three races", "four dishes": a count before a plural noun, with a first/last before it. */
const COUNT = new RegExp(`\\b(?:(?:first|last)\\s+)?(?:${COUNT_WORDS})(?=\\s+[\\p{L}'-]+s\\b)`, 'giu');
/** "most recently", "lately", "the latest", "the earliest": in which order the answer is wanted. */
const ORDER = /\b(?:most\s+)?(?:recently|lately|latest|earliest)\b/giu;

/**
 * The words of a question that say what shape its answer has — how many items ("which two places") and in which
 * order ("most recently", "the first three") — rather than what it is about. They are not evidence: a sentence
 * saying "I slept through two alarms" or "I've been busy recently" is no closer to "Which two places has Hollis
 * traveled to most recently?" than any other. Empty for a statement or a question without them.
 */
export function answerShapeWords(question: string): string[] {
  if (!question.trim().endsWith('?')) return [];
  const words: string[] = [];
  for (const re of [COUNT, ORDER]) for (const m of question.matchAll(re)) words.push(...m[0].split(/\s+/));
  return words;
}

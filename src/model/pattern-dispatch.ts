/**
 * Which of the fact patterns are worth trying on a sentence. A pattern whose match must begin with one of a few
 * plain words (`\b(?:moved|relocated)\s+…`, `(?:first\s+)?pay…`, or after a name: `Name hired me`) cannot match a
 * sentence that holds none of them, so it is tried only on sentences that do; a pattern that begins otherwise (a
 * character class, a lookahead, a make of car) is tried on every sentence. The result is the same as trying every
 * pattern in order — only faster: most sentences hold the leading words of few patterns.
 * @internal
 */
import { NAME as NAME_GROUP, type SlotPattern } from './fact-patterns.js';
/** What may open a source before its leading words: a word boundary, a label's start, the start of the text. */
const OPENING = /^(?:\\b|\(\?:\^\|\[[^\]]*\]\)\\s\*|\^\\s\*)/;
/** What may sit between a name group and the words after it: commas, spaces, "'s" or "is", an opening bracket. */
const AFTER_NAME = /^(?:,\?|\\s[+*]|\(\?:'s\|\\s\+is\)|\(\?:\\s\+is\|'s\)|\(\?:,\|\\\(\|\[—–-\]\))+/;
/** A word, or a group of words (`(?:moved|relocated|picked\s+up)`, `(?<p>me|us)`), not followed by a quantifier. */
const WORDS = String.raw`[a-z'@]+(?:(?:\\s\+| )[a-z'@]+)*`;
const WORD_GROUP = new RegExp(String.raw`^\(\?(?::|<[a-z]>)((?:${WORDS}\|)*${WORDS})\)`, 'i');
const PLAIN_WORD = /^[a-z'@]{2,}/i;
/** An optional group of words ahead of the leading words (`(?:first\s+)?`, `(?:(?:i've|ive)\s+)?`). */
const OPTIONAL_GROUP = new RegExp(String.raw`^\(\?:(?:\(\?:((?:${WORDS}\|)*${WORDS})\)|(${WORDS}))(?:\\s\+)?\)\?(?:\\s\*)?`, 'i');
/** What must follow the leading words for them to end a word of the sentence (a space, `'s`, a colon …). */
const WORD_END = /^(?:\\s\+|\\b|\\s\*\[:=\]|\(\?:\\s|\(\?:')/;

/** Whether a source is an alternation at its top level (`a|b`): its leading words would be those of each side. */
function hasTopLevelBar(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/** A word as the dispatch compares it: lower case, `’` as `'`. */
const normal = (w: string): string => w.toLowerCase().replace(/’/g, "'");
/** `[Ii]t's` read as `it's`: a class of one letter in both cases is that letter. */
const caseless = (source: string): string => source.replace(/\[([A-Z])([a-z])\]/g, (all, up: string, low: string) => (up.toLowerCase() === low ? low : all));
const firstWords = (alternatives: string): string[] => alternatives.split('|').map((a) => normal(a.split(/\\s\+| /)[0]!));

/**
 * The words a match of `source` must begin with, lower case (the first word of each alternative, and of an optional
 * group ahead of them), or null when the source does not begin with a plain word or group of words (after an
 * opening, a name group or optional groups of words).
 */
export function leadingWords(source: string): readonly string[] | null {
  if (hasTopLevelBar(source)) return null;
  let rest = caseless(source);
  const opening = OPENING.exec(rest);
  if (opening !== null) rest = rest.slice(opening[0].length);
  if (rest.startsWith(NAME_GROUP)) {
    rest = rest.slice(NAME_GROUP.length);
    const gap = AFTER_NAME.exec(rest);
    if (gap === null) return null;
    rest = rest.slice(gap[0].length);
  }
  const words: string[] = [];
  for (let optional = OPTIONAL_GROUP.exec(rest); optional !== null; optional = OPTIONAL_GROUP.exec(rest)) {
    words.push(...firstWords(optional[1] ?? optional[2]!));
    rest = rest.slice(optional[0].length);
  }
  const group = WORD_GROUP.exec(rest);
  const word = group === null ? PLAIN_WORD.exec(rest) : null;
  const lead = group?.[1] ?? word?.[0];
  if (lead === undefined || !WORD_END.test(rest.slice((group ?? word)![0].length))) return null;
  return [...words, ...firstWords(lead)];
}

/**
 * The words of a sentence as the dispatch looks them up: each run of letters, digits, apostrophes and `@`, lower
 * case, also without what follows an apostrophe ("work's" → "work") and split at hyphens ("co-workers" → "co").
 */
export function wordsOf(sentence: string): Set<string> {
  const out = new Set<string>();
  for (const m of sentence.matchAll(/[\p{L}\p{N}'’@-]+/gu)) {
    const w = normal(m[0]);
    out.add(w);
    const apostrophe = w.indexOf("'");
    const bare = apostrophe > 0 ? w.slice(0, apostrophe) : w;
    out.add(bare);
    if (w.includes('-')) for (const part of [...w.split('-'), ...bare.split('-')]) if (part !== '') out.add(part);
  }
  return out;
}

/** The patterns of a list to try on a sentence, in the list's order. */
export class PatternDispatch {
  readonly #patterns: readonly SlotPattern[];
  /** For each leading word, the positions of the patterns it opens. */
  readonly #byWord = new Map<string, number[]>();
  /** Positions of the patterns tried on every sentence. */
  readonly #always: number[] = [];

  constructor(patterns: readonly SlotPattern[]) {
    this.#patterns = patterns;
    patterns.forEach((p, i) => {
      const words = p.anchors ?? leadingWords(p.re.source);
      if (words === null) this.#always.push(i);
      else for (const w of new Set(words)) this.#byWord.set(w, [...(this.#byWord.get(w) ?? []), i]);
    });
  }

  /** How many of the patterns are tried on every sentence. */
  get alwaysTried(): number {
    return this.#always.length;
  }

  /** The patterns that may match `sentence`, in order. */
  candidates(sentence: string): SlotPattern[] {
    const picked = new Uint8Array(this.#patterns.length);
    for (const i of this.#always) picked[i] = 1;
    for (const w of wordsOf(sentence)) for (const i of this.#byWord.get(w) ?? []) picked[i] = 1;
    const out: SlotPattern[] = [];
    for (let i = 0; i < picked.length; i++) if (picked[i] === 1) out.push(this.#patterns[i]!);
    return out;
  }
}

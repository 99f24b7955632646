/**
 * Token counting for the chunk gate (`L_chunk >= tau_c`, the Akashic paper §4.1). The gate is defined in model tokens, so the
 * count comes from a real BPE tokenizer (`gpt-tokenizer`), not from a word-count estimate.
 */
import { createRequire } from 'node:module';
import { invalidArgument } from '../errors.js';
import { yieldToEventLoop } from '../util/yielding.js';
import { BoundedMemo } from '../util/bounded-memo.js';

/** The BPE encodings Akashic can count with. `o200k_base` is GPT-4o's; `cl100k_base` is GPT-4 / GPT-3.5's. */
export type TokenizerEncoding = 'o200k_base' | 'cl100k_base';

/** Counts model tokens in text. Implementations are pure and safe to share between callers. */
export interface Tokenizer {
  /** The encoding name, e.g. `o200k_base`; recorded next to token counts so they can be compared later. */
  readonly name: string;
  /** Number of tokens `text` encodes to. Special-token markers such as `<|endoftext|>` count as plain text. */
  count(text: string): number;
}

/**
 * User text may legitimately contain strings like `<|endoftext|>`; gpt-tokenizer throws on them by default.
 * Disallowing nothing makes them encode as ordinary text, which is what a chat template would do with user content.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() } as const;

type CountTokens = (text: string, options: typeof PLAIN_TEXT) => number;

/**
 * Each encoding's BPE table costs 40 to 70 MB and a few hundred milliseconds to load, so it is loaded on the first
 * count, once per process, and only the encodings used are loaded (importing the package loads none). `count` is
 * synchronous, hence `require` (the package ships a CommonJS build of every encoding).
 */
const requireHere = createRequire(import.meta.url);
const ENCODING_MODULES: Readonly<Record<TokenizerEncoding, string>> = {
  o200k_base: 'gpt-tokenizer/encoding/o200k_base',
  cl100k_base: 'gpt-tokenizer/encoding/cl100k_base',
};
const loaded = new Map<TokenizerEncoding, CountTokens>();

function countFunction(encoding: TokenizerEncoding): CountTokens {
  let count = loaded.get(encoding);
  if (count === undefined) {
    count = (requireHere(ENCODING_MODULES[encoding]) as { countTokens: CountTokens }).countTokens;
    loaded.set(encoding, count);
  }
  return count;
}

const COUNTERS: Readonly<Record<TokenizerEncoding, (text: string) => number>> = {
  o200k_base: (text) => countFunction('o200k_base')(text, PLAIN_TEXT),
  cl100k_base: (text) => countFunction('cl100k_base')(text, PLAIN_TEXT),
};

/**
 * Creates a tokenizer for one encoding.
 *
 * @example
 * ```ts
 * const tok = createTokenizer();          // o200k_base
 * tok.count('hello world');               // 2
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` for an unknown encoding.
 */
export function createTokenizer(encoding: TokenizerEncoding = 'o200k_base'): Tokenizer {
  const counter = Object.hasOwn(COUNTERS, encoding) ? COUNTERS[encoding] : undefined;
  if (counter === undefined) {
    throw invalidArgument(`unknown tokenizer encoding: ${JSON.stringify(encoding)}`);
  }
  const words = wordCounts(encoding);
  const tokenizer: Tokenizer = {
    name: encoding,
    count(text: string): number {
      return text.length === 0 ? 0 : countByWords(text, (word) => countBounded(counter, word), words);
    },
  };
  LINE_ADDITIVE.add(tokenizer);
  return tokenizer;
}

/**
 * Most words recur (a chunk's, a query's, a recalled sentence's), and the BPE library's own per-piece work — a
 * pre-tokenizing regex over the text, a rank lookup per piece, its merge cache reordered on every hit — made counting
 * a new 140-word chunk cost a sixth of a warm recall. A text is therefore counted as the sum of its space-led words
 * (see `countByWords`), each word's count kept in a process-wide memo per encoding: a pure function of the word's
 * text, bounded by entry count (WORD_MEMO_ENTRIES, words of at most MAX_MEMO_WORD_CHARS characters: a few MB), and
 * never emptied (it holds no data of any store, like the library's own merge cache).
 */
const WORD_MEMO_ENTRIES = 65_536;
const MAX_MEMO_WORD_CHARS = 32;
const WORD_MEMOS = new Map<TokenizerEncoding, BoundedMemo<string, number>>();

function wordCounts(encoding: TokenizerEncoding): BoundedMemo<string, number> {
  let memo = WORD_MEMOS.get(encoding);
  if (memo === undefined) {
    memo = new BoundedMemo(WORD_MEMO_ENTRIES);
    WORD_MEMOS.set(encoding, memo);
  }
  return memo;
}

/**
 * Counts `text` as the sum of `countWord` over its words: the text is cut before each space (U+0020) that follows a
 * character other than whitespace. Both encodings' pre-tokenizers (no lookbehind) put such a space at the start of a
 * piece: a piece holds whitespace after its first character only if it is all whitespace, and it cannot be, holding
 * the character before. No piece therefore spans a cut, each word is pre-tokenized as within the whole, and BPE
 * counts each piece alone, so the sum is the count of the whole. `countBounded`'s long unspaced runs never hold a
 * space either: each lies whole within one word and is extrapolated the same way (its text before it is counted
 * exactly, split at the same piece boundaries). Words up to MAX_MEMO_WORD_CHARS characters are counted once, through
 * `memo`.
 */
function countByWords(text: string, countWord: (word: string) => number, memo: BoundedMemo<string, number>): number {
  let n = 0;
  let from = 0;
  for (let at = text.indexOf(' ', 1); at >= 0; at = text.indexOf(' ', at + 1)) {
    const before = text.charCodeAt(at - 1);
    if (before < 128 ? before === 32 || (before >= 9 && before <= 13) : SPACE.test(text[at - 1]!)) continue;
    n += countWordMemo(text.slice(from, at), countWord, memo);
    from = at;
  }
  return n + countWordMemo(from === 0 ? text : text.slice(from), countWord, memo);
}

function countWordMemo(word: string, countWord: (word: string) => number, memo: BoundedMemo<string, number>): number {
  if (word.length > MAX_MEMO_WORD_CHARS) return countWord(word);
  let n = memo.get(word);
  if (n === undefined) {
    n = countWord(word);
    memo.set(word, n);
  }
  return n;
}

/**
 * The count `createTokenizer(encoding).count` gives, made without cutting the text into words or any memo: for
 * tests that check the cut changes no count.
 * @internal
 */
export function countUncut(encoding: TokenizerEncoding, text: string): number {
  return text.length === 0 ? 0 : countBounded(COUNTERS[encoding], text);
}

/** The tokenizers made by `createTokenizer`, whose counts add up over the parts `countByLines` cuts. */
const LINE_ADDITIVE = new WeakSet<Tokenizer>();

const NEWLINE = 10;
const SLASH = 47;
const SPACE = /\s/u;
/** A letter or a digit (one UTF-16 unit: a character outside the BMP is never tested as one, so never cut after). */
const WORD_END = /^[\p{L}\p{N}]$/u;

/**
 * Counts `text` as `tokenizer.count` does, as the sum of `countPart` over parts of it, so a caller can remember the
 * counts of parts that recur (the lines of recalled chunks); `countPart` must return `tokenizer.count(part)`.
 *
 * The text is cut after each run of line breaks that follows a character other than whitespace and precedes one
 * other than whitespace and `/`, and before each run of line breaks that follows a letter or a digit. There both
 * BPE encodings split the text into pieces the same way whole or cut (their pre-tokenizing patterns have no
 * lookbehind; the piece ending at the cut — a run of letters or digits, the line-break run itself, or the
 * punctuation run before it with the line breaks — never reaches past it; the piece after it starts fresh), and
 * `count`'s bound on long unspaced runs sees the same runs (none spans a line break); so the sum is exactly the
 * count of the whole. A tokenizer not made by `createTokenizer` gives no such guarantee: its text is
 * counted whole.
 */
export function countByLines(tokenizer: Tokenizer, text: string, countPart: (part: string) => number): number {
  if (!LINE_ADDITIVE.has(tokenizer)) return tokenizer.count(text);
  let n = 0;
  let from = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at)) {
    let end = at;
    while (end < text.length && text.charCodeAt(end) === NEWLINE) end++;
    if (at > 0 && WORD_END.test(text[at - 1]!) && at > from) {
      // After a letter or digit the line ends a piece of its own: cut before the line breaks too, so a line is
      // counted as it is (the count of a chunk's text serves its rendered line).
      n += countPart(text.slice(from, at));
      from = at;
    }
    if (at > 0 && end < text.length && text.charCodeAt(end) !== SLASH && !SPACE.test(text[at - 1]!) && !SPACE.test(text[end]!)) {
      n += countPart(text.slice(from, end));
      from = end;
    }
    at = end;
  }
  return n + (from < text.length ? countPart(text.slice(from)) : 0);
}

/**
 * A lower bound of `tokenizer.count(text)` made without tokenizing: for a tokenizer made by `createTokenizer`, the
 * number of space-separated runs of `text` holding a character other than whitespace (each such character is in a
 * pre-tokenized piece, no piece of either encoding holds such characters on both sides of a space, and a piece is
 * at least one token); 0 for any other tokenizer. For a caller that only needs to know whether a count exceeds a
 * bound.
 */
export function minTokens(tokenizer: Tokenizer, text: string): number {
  if (!LINE_ADDITIVE.has(tokenizer)) return 0;
  let runs = 0;
  let afterSpace = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) afterSpace = true;
    // Control characters count as whitespace (a lower bound stays one); beyond ASCII, the pattern's \s decides.
    else if (afterSpace && c > 32 && (c < 128 ? c !== 127 : !SPACE.test(text[i]!))) {
      runs++;
      afterSpace = false;
    }
  }
  return runs;
}

/**
 * Longest run without whitespace counted exactly. BPE merging is slow (quadratic or worse) in the length of a
 * pre-tokenized piece, and an unspaced run (a base64 blob, CJK text, `xxxx…`) is one piece: 40,000 characters took
 * seconds, a 1 MiB run minutes. A longer run is counted by extrapolating the exact count of its first
 * MAX_UNSPACED_RUN characters over its length: linear work, and close enough for the gate and the budget (text
 * with whitespace at least every 64 characters, which is nearly all prose, is counted exactly).
 */
export const MAX_UNSPACED_RUN = 64;
/**
 * Only ever used through `matchAll`, which copies the regex with its `lastIndex`: a `test` or `exec` on it would
 * leave `lastIndex` past the first run, and `matchAll` would then skip that run (it was counted exactly, which is
 * the quadratic case this bound exists to avoid).
 */
const LONG_RUN = new RegExp(`\\S{${MAX_UNSPACED_RUN + 1},}`, 'g');

function countBounded(counter: (text: string) => number, text: string): number {
  // Most texts counted (a sentence, a turn) are too short to hold a long run: no scan for one.
  if (text.length <= MAX_UNSPACED_RUN) return counter(text);
  let n = 0;
  let from = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    if (m.index > from) n += counter(text.slice(from, m.index));
    const run = m[0];
    let cut = MAX_UNSPACED_RUN;
    if (isLowSurrogate(run.charCodeAt(cut))) cut++; // never split a surrogate pair
    const sample = run.slice(0, cut);
    n += Math.ceil((counter(sample) * run.length) / sample.length);
    from = m.index + run.length;
  }
  if (from === 0) return counter(text);
  if (from < text.length) n += counter(text.slice(from));
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Characters counted between two yields to the event loop by `countTokensYielding`. */
export const COUNT_SLICE_CHARS = 2048;

/**
 * Counts tokens without blocking the event loop for long: text longer than COUNT_SLICE_CHARS is counted in slices
 * (cut at whitespace where there is some), yielding to the event loop between slices. The sum of the slices' counts
 * equals the count of the whole text up to the slice boundaries (a token cut in two counts twice).
 */
export async function countTokensYielding(tokenizer: Tokenizer, text: string): Promise<number> {
  if (text.length <= COUNT_SLICE_CHARS) return tokenizer.count(text);
  let n = 0;
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + COUNT_SLICE_CHARS);
    if (end < text.length) {
      const space = lastSpace(text, end, at + COUNT_SLICE_CHARS / 2);
      if (space >= 0) end = space;
      else if (isLowSurrogate(text.charCodeAt(end))) end++;
    }
    n += tokenizer.count(text.slice(at, end));
    at = end;
    if (at < text.length) await yieldToEventLoop();
  }
  return n;
}

/**
 * Index of the last space in `text` at or before `end` and after `after`, else -1. Bounded by the slice: the
 * built-in `lastIndexOf` would scan back to the start of an unspaced text at every slice (quadratic in its length).
 */
function lastSpace(text: string, end: number, after: number): number {
  for (let i = end; i > after; i--) if (text.charCodeAt(i) === 32 /* ' ' */) return i;
  return -1;
}

/**
 * Counts texts one at a time, as `tokenizer.count` would, yielding to the event loop after every COUNT_SLICE_CHARS
 * characters counted; a text longer than that is counted by `countTokensYielding` (in slices). For callers that
 * need the counts of only some texts, decided as they go (a budget fill stops early): same counts as
 * `countEachYielding` gives for those texts, without counting the others.
 */
export class YieldingCounter {
  readonly #tokenizer: Tokenizer;
  #sinceYield = 0;

  constructor(tokenizer: Tokenizer) {
    this.#tokenizer = tokenizer;
  }

  async count(text: string): Promise<number> {
    if (text.length > COUNT_SLICE_CHARS) return countTokensYielding(this.#tokenizer, text);
    if (this.#sinceYield + text.length > COUNT_SLICE_CHARS) {
      await yieldToEventLoop();
      this.#sinceYield = 0;
    }
    this.#sinceYield += text.length;
    return this.#tokenizer.count(text);
  }
}

/**
 * Counts the tokens of each text, as `tokenizer.count` would, yielding to the event loop after every
 * COUNT_SLICE_CHARS characters counted; a text longer than that is counted by `countTokensYielding` (in slices).
 */
export async function countEachYielding(tokenizer: Tokenizer, texts: readonly string[]): Promise<number[]> {
  const counter = new YieldingCounter(tokenizer);
  const counts: number[] = [];
  for (const text of texts) counts.push(await counter.count(text));
  return counts;
}

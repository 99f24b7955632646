/**
 * Lexical keyword extraction for the embedded model (BUILDMETA / BUILDQUERY without an LLM).
 *
 * Two views of the same text are produced:
 * - `extractKeywords` returns readable, lower-cased words ranked by salience; these are what gets stored as chunk
 *   metadata and may later be shown to an LLM, so they are never stemmed.
 * - `termsOf` returns normalized matching terms (Porter2 stems for plain words); select and association compare
 *   these, so `memories` in a query meets `memory` in a chunk. A written date ("7 July, 2023", "July 7th 2023",
 *   "July 2023") becomes its ISO form, and an ISO day also matches its month and year (`2023-07-07` → `2023-07`,
 *   `2023`), so a question naming a date meets a chunk's `[2023-07-07]` date line.
 *
 * Everything here is deterministic: same text, same output, on every platform.
 */
import { createRequire } from 'node:module';
import type Porter2Stem from 'wink-porter2-stemmer';
import { invalidArgument } from '../errors.js';
import { STOP_WORDS } from './stop-words.js';
import { BoundedMemo } from '../util/bounded-memo.js';

/** How many keywords `extractKeywords` returns when no limit is given. */
export const DEFAULT_KEYWORD_LIMIT = 64;

/**
 * A word is a run of letters/digits that may contain inner `.`, `-`, `_` or `'` (so `node.js`, `gpt-4o`,
 * `2024-05-01`, `don't` stay whole), but never starts or ends with them.
 */
const WORD = /[\p{L}\p{N}]+(?:['._-][\p{L}\p{N}]+)*/gu;

/** Longest text prefix tokenized for keywords and terms (about 30 ms of work). */
const MAX_TOKENIZE_CHARS = 16 * 1024;

/** Longest word considered for keywords and matching terms. */
const MAX_WORD_CHARS = 64;

/** Plain alphabetic words are the only ones the English stemmer understands; identifiers are kept verbatim. */
const STEMMABLE = /^[a-z]{4,}$/u;

/** Characters after which a capital letter is ordinary sentence casing, not a sign of a name. */
const SENTENCE_BREAK = new Set(['.', '!', '?', ':', '\n', '"', '(', '[', '*', '-']);

/** Weight of words that look like names (capitalized mid-sentence) or identifiers (letters mixed with digits). */
const SALIENT_WEIGHT = 1.5;
/**
 * Weight of purely numeric words (amounts, years, the date line `compress` writes): they rarely recur between a
 * query and a chunk, so they get a place only when the text has room to spare.
 */
const NUMERIC_WEIGHT = 0.5;
const NUMERIC = /^[\p{N}._-]+$/u;

interface Token {
  /** Lower-cased surface form. */
  readonly word: string;
  /** Matching term: the stem for plain words, the word itself otherwise. */
  readonly term: string;
  /** Capitalized mid-sentence, or mixing letters and digits. */
  readonly salient: boolean;
}

/** Text of ASCII characters only: NFKC leaves it as it is and it holds no curly apostrophe. */
const ASCII_ONLY = /^[\x00-\x7f]*$/u;

function normalizeApostrophes(text: string): string {
  return text.normalize('NFKC').replace(/[\u2018\u2019\u02bc]/gu, "'");
}

/** Lower-cases, drops stop words and one-character words, strips possessive `'s`; returns `undefined` to skip. */
function toWord(raw: string): string | undefined {
  // A "word" longer than this is a blob (base64, a URL-less run of CJK, `xxxx…`), not a keyword; stemming it
  // would also cost time superlinear in its length.
  if (raw.length > MAX_WORD_CHARS) return undefined;
  let word = raw.toLowerCase();
  if (word.endsWith("'s")) word = word.slice(0, -2);
  if (word.length < 2 || STOP_WORDS.has(word)) return undefined;
  return word;
}

/**
 * Stems of recent words. SELECT re-tokenizes every candidate's keywords on every recall, and stemming dominated a
 * recall's CPU time in the benchmark profile; a vocabulary is small, so a bounded memo serves nearly every lookup.
 */
const STEM_MEMO = new BoundedMemo<string, string>(65_536);

/**
 * The stemmer, required on the first word stemmed rather than with the package (a CommonJS module: loading it is
 * the process's first `require`, which costs a few megabytes). Synchronous, as `termsOf` is.
 */
const requireHere = createRequire(import.meta.url);
let porter2Stem: typeof Porter2Stem | undefined;

function toTerm(word: string): string {
  if (!STEMMABLE.test(word)) return word;
  let stem = STEM_MEMO.get(word);
  if (stem === undefined) {
    porter2Stem ??= requireHere('wink-porter2-stemmer') as typeof Porter2Stem;
    stem = porter2Stem(word);
    STEM_MEMO.set(word, stem);
  }
  return stem;
}

function startsSentence(text: string, index: number): boolean {
  for (let i = index - 1; i >= 0; i -= 1) {
    const ch = text[i] ?? '';
    if (ch === '\n') return true;
    if (ch.trim() !== '') return SENTENCE_BREAK.has(ch);
  }
  return true;
}

/** A written date found in a text: where it started and its ISO form. */
interface WrittenDate {
  readonly at: number;
  readonly iso: string;
}

/**
 * The text a tokenization reads: its first MAX_TOKENIZE_CHARS characters, normalized, each written date blanked out
 * (and listed in `dates`, in order).
 */
function prepare(text: string): { readonly source: string; readonly dates: readonly WrittenDate[]; readonly ascii: boolean } {
  // Bounded work per call (it runs on the event loop): keywords and matching terms come from the first
  // MAX_TOKENIZE_CHARS characters. Chunks are a few KiB normally; only oversized chunks and queries are cut.
  const cut = text.length > MAX_TOKENIZE_CHARS ? text.slice(0, MAX_TOKENIZE_CHARS) : text;
  const ascii = ASCII_ONLY.test(cut);
  const raw = ascii ? cut : normalizeApostrophes(cut);
  // A written date ("7 July, 2023", "July 7th 2023", "July 2023") is one token, its ISO form, in place of its words.
  const dates: WrittenDate[] = [];
  // Every written date has a four-digit year: most texts skip the date pattern after one cheap test.
  const source = !YEAR.test(raw)
    ? raw
    : raw.replace(WRITTEN_DATE, (whole: string, ...groups: unknown[]) => {
        const iso = isoOfWrittenDate(groups.slice(0, 5) as (string | undefined)[]);
        if (iso === null) return whole;
        dates.push({ at: groups[5] as number, iso });
        return ' '.repeat(whole.length);
      });
  return { source, dates, ascii };
}

/** A letter or digit of ASCII: what `WORD`'s `[\p{L}\p{N}]` matches among ASCII characters. */
function isAsciiAlnum(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** `'`, `.`, `_` or `-`: what may join two runs of letters and digits inside a word. */
function isJoiner(c: number): boolean {
  return c === 39 || c === 46 || c === 95 || c === 45;
}

/**
 * Calls `visit` with each match of `WORD` in `source` and where it starts, in order. An ASCII text is scanned
 * character by character, which finds the same words without the pattern's match objects (among ASCII characters
 * its letters and digits are `[A-Za-z0-9]`).
 */
function eachWord(source: string, ascii: boolean, visit: (raw: string, at: number) => void): void {
  if (!ascii) {
    for (const match of source.matchAll(WORD)) visit(match[0], match.index);
    return;
  }
  const n = source.length;
  const runEnd = (from: number): number => {
    let j = from;
    while (j < n && isAsciiAlnum(source.charCodeAt(j))) j++;
    return j;
  };
  let i = 0;
  while (i < n) {
    if (!isAsciiAlnum(source.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    i = runEnd(i + 1);
    while (i + 1 < n && isJoiner(source.charCodeAt(i)) && isAsciiAlnum(source.charCodeAt(i + 1))) i = runEnd(i + 2);
    visit(source.slice(start, i), start);
  }
}

/** What a word as the text holds it gives wherever it occurs: its content word, term, and whether it is an identifier. */
interface RawWord {
  readonly word: string;
  readonly term: string;
  /** Mixes letters and digits. */
  readonly identifier: boolean;
}

/**
 * `toWord` and `toTerm` of each word as the text holds it, null for a word dropped: a pure function of the word's
 * text, holding no store data (like STEM_MEMO). Every word of every recalled sentence is tokenized; one lookup here
 * replaces lower-casing, the stop-word test, two pattern tests and the stem lookup.
 */
const RAW_WORD_MEMO = new BoundedMemo<string, RawWord | null>(65_536);

function rawWord(raw: string): RawWord | null {
  let known = RAW_WORD_MEMO.get(raw);
  if (known === undefined) {
    const word = toWord(raw);
    known = word === undefined ? null : { word, term: toTerm(word), identifier: /\p{N}/u.test(word) && /\p{L}/u.test(word) };
    RAW_WORD_MEMO.set(raw, known);
  }
  return known;
}

/**
 * Walks the tokens of `text` in order: each written date (its ISO form) and each word kept (what it gives, the word
 * as written, where it starts in `source`, the text read).
 */
function eachToken(text: string, onDate: (iso: string) => void, onWord: (known: RawWord, raw: string, at: number, source: string) => void): void {
  const { source, dates, ascii } = prepare(text);
  let next = 0;
  eachWord(source, ascii, (raw, at) => {
    while (next < dates.length && dates[next]!.at < at) onDate(dates[next++]!.iso);
    const known = rawWord(raw);
    if (known !== null) onWord(known, raw, at, source);
  });
  while (next < dates.length) onDate(dates[next++]!.iso);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  eachToken(
    text,
    (iso) => tokens.push(dateToken(iso)),
    (known, raw, at, source) => {
      const first = raw.charAt(0);
      const salient = known.identifier || (first !== first.toLowerCase() && !startsSentence(source, at));
      tokens.push({ word: known.word, term: known.term, salient });
    },
  );
  return tokens;
}

function dateToken(iso: string): Token {
  return { word: iso, term: iso, salient: false };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAME =
  '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?';
const DAY_OF_MONTH = '(\\d{1,2})(?:st|nd|rd|th)?';
/**
 * "7 July, 2023" / "7th of July 2023" (day first), "July 7, 2023" / "July 7th 2023" (month first), "July 2023". The
 * words are separated by spaces, never a line break: a keyword list (one per line) is not read as a date.
 */
const SPACE = '[^\\S\\n]+';
const YEAR = /\d{4}/u;
const WRITTEN_DATE = new RegExp(
  `\\b(?:${DAY_OF_MONTH}${SPACE}(?:of${SPACE})?${MONTH_NAME}|${MONTH_NAME}(?:${SPACE}${DAY_OF_MONTH})?),?${SPACE}(\\d{4})\\b`,
  'giu',
);

/** The ISO form (`YYYY-MM-DD`, or `YYYY-MM` without a day) of a WRITTEN_DATE match, or null when it is no date. */
function isoOfWrittenDate([dayFirst, monthAfter, monthFirst, dayAfter, year]: readonly (string | undefined)[]): string | null {
  const month = MONTHS.indexOf((monthAfter ?? monthFirst ?? '').toLowerCase().slice(0, 3)) + 1;
  const dayText = dayFirst ?? dayAfter;
  const day = dayText === undefined ? 0 : Number(dayText);
  if (month === 0 || year === undefined || day > 31 || (dayText !== undefined && day === 0)) return null;
  const ym = `${year}-${String(month).padStart(2, '0')}`;
  return dayText === undefined ? ym : `${ym}-${String(day).padStart(2, '0')}`;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/u;
const ISO_MONTH = /^\d{4}-\d{2}$/u;

/** Whether a matching term names a calendar day or month (`2023-07-07`, `2023-07`): a question about a time. */
export function isCalendarTerm(term: string): boolean {
  return ISO_DAY.test(term) || ISO_MONTH.test(term);
}

/** Matching terms of a moment's UTC day (`2023-07-07`, `2023-07`, `2023`); none for a time that is not finite. */
export function dateTermsOf(ms: number): string[] {
  const date = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(date.getTime())) return [];
  const out: string[] = [];
  withCoarserDates(date.toISOString().slice(0, 10), out);
  return out;
}

/** Matching terms of one term: a date also matches its month and its year (`2023-07-07` → `2023-07`, `2023`). */
function withCoarserDates(term: string, out: string[]): void {
  out.push(term);
  // Most terms are words: only a ten-character term (YYYY-MM-DD) is tested for a day, a seven-character one for a month.
  if (term.length !== 10 && term.length !== 7) return;
  const day = ISO_DAY.exec(term);
  if (day !== null) out.push(`${day[1]}-${day[2]}`, day[1]!);
  else if (ISO_MONTH.test(term)) out.push(term.slice(0, 4));
}

/**
 * Normalized matching terms of `text`, in order of appearance, repeats kept (callers that need a set make one).
 *
 * @example
 * ```ts
 * termsOf('The databases were running'); // ['databas', 'run']
 * ```
 */
export function termsOf(text: string): string[] {
  // The terms of `tokenize`'s tokens, made without the tokens (a term needs no salience).
  const terms: string[] = [];
  eachToken(
    text,
    (iso) => withCoarserDates(iso, terms),
    (known) => withCoarserDates(known.term, terms),
  );
  return terms;
}

function termsOfTokens(tokens: readonly Token[]): string[] {
  const terms: string[] = [];
  for (const token of tokens) withCoarserDates(token.term, terms);
  return terms;
}

/** A keyword list seen before (frozen: the memo's own copy when the caller's list was not) and its terms. */
interface KnownList {
  readonly keywords: readonly string[];
  readonly terms: readonly string[];
}

/**
 * The version of what `keywordTerms` returns. A store keeps each directory entry's terms with this number (see
 * `storedKeywordTerms`), and a recall uses stored terms only under the same number, deriving them otherwise. Bump it
 * whenever a change to tokenizing, stemming, date forms or stop words changes the terms of some keyword list: entries
 * written before are then read as if they had no terms, with no migration.
 */
export const KEYWORD_TERMS_VERSION = 1;

/**
 * `keywordTerms` as the derivation a store writes with every entry's keywords: the same terms, computed without
 * filing the list in the recall-side memo (a write's lists are not the ones a recall meets next).
 */
export const storedKeywordTerms: { readonly version: number; derive(keywords: readonly string[]): readonly string[] } = {
  version: KEYWORD_TERMS_VERSION,
  derive: (keywords) => termsOfKeywords(keywords),
};

/**
 * Matching terms of a keyword list (`termsOf` of the keywords, one per line), memoized: SELECT turns the same
 * candidates' keywords into terms on every recall. A pure function of the list, so the memo changes no result;
 * bounded, the least recently used forgotten first. Lists are filed by a key made of a few of their traits, and
 * found by comparing keywords one by one: a reopened store decodes its directory entries into new lists, and joining
 * each into one key cost more than the comparison. The returned array is shared: do not mutate it.
 */
const KEYWORD_TERMS_MEMO = new BoundedMemo<string, KnownList[]>(4096);

/** Lists kept under one memo key (lists alike in the key's traits); past it, the oldest is replaced. */
const LISTS_PER_KEY = 4;

/**
 * The same terms by keyword-list object, for a frozen list (one that cannot change: a directory entry the store keeps
 * decoded between recalls): found without comparing it. A list that is not frozen is looked up by content only, so
 * a list changed in place is never served stale.
 */
const KEYWORD_TERMS_BY_LIST = new WeakMap<readonly string[], readonly string[]>();

/**
 * Forgets the keyword-list memo: it is filed by the content of the lists it met, which are chunks' keywords (what a
 * store holds), so a benchmark's cold read forgets it as a restarted process would. The word-level memos (a word's
 * stem and token count, a keyword's terms) are kept: they hold the language, not a store's chunks.
 * @internal
 */
export function forgetKeywordListTerms(): void {
  KEYWORD_TERMS_MEMO.clear();
}

export function keywordTerms(keywords: readonly string[]): readonly string[] {
  const frozen = Object.isFrozen(keywords);
  if (frozen) {
    const known = KEYWORD_TERMS_BY_LIST.get(keywords);
    if (known !== undefined) return known;
  }
  const key = listKey(keywords);
  const lists = KEYWORD_TERMS_MEMO.get(key);
  let terms = lists === undefined ? undefined : sameList(lists, keywords);
  if (terms === undefined) {
    terms = termsOfKeywords(keywords);
    const entry: KnownList = { keywords: frozen ? keywords : Object.freeze([...keywords]), terms };
    if (lists === undefined) KEYWORD_TERMS_MEMO.set(key, [entry]);
    else if (lists.push(entry) > LISTS_PER_KEY) lists.shift();
  }
  if (frozen) KEYWORD_TERMS_BY_LIST.set(keywords, terms);
  return terms;
}

/** A list's memo key: its length, characters, and first, middle and last keywords (lists alike in all are rare). */
function listKey(keywords: readonly string[]): string {
  const n = keywords.length;
  if (n === 0) return '';
  let chars = 0;
  for (const k of keywords) chars += k.length;
  return `${n}\n${chars}\n${keywords[0]}\n${keywords[n >> 1]}\n${keywords[n - 1]}`;
}

/** The terms of the list in `lists` equal to `keywords` (same keywords, same order), if any. */
function sameList(lists: readonly KnownList[], keywords: readonly string[]): readonly string[] | undefined {
  next: for (const known of lists) {
    const k = known.keywords;
    if (k.length !== keywords.length) continue;
    for (let i = 0; i < k.length; i++) if (k[i] !== keywords[i]) continue next;
    return known.terms;
  }
  return undefined;
}

/**
 * `termsOf` of the keywords one per line, keyword by keyword: a word never spans a line break, nor does a written date
 * (its words are separated by spaces, not line breaks), and normalization leaves a line break where it is, so the
 * terms of the lines joined are the terms of each line in turn. Only a list longer than the tokenizer reads
 * (MAX_TOKENIZE_CHARS) is tokenized whole, as it is cut as one text.
 */
function termsOfKeywords(keywords: readonly string[]): string[] {
  let chars = keywords.length - 1; // the line breaks between keywords
  for (const k of keywords) chars += k.length;
  if (chars > MAX_TOKENIZE_CHARS) return termsOf(keywords.join('\n'));
  const terms: string[] = [];
  for (const k of keywords) {
    const known = k.length <= MAX_WORD_CHARS ? keywordTermsOf(k) : termsOf(k);
    if (known === null) continue;
    if (typeof known === 'string') terms.push(known);
    else for (const t of known) terms.push(t);
  }
  return terms;
}

/**
 * `termsOf` of one keyword of at most MAX_WORD_CHARS characters: its one term (the common case), null for none (a
 * stop word), or its several terms (a date with its month and year, a keyword of several words). A pure function of
 * one word, holding no store data (like STEM_MEMO); in a long history most candidates' keyword lists are met for
 * the first time at a recall, and their words are not: one lookup here replaces the stop-word test, the stemmable
 * test and the stem lookup.
 */
const TERMS_BY_KEYWORD = new BoundedMemo<string, string | readonly string[] | null>(65_536);

function keywordTermsOf(keyword: string): string | readonly string[] | null {
  let known = TERMS_BY_KEYWORD.get(keyword);
  if (known === undefined) {
    if (isLowerCaseWord(keyword)) {
      // One token, kept by `toWord` when 2 or more letters long and no stop word; no date forms without digits.
      known = keyword.length < 2 || STOP_WORDS.has(keyword) ? null : toTerm(keyword);
    } else {
      const terms = termsOf(keyword);
      known = terms.length === 0 ? null : terms.length === 1 ? terms[0]! : Object.freeze(terms);
    }
    TERMS_BY_KEYWORD.set(keyword, known);
  }
  return known;
}

/** Only the letters `a` to `z` (what `extractKeywords` writes for a plain word). */
function isLowerCaseWord(keyword: string): boolean {
  for (let i = 0; i < keyword.length; i++) {
    const c = keyword.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

/**
 * The content words of `text`, in order, repeats kept: lower-cased, stop words, one-character words and possessive
 * `'s` removed, never stemmed (the words `extractKeywords` ranks); a written date as its ISO form. Bounded like
 * every tokenization here (the first 16 KiB of the text).
 */
export function contentWordsOf(text: string): string[] {
  return tokenize(text).map((token) => token.word);
}

interface TermStats {
  count: number;
  salient: boolean;
  readonly firstAt: number;
  /** Occurrences of each surface form, to pick the most common one as the readable keyword. */
  readonly forms: Map<string, number>;
}

/**
 * The top `limit` distinct keywords of `text`, most important first, lower-cased.
 *
 * Ranking is term frequency over stems (so `memory` and `memories` pool their counts), weighted up by half for
 * terms that ever appear as a name or identifier and down by half for pure numbers; ties go to the earlier first
 * occurrence. Each stem yields one keyword: its most frequent surface form (earliest on a tie).
 *
 * @example
 * ```ts
 * extractKeywords('Alice moved to Berlin. Alice likes Berlin cafes.', 3); // ['berlin', 'alice', 'moved']
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` when `limit` is not a non-negative integer.
 */
export function extractKeywords(text: string, limit: number = DEFAULT_KEYWORD_LIMIT): string[] {
  checkKeywordLimit(limit);
  return rankKeywords(tokenize(text), limit);
}

/**
 * Both views of one text from a single tokenization: its matching terms (`termsOf(text)`) and, computed when asked,
 * its keywords (`extractKeywords(text, limit)`). For scoring passages both ways without tokenizing each twice.
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` when `limit` is not a non-negative integer.
 */
export function termsAndKeywordsOf(text: string, limit: number = DEFAULT_KEYWORD_LIMIT): { readonly terms: string[]; keywords(): string[] } {
  checkKeywordLimit(limit);
  const tokens = tokenize(text);
  return { terms: termsOfTokens(tokens), keywords: () => rankKeywords(tokens, limit) };
}

function checkKeywordLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw invalidArgument(`keyword limit must be a non-negative integer, got ${String(limit)}`);
  }
}

/** The keywords of tokenized text (see `extractKeywords`). */
function rankKeywords(tokens: readonly Token[], limit: number): string[] {
  const stats = new Map<string, TermStats>();
  tokens.forEach((token, position) => {
    let entry = stats.get(token.term);
    if (entry === undefined) {
      entry = { count: 0, salient: false, firstAt: position, forms: new Map() };
      stats.set(token.term, entry);
    }
    entry.count += 1;
    entry.salient ||= token.salient;
    entry.forms.set(token.word, (entry.forms.get(token.word) ?? 0) + 1);
  });

  const score = (term: string, entry: TermStats): number =>
    entry.count * (entry.salient ? SALIENT_WEIGHT : NUMERIC.test(term) ? NUMERIC_WEIGHT : 1);
  const ranked = [...stats.entries()]
    .map(([term, entry]) => ({ entry, score: score(term, entry) }))
    .sort((a, b) => b.score - a.score || a.entry.firstAt - b.entry.firstAt)
    .map(({ entry }) => entry);

  const keywords: string[] = [];
  const seen = new Set<string>();
  for (const entry of ranked) {
    if (keywords.length >= limit) break;
    const form = mostCommonForm(entry.forms);
    // Two stems can share a surface form only in odd cases (`node.js` vs `node`); keep the contract of no duplicates.
    if (seen.has(form)) continue;
    seen.add(form);
    keywords.push(form);
  }
  return keywords;
}

/** Map iteration follows insertion order, so on a tie the form seen first wins. */
function mostCommonForm(forms: ReadonlyMap<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [form, count] of forms) {
    if (count > bestCount) {
      best = form;
      bestCount = count;
    }
  }
  return best;
}

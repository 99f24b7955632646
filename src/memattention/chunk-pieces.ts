/**
 * What a recall derives from one chunk's text alone — its passages (turns), the sentences of each turn, their token
 * counts, the content-word key a sentence is deduplicated by, the terms of its speakers — kept between recalls.
 *
 * A stored chunk version never changes in place (an update writes a new version), so all of this is a function of
 * the chunk's identity and version; the entry also remembers the text it was derived from and is rebuilt when a
 * record of the same identity carries another text, so a hit can never serve stale pieces. The cache belongs to one
 * `AkashicMemory` (its tokenizer's counts) and is bounded by an estimate of the bytes it holds, the least recently
 * used chunks forgotten first; `clear` empties it.
 * @internal
 */
import { termsOf } from '../model/keywords.js';
import { countByLines, minTokens, type Tokenizer, type YieldingCounter } from '../model/tokenizer.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import { WeightedMemo } from '../util/weighted-memo.js';
import { MAX_PASSAGES_PER_CHUNK, splitChunk, type Split } from './passages.js';

/** Default bound of a memory's piece cache: an estimate of the bytes held (texts, their pieces and counts). */
export const DEFAULT_PIECE_CACHE_BYTES = 32 * 1024 * 1024;

const SENTENCE_BREAK = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'“‘(])/gu;

/**
 * Sentences of a turn's text: split after . ! ? followed by space and an upper-case letter, digit or quote. With
 * `max`, only the first `max` sentences are returned (the rest of the text is not read).
 */
export function sentencesOf(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const m of text.matchAll(SENTENCE_BREAK)) {
    if (parts.length >= max) break;
    const part = text.slice(from, m.index);
    if (part.trim() !== '') parts.push(part);
    from = m.index + m[0].length;
  }
  const last = text.slice(from);
  if (parts.length < max && last.trim() !== '') parts.push(last);
  return parts.length === 0 ? [text] : parts;
}

/** One turn of a chunk as sentence recall sees it. */
export interface PieceTurn {
  /** The turn's position among the chunk's passages. */
  readonly index: number;
  /** `role: ` of a verbatim turn; '' for a chunk taken whole. */
  readonly prefix: string;
  readonly turnIds: readonly string[];
  /** The chunk is not written one line per turn: one piece, taken whole. */
  readonly whole: boolean;
}

/** One sentence of a chunk. */
export interface Piece {
  /** Index of its turn in the chunk's `turns`. */
  readonly turn: number;
  /** Position among its turn's sentences. */
  readonly pos: number;
  readonly text: string;
  /** What joins it to the sentence before it in its turn: a space, or a newline at a line break. */
  readonly lead: string;
}

/** The sentences of a chunk that a recall considers (the first MAX_PASSAGES_PER_CHUNK). */
function sentenceSplit(split: Split): { readonly turns: PieceTurn[]; readonly pieces: Piece[] } {
  const turns: PieceTurn[] = [];
  const pieces: Piece[] = [];
  let room = MAX_PASSAGES_PER_CHUNK;
  split.passages.forEach((p, index) => {
    if (room <= 0) return;
    // A chunk not written one line per turn (a model's summary) is one passage taken whole, as in 'passage' recall.
    const whole = !split.aligned;
    const colon = p.text.indexOf(': ');
    const prefix = whole || colon < 0 ? '' : p.text.slice(0, colon + 2);
    const body = whole ? p.text : p.text.slice(prefix.length);
    const t = turns.push({ index, prefix, turnIds: p.turnIds, whole }) - 1;
    if (whole) {
      room -= 1;
      pieces.push({ turn: t, pos: 0, text: body, lead: ' ' });
      return;
    }
    // A turn of several lines: the sentences of each line, a line's first one joined to the previous by a newline.
    let pos = 0;
    for (const line of body.split('\n')) {
      if (room <= 0) break;
      if (line.trim() === '') continue;
      const texts = sentencesOf(line, room);
      room -= texts.length;
      texts.forEach((text, k) => {
        pieces.push({ turn: t, pos, text, lead: k === 0 && pos > 0 ? '\n' : ' ' });
        pos += 1;
      });
    }
  });
  return { turns, pieces };
}

/** Counts made on demand and kept: -1 where not counted yet. */
function unknownCounts(n: number): Int32Array {
  return new Int32Array(n).fill(-1);
}

/** What recall derives from one chunk version; parts are computed on first use. */
export class ChunkPieces {
  readonly text: string;
  readonly split: Split;
  readonly #tok: Tokenizer;
  #sentences: { readonly turns: PieceTurn[]; readonly pieces: Piece[] } | undefined;
  #own: Int32Array | undefined;
  #joined: Int32Array | undefined;
  #prefixTokens: Int32Array | undefined;
  #passageTokens: Int32Array | undefined;
  #headerTokens = -1;
  #repeatKeys: string[] | undefined;
  #speakers: readonly string[] | undefined;

  readonly #remember: (text: string, tokens: number) => void;

  /** `remember` is told each text counted whole (a sentence alone, a passage), which a rendered line may repeat. */
  constructor(chunk: Pick<ChunkRecord, 'text' | 'provenance'>, tok: Tokenizer, remember: (text: string, tokens: number) => void = () => {}) {
    this.text = chunk.text;
    this.split = splitChunk(chunk);
    this.#tok = tok;
    this.#remember = remember;
  }

  get turns(): readonly PieceTurn[] {
    return this.#sentenceSplit().turns;
  }

  get pieces(): readonly Piece[] {
    return this.#sentenceSplit().pieces;
  }

  #sentenceSplit(): { readonly turns: PieceTurn[]; readonly pieces: Piece[] } {
    return (this.#sentences ??= sentenceSplit(this.split));
  }

  /** Tokens of the date header line plus its line break; 0 without a header. */
  headerTokens(): number {
    if (this.#headerTokens < 0) this.#headerTokens = this.split.header === null ? 0 : this.#tok.count(this.split.header) + 1;
    return this.#headerTokens;
  }

  /** Tokens of turn `t`'s `role: ` prefix (0 without one). */
  prefixTokens(t: number): number {
    const counts = (this.#prefixTokens ??= unknownCounts(this.turns.length));
    if (counts[t]! < 0) {
      const prefix = this.turns[t]!.prefix;
      counts[t] = prefix === '' ? 0 : this.#tok.count(prefix);
    }
    return counts[t]!;
  }

  /**
   * Tokens of sentence `i` alone, or of it after a space with `joined` (how it is counted once its turn is open);
   * null, without counting it, when it surely has more than `room` tokens (`minTokens`).
   */
  async tokensWithin(i: number, joined: boolean, room: number, counter: YieldingCounter): Promise<number | null> {
    const counts = joined ? (this.#joined ??= unknownCounts(this.pieces.length)) : (this.#own ??= unknownCounts(this.pieces.length));
    if (counts[i]! < 0) {
      const text = joined ? ` ${this.pieces[i]!.text}` : this.pieces[i]!.text;
      if (minTokens(this.#tok, text) > room) return null;
      counts[i] = await counter.count(text);
      if (!joined) this.#remember(text, counts[i]!);
    }
    return counts[i]!;
  }

  /** Tokens of passage `i` of the split (a whole turn). */
  async passageTokens(i: number, counter: YieldingCounter): Promise<number> {
    const counts = (this.#passageTokens ??= unknownCounts(this.split.passages.length));
    if (counts[i]! < 0) {
      const text = this.split.passages[i]!.text;
      counts[i] = await counter.count(text);
      this.#remember(text, counts[i]!);
    }
    return counts[i]!;
  }

  /** Whether sentence `i`'s repeat key is already computed (asking for it then costs nothing). */
  hasRepeatKey(i: number): boolean {
    return this.#repeatKeys?.[i] !== undefined;
  }

  /**
   * The content-word key of sentence `i`: the sorted set of its `termsOf` terms and its numbers (even one-digit
   * ones: "paid 4" and "paid 5" are different facts); '' for a sentence with no content word. `terms` must return
   * `termsOf(text)` (a caller that already holds a sentence's terms passes them instead of tokenizing it again).
   */
  repeatKey(i: number, terms: (text: string) => readonly string[] = termsOf): string {
    const keys = (this.#repeatKeys ??= new Array<string>(this.pieces.length));
    let key = keys[i];
    if (key === undefined) {
      const text = this.pieces[i]!.text;
      key = [...new Set([...terms(text), ...(text.match(/\p{N}+/gu) ?? [])])].sort().join(' ');
      keys[i] = key;
    }
    return key;
  }

  /** The terms of the speakers of the chunk's turns (none for a chunk not written one line per turn). */
  speakerTerms(): readonly string[] {
    if (this.#speakers === undefined) {
      const terms: string[] = [];
      if (this.split.aligned) {
        for (const p of this.split.passages) {
          const colon = p.text.indexOf(': ');
          if (colon > 0) terms.push(...termsOf(p.text.slice(0, colon)));
        }
      }
      this.#speakers = terms;
    }
    return this.#speakers;
  }
}

/**
 * A memory's cache of {@link ChunkPieces}, by chunk identity and version, and of the token counts of the lines a
 * recall renders (a recalled turn's line recurs whenever that turn is recalled whole).
 */
export class ChunkPieceCache {
  readonly tokenizer: Tokenizer;
  /** `tokenizer`, counting a rendered text line by line with the counts of lines seen before (the same counts). */
  readonly renderedCounter: Tokenizer;
  readonly #memo: WeightedMemo<string, ChunkPieces>;
  readonly #lines: WeightedMemo<string, number>;

  constructor(tokenizer: Tokenizer, maxBytes: number = DEFAULT_PIECE_CACHE_BYTES) {
    this.tokenizer = tokenizer;
    this.#memo = new WeightedMemo(maxBytes);
    this.#lines = new WeightedMemo(maxBytes / 4);
    const countLine = (line: string): number => {
      let n = this.#lines.get(line);
      if (n === undefined) {
        n = tokenizer.count(line);
        this.#rememberLine(line, n);
      }
      return n;
    };
    this.renderedCounter = { name: tokenizer.name, count: (text) => countByLines(tokenizer, text, countLine) };
  }

  readonly #rememberLine = (line: string, tokens: number): void => this.#lines.set(line, tokens, 2 * line.length + 64);

  /** The pieces of `chunk`, from the cache when this version's text was seen before. */
  of(chunk: Pick<ChunkRecord, 'userId' | 'sessionId' | 'chunkId' | 'version' | 'text' | 'provenance'>): ChunkPieces {
    const key = `${chunk.userId}\u0000${chunk.sessionId}\u0000${chunk.chunkId}\u0000${chunk.version}`;
    let pieces = this.#memo.get(key);
    if (pieces === undefined || pieces.text !== chunk.text) {
      pieces = new ChunkPieces(chunk, this.tokenizer, this.#rememberLine);
      // The text (two bytes a character) and what is derived from it: its passages and sentences are slices of it,
      // their counts and keys a few bytes each: eight bytes a character plus a fixed overhead bounds it in practice.
      this.#memo.set(key, pieces, 8 * chunk.text.length + 1024);
    }
    return pieces;
  }

  clear(): void {
    this.#memo.clear();
    this.#lines.clear();
  }
}

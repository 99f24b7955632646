/**
 * Extractive passages (`recallUnit: 'sentence'`, the default): the budget is filled with sentences, not whole
 * turns. A verbatim chunk's turns are split into sentences; each sentence is scored against the query (the model's
 * `scorePassages`, else BM25 over the pool's sentences) plus half the best sentence score of the neighbouring turns
 * of its chunk (the question asked, the remark answered), its own match counting double when the question names
 * its speaker, and the budget is filled greedily in that order (ties
 * to the chunk SELECT ranked higher, then text order), a sentence repeating the content words of a better-ranked
 * one left out. A turn is
 * rendered once, `role: ` then its kept sentences in order (` … ` where sentences were left out), under its
 * chunk's date line; the role prefix and the date line are paid for once. A recalled passage is the kept part of
 * one turn and carries that turn's id.
 * @internal
 */
import { YieldingCounter } from '../model/tokenizer.js';
import { MAP_SLICE, yieldToEventLoop } from '../util/yielding.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import { aboveFloor, floorScore } from './relevance-floor.js';
import { CHUNK_SEPARATOR, fitToBudget, withDate, PASSAGE_SEPARATOR, type PassageSelection, type RecalledPassage } from './passages.js';
import type { ChunkPieceCache, ChunkPieces } from './chunk-pieces.js';
import { termsOf } from '../model/keywords.js';

export { sentencesOf } from './chunk-pieces.js';

/**
 * Share of the neighbouring turns' best sentence score a sentence takes (as whole-turn passages take half their
 * better neighbour's). A share of its own turn's best sentence (0.25, 0.5) was measured and cost points: it spends
 * the budget on the rest of a matching turn (docs/recall-quality.md).
 */
const NEIGHBOUR_SHARE = 0.5;
/**
 * Weight of a sentence's own match when its turn's speaker is someone the question names ("What did Audrey make
 * …?" and Audrey's "I made some goodies …"): what a person says is the first source of what the question asks
 * about them. The speaker is not scored as a word of every sentence (that would let a sentence match on the name
 * alone and pad the recall); it only multiplies a match the sentence already has.
 */
const NAMED_SPEAKER_WEIGHT = 2;
const GAP = ' … ';

interface Turn {
  readonly chunk: number;
  readonly index: number;
  readonly prefix: string;
  readonly turnIds: readonly string[];
  readonly whole: boolean;
  /** The chunk's pieces, and this turn's index among their turns. */
  readonly of: ChunkPieces;
  readonly local: number;
}

interface Sentence {
  readonly turn: number;
  readonly pos: number;
  readonly text: string;
  readonly lead: string;
  /** The chunk's pieces, and this sentence's index among them. */
  readonly of: ChunkPieces;
  readonly local: number;
  score: number;
}

export async function selectSentencePassages(
  ranked: readonly ChunkRecord[],
  score: (passages: readonly string[]) => Promise<number[]>,
  budget: number,
  cache: ChunkPieceCache,
  chronological: (a: ChunkRecord, b: ChunkRecord) => number,
  dated = false,
  floor = 0,
  namedSpeaker: (prefix: string) => boolean = () => false,
  sentenceTerms: (text: string) => readonly string[] = termsOf,
): Promise<PassageSelection> {
  const of = ranked.map((c) => cache.of(c));
  const splits = of.map((p) => p.split);
  const turns: Turn[] = [];
  const sentences: Sentence[] = [];
  of.forEach((p, chunk) => {
    const base = turns.length;
    for (const t of p.turns) turns.push({ chunk, index: t.index, prefix: t.prefix, turnIds: t.turnIds, whole: t.whole, of: p, local: turns.length - base });
    p.pieces.forEach((x, local) => sentences.push({ turn: base + x.turn, pos: x.pos, text: x.text, lead: x.lead, of: p, local, score: 0 }));
  });
  // A question naming a date is also matched against each sentence's date: its chunk's date line.
  const raw = await score(sentences.map((x) => withDate(x.text, dated ? splits[turns[x.turn]!.chunk]?.header : null)));
  await yieldToEventLoop();
  const speakerWeight = turns.map((t) => (t.prefix !== '' && namedSpeaker(t.prefix) ? NAMED_SPEAKER_WEIGHT : 1));
  const best = new Array<number>(turns.length).fill(0);
  sentences.forEach((x, k) => {
    best[x.turn] = Math.max(best[x.turn] ?? 0, raw[k] ?? 0);
  });
  sentences.forEach((x, k) => {
    const t = turns[x.turn]!;
    const prev = x.turn > 0 && turns[x.turn - 1]?.chunk === t.chunk ? (best[x.turn - 1] ?? 0) : 0;
    const next = x.turn + 1 < turns.length && turns[x.turn + 1]?.chunk === t.chunk ? (best[x.turn + 1] ?? 0) : 0;
    x.score = (raw[k] ?? 0) * (speakerWeight[x.turn] ?? 1) + NEIGHBOUR_SHARE * Math.max(prev, next);
  });
  await yieldToEventLoop();
  // Below the relevance floor a sentence is never recalled; equal scores go to the newer statement (what is
  // current), then to the chunk SELECT ranked higher, then text order.
  const threshold = floorScore(sentences.map((x) => x.score), floor);
  const createdAt = (x: Sentence): number => ranked[turns[x.turn]!.chunk]!.createdAt;
  const order = sentences
    .map((x, k) => ({ x, k }))
    .filter((e) => aboveFloor(e.x.score, threshold))
    .sort((a, b) => b.x.score - a.x.score || createdAt(b.x) - createdAt(a.x) || turns[a.x.turn]!.chunk - turns[b.x.turn]!.chunk || a.k - b.k)
    .map((e) => e.x);

  // Only the counts the fill reads are made (a sentence's own count, or its count after a space once its turn is
  // open), as it reads them: counted yielding to the event loop, so a recall over large chunks does not block it.
  // Counts are kept with the chunk's pieces: a chunk recalled again is not counted again.
  const tok = cache.tokenizer;
  const counter = new YieldingCounter(tok);
  const openedChunks = new Set<number>();
  const openedTurns = new Set<number>();
  const kept: Sentence[] = [];
  // Sentences without repeats: a sentence whose content words (its `repeatKey`) are those of a sentence ranked before
  // it (kept or not) adds no evidence, only tokens, so it is left out (a reader sees it once). Sentences with no
  // content word ("Wow!") are kept: they carry the neighbour share of the turn they answer. Keys are computed only
  // when a sentence would be kept: the sentences passed over before it (too large for the room left) are keyed then,
  // so a sentence repeating one of them is still left out, and once the budget is full none is keyed. A key is made
  // from `sentenceTerms` (the sentence's `termsOf` terms, which the scorer may hold already: not tokenized twice).
  const seen = new Set<string>();
  const passed: Sentence[] = [];
  let keyed = 0;
  const repeats = async (x: Sentence): Promise<boolean> => {
    // Keys not cached yet are computed in slices that yield to the event loop (a recall over large chunks).
    if (!x.of.hasRepeatKey(x.local) && ++keyed % MAP_SLICE === 0) await yieldToEventLoop();
    const key = x.of.repeatKey(x.local, sentenceTerms);
    if (key === '') return false;
    if (seen.has(key)) return true;
    seen.add(key);
    return false;
  };
  let estimate = 0;
  for (const x of order) {
    if (estimate >= budget) break;
    const t = turns[x.turn]!;
    // A sentence joining its turn's line costs its tokens after a space (a leading space merges into its first
    // token), plus one for a possible ` … `; else its own tokens, a separator and its turn's prefix. A sentence that
    // surely does not fit is not counted.
    const joined = openedTurns.has(x.turn);
    const extra = (joined ? 1 : (kept.length === 0 ? 0 : 1) + t.of.prefixTokens(t.local)) + (openedChunks.has(t.chunk) ? 0 : t.of.headerTokens());
    const own = await x.of.tokensWithin(x.local, joined, budget - estimate - extra, counter);
    const cost = own === null ? Number.POSITIVE_INFINITY : own + extra;
    if (estimate + cost > budget) {
      passed.push(x);
      continue;
    }
    for (const p of passed) await repeats(p);
    passed.length = 0;
    if (await repeats(x)) continue;
    estimate += cost;
    openedChunks.add(t.chunk);
    openedTurns.add(x.turn);
    kept.push(x);
  }

  const render = (keep: readonly Sentence[]): { chunks: ChunkRecord[]; passages: RecalledPassage[]; text: string } => {
    const byTurn = new Map<number, Sentence[]>();
    for (const x of keep) byTurn.set(x.turn, [...(byTurn.get(x.turn) ?? []), x]);
    const byChunk = new Map<number, number[]>();
    for (const ti of byTurn.keys()) {
      const c = turns[ti]!.chunk;
      byChunk.set(c, [...(byChunk.get(c) ?? []), ti]);
    }
    const chunkIdx = [...byChunk.keys()].sort((a, b) => chronological(ranked[a]!, ranked[b]!));
    const passages: RecalledPassage[] = [];
    const blocks = chunkIdx.map((ci) => {
      const chunk = ranked[ci]!;
      const lines = (byChunk.get(ci) ?? [])
        .sort((a, b) => turns[a]!.index - turns[b]!.index)
        .map((ti) => {
          const ss = (byTurn.get(ti) ?? []).sort((a, b) => a.pos - b.pos);
          let body = '';
          ss.forEach((x, i) => {
            body += i === 0 ? (x.pos > 0 ? '… ' : '') + x.text : (x.pos === ss[i - 1]!.pos + 1 ? x.lead : GAP) + x.text;
          });
          const text = turns[ti]!.prefix + body;
          passages.push({ sessionId: chunk.sessionId, chunkId: chunk.chunkId, text, turnIds: turns[ti]!.turnIds, score: Math.max(...ss.map((x) => x.score)), createdAt: chunk.createdAt });
          return text;
        });
      const header = splits[ci]?.header ?? null;
      return [...(header === null ? [] : [header]), ...lines].join(PASSAGE_SEPARATOR);
    });
    return { chunks: chunkIdx.map((ci) => ranked[ci]!), passages, text: blocks.join(CHUNK_SEPARATOR) };
  };
  return fitToBudget(kept, render, cache.renderedCounter, budget);
}

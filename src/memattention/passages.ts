/**
 * Budget-aware recall below the chunk: SELECT picks chunks, and the budget is then filled with the passages of
 * those chunks that carry the most query evidence per token, kept in time order with their provenance.
 *
 * A passage is one turn of a chunk: a chunk's body lines (after an optional `[date]` header line) are its turns
 * when their number equals the chunk's provenance (the embedded model's verbatim COMPRESS writes one `role: text`
 * line per turn), or, when a turn spans several lines, the runs of lines each opened by a `role: ` line (exactly one
 * per turn). A chunk whose text is not aligned with its turns (a model-written summary) is one passage attributed
 * to all its turns, taken whole or not at all.
 *
 * Ranking (all lexical, deterministic):
 * - each passage is scored by the model's `scorePassages` when it has one, else with BM25 against the query terms
 *   over the passages of the fetched chunks;
 * - a passage also gets half the score of its better neighbour in the same chunk (a question's words are often in
 *   the turn before or after the one that answers it: the question asked, the remark answered);
 * - ties, including the passages that match nothing, go to the chunk SELECT ranked higher, then to the passage
 *   nearer that chunk's best passage.
 * The budget is filled greedily in that order (a passage that does not fit is skipped, smaller ones are still
 * taken); a chunk's date header is paid for once, with its first passage.
 * @internal
 */
import { bm25Scores } from '../model/bm25-ranking.js';
import { termsOf } from '../model/keywords.js';
import { YieldingCounter, type Tokenizer } from '../model/tokenizer.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import { aboveFloor, floorScore } from './relevance-floor.js';
import type { ChunkPieceCache } from './chunk-pieces.js';

/** One recalled passage with where it came from. */
export interface RecalledPassage {
  readonly sessionId: string;
  readonly chunkId: string;
  /** The passage text as stored in the chunk. */
  readonly text: string;
  /** The turns it carries: one turn for a verbatim chunk's line, all the chunk's turns for an unaligned chunk. */
  readonly turnIds: readonly string[];
  /**
   * How well it answers the query: the recall's score of the passage (for a sentence recall, of its best kept
   * sentence), with the neighbour share; comparable within one recall only. Higher is better, always > 0.
   */
  readonly score: number;
  /** When it was said: its chunk's creation time (ms since the epoch). */
  readonly createdAt: number;
}

/** Separator between passages of one chunk, and between a chunk's date header and its passages. */
export const PASSAGE_SEPARATOR = '\n';

/** Separator between recalled chunks in a recall's text. */
export const CHUNK_SEPARATOR = '\n\n';

const HEADER = /^\[[^\]\n]*\]$/u;

/**
 * Passages (or, in sentence recall, sentences) of one chunk that a recall considers: the first ones, in text order.
 * Bounds a recall's work (counting, scoring, sorting) when SELECT picks chunks made of very large turns; a chunk
 * compacted under the default gate holds a few dozen.
 */
export const MAX_PASSAGES_PER_CHUNK = 1024;

/** Neighbour share of a passage's score: a turn answering (or asking) a matching turn is half as likely evidence. */
const NEIGHBOUR_SHARE = 0.5;

export interface Split {
  readonly header: string | null;
  /** One passage per turn (else the chunk is one passage carrying all its turns). */
  readonly aligned: boolean;
  readonly passages: readonly { readonly text: string; readonly turnIds: readonly string[] }[];
}

/** A line that opens a turn as verbatim COMPRESS writes it: `role: text`, the role on one line without a colon. */
const TURN_START = /^[^\s:][^:\n]{0,63}: /u;

/** The passages of one chunk (see the module comment for when a chunk is one passage). */
export function splitChunk(chunk: Pick<ChunkRecord, 'text' | 'provenance'>): Split {
  const lines = chunk.text.split('\n');
  const header = lines.length > 1 && HEADER.test(lines[0] ?? '') ? (lines[0] ?? null) : null;
  const body = header === null ? lines : lines.slice(1);
  const n = chunk.provenance.length;
  if (n > 0 && body.length === n && body.every((l) => l.trim() !== '')) {
    return { header, aligned: true, passages: body.map((text, i) => ({ text, turnIds: [chunk.provenance[i] ?? ''] })) };
  }
  // A turn whose text spans several lines (a list, a trailing newline): the turns are the runs of lines that start
  // at a `role: ` line, when exactly one such line per turn opens the body. A continuation line that looks like a
  // turn start makes the count differ, and the chunk is then one passage as before: never a wrong attribution.
  if (n > 0 && body.length > n && TURN_START.test(body[0] ?? '')) {
    const starts = body.flatMap((l, i) => (TURN_START.test(l) ? [i] : []));
    if (starts.length === n) {
      const passages = starts.map((from, i) => ({
        text: body.slice(from, starts[i + 1] ?? body.length).join('\n').trimEnd(),
        turnIds: [chunk.provenance[i] ?? ''],
      }));
      return { header, aligned: true, passages };
    }
  }
  return { header: null, aligned: false, passages: [{ text: chunk.text, turnIds: [...chunk.provenance] }] };
}

interface Item {
  readonly chunk: number;
  readonly index: number;
  readonly text: string;
  readonly turnIds: readonly string[];
  tokens: number;
  score: number;
  distance: number;
}

export interface PassageSelection {
  /** Chunks that contributed a passage, chronological. */
  readonly chunks: ChunkRecord[];
  /** The passages kept, in the order of `text`. */
  readonly passages: RecalledPassage[];
  readonly text: string;
  readonly tokenCount: number;
}

/**
 * The text a passage is scored by: with `dateLine` (its chunk's `[date]` line, when the question names a date), the
 * passage followed by that line, so a question about "7 July, 2023" matches what was said that day (and, more
 * weakly, that month and year: see `termsOf`).
 */
export function withDate(text: string, dateLine: string | null | undefined): string {
  return dateLine === null || dateLine === undefined ? text : `${text}\n${dateLine}`;
}

/** BM25 of each passage against the query terms (normalized, `termsOf`), over the passages given: the default score. */
export function lexicalPassageScores(queryTerms: readonly string[], passages: readonly string[]): number[] {
  return bm25Scores(passages.map((p) => termsOf(p)), [...new Set(queryTerms)]);
}

/**
 * Fills `budget` tokens with the best passages of `ranked` (SELECT's order, most relevant first); `score` rates
 * each passage's relevance to the query (≥ 0).
 */
export async function selectPassages(
  ranked: readonly ChunkRecord[],
  score: (passages: readonly string[]) => Promise<number[]>,
  budget: number,
  cache: ChunkPieceCache,
  chronological: (a: ChunkRecord, b: ChunkRecord) => number,
  dated = false,
  floor = 0,
): Promise<PassageSelection> {
  const of = ranked.map((c) => cache.of(c));
  const splits = of.map((p) => p.split);
  const tok = cache.tokenizer;
  const items: Item[] = [];
  splits.forEach((s, chunk) =>
    s.passages
      .slice(0, MAX_PASSAGES_PER_CHUNK)
      .forEach((p, index) => items.push({ chunk, index, text: p.text, turnIds: p.turnIds, tokens: 0, score: 0, distance: 0 })),
  );
  // Counted yielding to the event loop (a recall over large chunks must not block it for long), once per chunk
  // version: the counts are kept with the chunk's pieces.
  const counter = new YieldingCounter(tok);
  for (const item of items) item.tokens = await of[item.chunk]!.passageTokens(item.index, counter);
  const raw = await score(items.map((i) => withDate(i.text, dated ? splits[i.chunk]?.header : null)));
  items.forEach((item, k) => {
    const own = raw[k] ?? 0;
    const prev = k > 0 && items[k - 1]?.chunk === item.chunk ? (raw[k - 1] ?? 0) : 0;
    const next = k + 1 < items.length && items[k + 1]?.chunk === item.chunk ? (raw[k + 1] ?? 0) : 0;
    item.score = own + NEIGHBOUR_SHARE * Math.max(prev, next);
  });
  // Distance to the chunk's best passage (first on a tie), so unmatched filler sits next to the evidence.
  const best = new Map<number, Item>();
  for (const item of items) {
    const b = best.get(item.chunk);
    if (b === undefined || item.score > b.score) best.set(item.chunk, item);
  }
  for (const item of items) item.distance = Math.abs(item.index - (best.get(item.chunk)?.index ?? 0));
  // Equal scores: the newer statement first (what is current), then SELECT's order.
  const threshold = floorScore(items.map((i) => i.score), floor);
  const order = items
    .filter((i) => aboveFloor(i.score, threshold))
    .sort((a, b) => b.score - a.score || ranked[b.chunk]!.createdAt - ranked[a.chunk]!.createdAt || a.chunk - b.chunk || a.distance - b.distance || a.index - b.index);

  const headerTokens = of.map((p) => p.headerTokens());
  const opened = new Set<number>();
  const kept: Item[] = [];
  let estimate = 0;
  for (const item of order) {
    // One separator token per passage (a newline inside a chunk, a blank line between chunks): BPE pieces never
    // span a newline, so the sum is the exact count in practice; the exact count below corrects it anyway.
    const cost = item.tokens + (kept.length === 0 ? 0 : 1) + (opened.has(item.chunk) ? 0 : headerTokens[item.chunk] ?? 0);
    if (estimate + cost > budget) continue;
    estimate += cost;
    opened.add(item.chunk);
    kept.push(item);
  }
  const render = (keep: readonly Item[]): { chunks: ChunkRecord[]; passages: RecalledPassage[]; text: string } => {
    const byChunk = new Map<number, Item[]>();
    for (const item of keep) byChunk.set(item.chunk, [...(byChunk.get(item.chunk) ?? []), item]);
    const chunkIdx = [...byChunk.keys()].sort((a, b) => chronological(ranked[a]!, ranked[b]!));
    const passages: RecalledPassage[] = [];
    const blocks = chunkIdx.map((ci) => {
      const chunk = ranked[ci]!;
      const ps = (byChunk.get(ci) ?? []).sort((a, b) => a.index - b.index);
      for (const p of ps) passages.push({ sessionId: chunk.sessionId, chunkId: chunk.chunkId, text: p.text, turnIds: p.turnIds, score: p.score, createdAt: chunk.createdAt });
      const header = splits[ci]?.header ?? null;
      return [...(header === null ? [] : [header]), ...ps.map((p) => p.text)].join(PASSAGE_SEPARATOR);
    });
    return { chunks: chunkIdx.map((ci) => ranked[ci]!), passages, text: blocks.join(CHUNK_SEPARATOR) };
  };
  return fitToBudget(kept, render, cache.renderedCounter, budget);
}

/**
 * Renders `kept` (rank order, most relevant first) and counts the text exactly; while that count is over `budget`
 * (the greedy fill sums estimates; never seen over in practice), drops the lowest-ranked item and renders again.
 * Serves both recall units: whole-turn passages here, sentences in `sentence-passages.ts`.
 */
export function fitToBudget<T>(
  kept: readonly T[],
  render: (keep: readonly T[]) => Omit<PassageSelection, 'tokenCount'>,
  tok: Tokenizer,
  budget: number,
): PassageSelection {
  const keep = [...kept];
  let out = render(keep);
  let tokenCount = tok.count(out.text);
  while (keep.length > 0 && tokenCount > budget) {
    keep.pop();
    out = render(keep);
    tokenCount = tok.count(out.text);
  }
  return { ...out, tokenCount };
}

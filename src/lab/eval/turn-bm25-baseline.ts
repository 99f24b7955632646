/**
 * The baseline of the recall evaluation: BM25 over raw turns, filled to the same token budget as MemAttention's
 * recall. No chunking, no metadata, no model: every turn said so far is a document, the question is the query.
 *
 * It uses the same lexical machinery as the embedded model's SELECT (`termsOf` for terms, wink BM25 through
 * `bm25Scores`) and the same tokenizer for the budget, so the comparison isolates what chunking, keyword metadata
 * and the chunk-level budget cut do, not a difference in tokenization or ranking function.
 *
 * @internal
 */
import { bm25Scores } from '../../model/bm25-ranking.js';
import { termsOf } from '../../model/keywords.js';
import type { Tokenizer } from '../../model/tokenizer.js';
import type { Turn } from '../workload/conversation.js';

/** Turns the baseline picked for one question. */
export interface BaselineSelection {
  /** Ids of the selected turns, best-ranked first. */
  readonly turnIds: readonly string[];
  /** Tokens of the selected turns rendered as the memory text (`speaker: text` lines), ≤ the budget. */
  readonly tokenCount: number;
  /** The selected turns rendered as the memory text: `speaker: text` lines, best-ranked first. */
  readonly text: string;
}

/** Separator between selected turns in the rendered text, as `compress` separates the turns of a chunk. */
const TURN_SEPARATOR = '\n';

/**
 * An index of one conversation's turns that grows as the replay ingests them. Terms are computed once per turn;
 * the BM25 statistics are rebuilt per query over the turns ingested so far (IDF changes as the history grows, and
 * the question must not see turns said after it was asked).
 */
export class TurnBm25Baseline {
  readonly #tokenizer: Tokenizer;
  readonly #dated: boolean;
  readonly #turns: { readonly id: string; readonly rendered: string; readonly terms: readonly string[]; readonly tokens: number }[] = [];

  /**
   * With `dated`, each turn is rendered `[YYYY-MM-DD] speaker: text` (the day it was said, paid for in the budget),
   * so a reader can answer questions about time from the baseline's text as it can from a chunk's date line.
   */
  constructor(tokenizer: Tokenizer, options: { readonly dated?: boolean } = {}) {
    this.#tokenizer = tokenizer;
    this.#dated = options.dated === true;
  }

  /** Turns indexed so far. */
  get size(): number {
    return this.#turns.length;
  }

  /** Indexes turns (in conversation order) as they are ingested. */
  add(turns: readonly Turn[]): void {
    for (const t of turns) {
      // Rendered as COMPRESS renders a turn, so the speaker's name is searchable here as it is in a chunk.
      const line = `${t.speaker}: ${t.text}`;
      const rendered = this.#dated && Number.isFinite(t.at) ? `[${new Date(t.at).toISOString().slice(0, 10)}] ${line}` : line;
      this.#turns.push({ id: t.turnId, rendered, terms: termsOf(line), tokens: this.#tokenizer.count(rendered) });
    }
  }

  /**
   * The top-ranked turns that fit `budget` tokens: turns with a BM25 score > 0 (as SELECT returns only matching
   * chunks), best first, ties to the earlier turn; a turn that would overflow the budget is skipped and the next
   * ones are still tried, as MemAttention's recall fills its budget (greedy in rank order, skipping what does not
   * fit), so both sides get the same fill rule.
   */
  select(question: string, budget: number): BaselineSelection {
    const queryTerms = [...new Set(termsOf(question))];
    const scores = bm25Scores(
      this.#turns.map((t) => t.terms),
      queryTerms,
    );
    const ranked = this.#turns
      .map((t, i) => ({ t, i, score: scores[i] ?? 0 }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i);
    // Filling by the sum of per-turn counts (one token per separator) avoids re-tokenizing a growing text per turn;
    // BPE pieces never span a newline, so the sum is the exact count in practice. The final count is exact anyway:
    // should it exceed the budget, turns are dropped from the end until it fits.
    const picked: { readonly id: string; readonly rendered: string }[] = [];
    let estimate = 0;
    for (const { t } of ranked) {
      const next = estimate + (picked.length === 0 ? 0 : 1) + t.tokens;
      if (next > budget) continue;
      estimate = next;
      picked.push(t);
    }
    let tokenCount = this.#tokenizer.count(picked.map((t) => t.rendered).join(TURN_SEPARATOR));
    while (picked.length > 0 && tokenCount > budget) {
      picked.pop();
      tokenCount = this.#tokenizer.count(picked.map((t) => t.rendered).join(TURN_SEPARATOR));
    }
    const turnIds = picked.map((t) => t.id);
    return { turnIds, tokenCount, text: picked.map((t) => t.rendered).join(TURN_SEPARATOR) };
  }
}

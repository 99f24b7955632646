import { describe, expect, it } from 'vitest';
import { TurnBm25Baseline } from '../../src/lab/eval/turn-bm25-baseline.js';
import { createTokenizer } from '../../src/model/tokenizer.js';
import type { Turn } from '../../src/lab/workload/conversation.js';

const tokenizer = createTokenizer();
const turn = (turnId: string, text: string, speaker = 'Ana'): Turn => ({ turnId, speaker, text, at: 0 });

describe('BM25 over raw turns', () => {
  const turns = [
    turn('t1', 'We hiked the Dolomites in June.'),
    turn('t2', 'The Dolomites trip was cold but the Dolomites were beautiful.'),
    turn('t3', 'My cat sleeps all day.'),
    turn('t4', 'Dinner was pasta again.'),
  ];

  it('returns only matching turns, best first', () => {
    const b = new TurnBm25Baseline(tokenizer);
    b.add(turns);
    const s = b.select('Which mountains: Dolomites?', 10_000);
    expect(new Set(s.turnIds)).toEqual(new Set(['t1', 't2']));
    expect(b.select('cat', 10_000).turnIds).toEqual(['t3']);
    expect(b.select('nothing matches zzyzx', 10_000)).toEqual({ turnIds: [], tokenCount: 0, text: '' });
  });

  it('fills the budget greedily in rank order, skipping a turn that does not fit, and reports the exact token count of the rendered text', () => {
    const b = new TurnBm25Baseline(tokenizer);
    b.add(turns);
    const all = b.select('Dolomites', 10_000);
    expect(all.turnIds).toHaveLength(2);
    const first = all.turnIds[0]!;
    const rendered = (id: string): string => {
      const t = turns.find((x) => x.turnId === id)!;
      return `${t.speaker}: ${t.text}`;
    };
    const oneBudget = tokenizer.count(rendered(first));
    const one = b.select('Dolomites', oneBudget);
    expect(one).toEqual({ turnIds: [first], tokenCount: oneBudget, text: rendered(first) });
    expect(all.tokenCount).toBe(tokenizer.count(all.turnIds.map(rendered).join('\n')));
    // The best turn no longer fits: it is skipped and the next ones that fit are still taken (as recall fills).
    const skipped = b.select('Dolomites', oneBudget - 1);
    expect(skipped.turnIds).not.toContain(first);
    expect(skipped.turnIds).toEqual(all.turnIds.filter((id) => id !== first && tokenizer.count(rendered(id)) <= oneBudget - 1));
    expect(skipped.tokenCount).toBeLessThanOrEqual(oneBudget - 1);
  });

  it('sees only the turns added so far', () => {
    const b = new TurnBm25Baseline(tokenizer);
    b.add(turns.slice(0, 2));
    expect(b.size).toBe(2);
    expect(b.select('cat', 10_000).turnIds).toEqual([]);
    b.add(turns.slice(2));
    expect(b.select('cat', 10_000).turnIds).toEqual(['t3']);
  });
});

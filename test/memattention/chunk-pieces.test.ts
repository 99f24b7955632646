import { describe, expect, it } from 'vitest';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { ChunkPieceCache } from '../../src/memattention/chunk-pieces.js';
import { YieldingCounter } from '../../src/model/tokenizer.js';
import { termsOf } from '../../src/model/keywords.js';
import { memoryStore, tokenizer } from './fixtures.js';

const chunk = (text: string, version = 1) => ({
  userId: 'u',
  sessionId: 's',
  chunkId: 'c1',
  version,
  text,
  provenance: ['t1', 't2'],
});

describe('ChunkPieceCache (what recall derives from a chunk version)', () => {
  const text = '[2024-05-01]\nalice: I moved to Lisbon. It is sunny!\nbob: Nice. Where do you work now?';

  it('splits turns and sentences and counts them exactly as the tokenizer does', async () => {
    const cache = new ChunkPieceCache(tokenizer);
    const p = cache.of(chunk(text));
    expect(p.split.aligned).toBe(true);
    expect(p.turns.map((t) => t.prefix)).toEqual(['alice: ', 'bob: ']);
    expect(p.pieces.map((x) => x.text)).toEqual(['I moved to Lisbon.', 'It is sunny!', 'Nice.', 'Where do you work now?']);
    const counter = new YieldingCounter(tokenizer);
    for (let i = 0; i < p.pieces.length; i++) {
      expect(await p.tokensWithin(i, false, Number.POSITIVE_INFINITY, counter)).toBe(tokenizer.count(p.pieces[i]!.text));
      expect(await p.tokensWithin(i, true, Number.POSITIVE_INFINITY, counter)).toBe(tokenizer.count(` ${p.pieces[i]!.text}`));
    }
    // A sentence of four words surely has more than two tokens: not counted; a count already made is returned.
    expect(await cache.of(chunk(text, 3)).tokensWithin(3, false, 2, counter)).toBeNull();
    expect(await p.tokensWithin(3, false, 2, counter)).toBe(tokenizer.count('Where do you work now?'));
    expect(p.headerTokens()).toBe(tokenizer.count('[2024-05-01]') + 1);
    expect(p.prefixTokens(1)).toBe(tokenizer.count('bob: '));
    expect(await p.passageTokens(0, counter)).toBe(tokenizer.count('alice: I moved to Lisbon. It is sunny!'));
    expect(p.repeatKey(3)).toBe([...new Set(termsOf('Where do you work now?'))].sort().join(' '));
    expect(p.repeatKey(3)).not.toBe('');
    expect(p.speakerTerms()).toEqual([...termsOf('alice'), ...termsOf('bob')]);
  });

  it('serves the same version from the cache, and another version or another text afresh', () => {
    const cache = new ChunkPieceCache(tokenizer);
    const first = cache.of(chunk(text));
    expect(cache.of(chunk(`${text}`))).toBe(first);
    expect(cache.of(chunk(text, 2))).not.toBe(first);
    // The same identity and version with another text (never written by the store) is never served stale pieces.
    const other = cache.of(chunk('alice: Hello there.\nbob: Hi.'));
    expect(other).not.toBe(first);
    expect(other.pieces.map((x) => x.text)).toEqual(['Hello there.', 'Hi.']);
    cache.clear();
    expect(cache.of(chunk(text))).not.toBe(first);
  });
});

describe('recall served from the piece cache', () => {
  it('returns exactly what a fresh memory returns, at every budget and unit, recall after recall', async () => {
    const { store } = await memoryStore();
    const user = 'carol';
    const lines = [
      'I moved to Lisbon last spring. The rent is high! But the light is worth it.',
      'Did you find a job there?',
      'Yes, I started at a design studio near the river. My manager is called Ines.',
      'What do you do on weekends?',
      'I surf at Carcavelos when the waves are up, and I read on the train.',
      'Nice. Any pets?',
      'A greyhound called Biscuit. He sleeps all day.',
    ];
    const writer = new AkashicMemory(store, { writeBack: 'await', relocateEveryRecalls: 0 });
    for (const [i, text] of lines.entries()) {
      await writer.appendTurn({ user, session: 's1', role: i % 2 === 0 ? 'Carol' : 'Dan', text, at: Date.UTC(2024, 4, 1) + i * 60_000, turnId: `t${i}` });
    }
    await writer.endSession({ user, session: 's1' });
    await writer.close();
    const queries = ['Where does Carol work?', 'What is the name of the dog?', 'Where does she surf?', 'What happened on 1 May, 2024?'];
    try {
      for (const recallUnit of ['sentence', 'passage'] as const) {
        const kept = new AkashicMemory(store, { recallUnit, relocateEveryRecalls: 0 });
        for (let round = 0; round < 2; round++) {
          for (const query of queries) {
            for (const memoryBudgetTokens of [12, 40, 400]) {
              const fresh = new AkashicMemory(store, { recallUnit, relocateEveryRecalls: 0 });
              const want = await fresh.recall({ user, session: 's2', query, memoryBudgetTokens });
              await fresh.close();
              const got = await kept.recall({ user, session: 's2', query, memoryBudgetTokens });
              expect(got.text).toBe(want.text);
              expect(got.passages).toEqual(want.passages);
              expect(got.tokenCount).toBe(want.tokenCount);
              expect(got.tokenCount).toBe(tokenizer.count(got.text));
              expect(got.tokenCount).toBeLessThanOrEqual(memoryBudgetTokens);
              if (query === queries[0] && memoryBudgetTokens === 400) expect(got.text).toContain('design studio');
            }
          }
        }
        await kept.close();
      }
    } finally {
      await store.close();
    }
  });
});

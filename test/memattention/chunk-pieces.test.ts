import { describe, expect, it } from 'vitest';
import { ChunkPieceCache } from '../../src/memattention/chunk-pieces.js';
import { YieldingCounter } from '../../src/model/tokenizer.js';
import { termsOf } from '../../src/model/keywords.js';
import { tokenizer } from './fixtures.js';

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

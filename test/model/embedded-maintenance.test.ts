import { describe, expect, it } from 'vitest';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { isAkashicError } from '../../src/errors.js';
import { body, turn } from './fixtures.js';

const model = new EmbeddedModel();

describe('EmbeddedModel.compress', () => {
  it('keeps every turn verbatim as `role: text` lines under the first turn date', async () => {
    const turns = [
      turn('t1', 'user', 'I adopted a cat named Miso.\nShe is grey.'),
      turn('t2', 'assistant', 'Congratulations on Miso!', Date.UTC(2024, 4, 2)),
    ];
    const { text } = await model.compress(turns);
    expect(text).toBe('[2024-05-01]\nuser: I adopted a cat named Miso.\nShe is grey.\nassistant: Congratulations on Miso!');
    for (const t of turns) expect(text).toContain(t.text);
  });

  it('compresses nothing to empty text', async () => {
    expect(await model.compress([])).toEqual({ text: '' });
  });
});

describe('EmbeddedModel.buildMeta', () => {
  it('returns the keyword extractor ranking, capped by keywordLimit', async () => {
    const small = new EmbeddedModel({ keywordLimit: 2 });
    const { keywords } = await small.buildMeta('Miso the cat visits the vet. Miso hates the vet.');
    expect(keywords).toEqual(['miso', 'vet']);
  });

  it('rejects bad options naming them', () => {
    expect(() => new EmbeddedModel({ keywordLimit: 0 })).toThrowError(/keywordLimit/);
    expect(() => new EmbeddedModel({ groupThreshold: 1.5 })).toThrowError(/groupThreshold/);
  });
});

describe('EmbeddedModel.jointCompact', () => {
  const fresh = {
    text: 'user: my cat Miso is grey\nuser: Miso goes to the vet on Friday',
    keywords: ['miso', 'cat', 'grey', 'vet', 'friday'],
  };

  it('returns the fresh text unchanged and never updates', async () => {
    const result = await model.jointCompact(fresh, [body('r1', 'user: I live in Berlin', ['berlin'])]);
    expect(result).toEqual({ text: fresh.text, updates: [], deletions: [] });
  });

  it('deletes only exact duplicates: keywords a subset and text contained verbatim', async () => {
    const related = [
      body('dup', 'user: my cat Miso is grey', ['miso', 'cat', 'grey']),
      body('reworded', 'user: Miso is a grey cat', ['miso', 'cat', 'grey']),
      body('extra-keyword', 'user: my cat Miso is grey', ['miso', 'cat', 'grey', 'berlin']),
    ];
    const result = await model.jointCompact(fresh, related);
    expect(result.deletions).toEqual(['dup']);
    expect(result.updates).toEqual([]);
  });

  it('rejects duplicate related ids', async () => {
    const dup = body('x', 'a', []);
    await expect(model.jointCompact(fresh, [dup, dup])).rejects.toSatisfy((err: unknown) =>
      isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT'),
    );
  });
});

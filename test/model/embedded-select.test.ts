import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { isAkashicError } from '../../src/errors.js';
import { meta } from './fixtures.js';

const model = new EmbeddedModel();

const candidates = [
  meta('c1', ['berlin', 'apartment', 'moved', 'rent']),
  meta('c2', ['cat', 'miso', 'vet', 'vaccination']),
  meta('c3', ['python', 'refactor', 'tests', 'pytest']),
  meta('c4', ['garden', 'tomatoes', 'watering']),
];

describe('EmbeddedModel.select', () => {
  it('ranks the obviously relevant chunk first', async () => {
    const ids = await model.select({ text: 'When is the vet appointment for my cat?', keywords: [] }, candidates, 5);
    expect(ids[0]).toBe('c2');
  });

  it('uses query keywords and matches inflected forms', async () => {
    const ids = await model.select({ text: '', keywords: ['tomato', 'gardens'] }, candidates, 5);
    expect(ids).toEqual(['c4']);
  });

  it('returns only matching candidates: no padding with irrelevant chunks', async () => {
    const ids = await model.select({ text: 'pytest refactor', keywords: [] }, candidates, 5);
    expect(ids).toEqual(['c3']);
    expect(await model.select({ text: 'quantum chromodynamics', keywords: [] }, candidates, 5)).toEqual([]);
  });

  it('works with fewer than three candidates', async () => {
    expect(await model.select({ text: 'cat', keywords: [] }, [meta('only', ['cat'])], 5)).toEqual(['only']);
    const two = [meta('a', ['cat', 'dog']), meta('b', ['cat'])];
    expect(await model.select({ text: 'cat', keywords: [] }, two, 5)).toHaveLength(2);
  });

  it('matches a question naming a date with the day, month and year each candidate was written', async () => {
    const days = [
      meta('march', ['kayak', 'river'], Date.UTC(2024, 2, 1, 12)),
      meta('april', ['kayak', 'river'], Date.UTC(2024, 3, 10, 12)),
      meta('april-other', ['kayak', 'river'], Date.UTC(2024, 3, 20, 12)),
      meta('may', ['garden'], Date.UTC(2024, 4, 2, 12)),
    ];
    expect(await model.select({ text: 'kayak on the river', keywords: [] }, days, 5)).toEqual(['april', 'april-other', 'march']);
    expect(await model.select({ text: 'kayak on the river on 20 April, 2024', keywords: [] }, days, 1)).toEqual(['april-other']);
    expect((await model.select({ text: 'Where did I kayak in March 2024?', keywords: [] }, days, 1))).toEqual(['march']);
    // A date alone matches by time only: that day first, then the rest of its year.
    expect((await model.select({ text: 'May 2, 2024', keywords: [] }, days, 5))[0]).toBe('may');
  });

  it('breaks score ties by id, deterministically', async () => {
    const twins = [meta('z', ['kayak']), meta('m', ['kayak']), meta('a', ['kayak']), meta('q', ['other'])];
    expect(await model.select({ text: 'kayak', keywords: [] }, twins, 5)).toEqual(['a', 'm', 'z']);
  });

  it('returns at most topP ids and never an unknown id', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 12 }),
        fc.array(fc.constantFrom('cat', 'berlin', 'rent', 'garden', 'python', 'vet', 'x'), { maxLength: 6 }),
        fc.nat(6),
        async (ids, words, topP) => {
          const pool = ids.map((id, i) => meta(id, [words[i % Math.max(1, words.length)] ?? 'cat', 'garden']));
          const result = await model.select({ text: words.join(' '), keywords: ['vet'] }, pool, topP);
          expect(result.length).toBeLessThanOrEqual(topP);
          expect(new Set(result).size).toBe(result.length);
          for (const id of result) expect(ids).toContain(id);
        },
      ),
    );
  });

  it('rejects a bad topP and duplicate candidate ids', async () => {
    await expect(model.select({ text: 'x', keywords: [] }, candidates, -1)).rejects.toSatisfy((err: unknown) =>
      isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT'),
    );
    await expect(
      model.select({ text: 'x', keywords: [] }, [meta('d', ['x']), meta('d', ['y'])], 1),
    ).rejects.toSatisfy((err: unknown) => isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT'));
  });
});

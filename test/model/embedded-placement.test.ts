import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { isAkashicError } from '../../src/errors.js';
import { termsOf } from '../../src/model/keywords.js';
import { pairKey } from '../../src/model/association.js';
import type { ChunkMetaView, CoAccessView } from '../../src/model/memory-model.js';
import { NO_CO_ACCESS, coAccess, meta } from './fixtures.js';

/** The association formula written out naively, O(n^2), as a reference for the indexed implementation. */
function referenceGroups(chunks: readonly ChunkMetaView[], stats: CoAccessView, tau: number): string[][] {
  const terms = chunks.map((c) => new Set(termsOf(c.keywords.join('\n'))));
  const label = chunks.map((_, i) => i);
  const relabel = (from: number, to: number): void => {
    for (let k = 0; k < label.length; k += 1) if (label[k] === from) label[k] = to;
  };
  for (let i = 0; i < chunks.length; i += 1) {
    for (let j = i + 1; j < chunks.length; j += 1) {
      const a = chunks[i] as ChunkMetaView;
      const b = chunks[j] as ChunkMetaView;
      const ta = terms[i] as Set<string>;
      const tb = terms[j] as Set<string>;
      const common = [...ta].filter((t) => tb.has(t)).length;
      const union = ta.size + tb.size - common;
      const rarer = Math.min(stats.accesses.get(a.id) ?? 0, stats.accesses.get(b.id) ?? 0);
      const together = stats.pairs.get(pairKey(a.id, b.id)) ?? 0;
      const score = Math.max(union === 0 ? 0 : common / union, rarer > 0 ? Math.min(1, together / rarer) : 0);
      if (score >= tau) relabel(label[j] as number, label[i] as number);
    }
  }
  const groups = new Map<number, string[]>();
  chunks.forEach((c, i) => groups.set(label[i] as number, [...(groups.get(label[i] as number) ?? []), c.id]));
  return [...groups.values()].map((g) => [...g].sort()).sort((x, y) => (x[0] ?? '').localeCompare(y[0] ?? ''));
}

const normalize = (groups: string[][]): string[][] =>
  groups.map((g) => [...g].sort()).sort((x, y) => (x[0] ?? '').localeCompare(y[0] ?? ''));

const model = new EmbeddedModel();

describe('EmbeddedModel.colocate', () => {
  const chunks = [
    meta('a', ['berlin', 'rent', 'apartment']),
    meta('b', ['berlin', 'rent', 'landlord']),
    meta('c', ['cat', 'vet']),
    meta('d', ['python', 'pytest']),
  ];

  it('groups pairs whose keyword Jaccard reaches tauAssoc, and only groups of two or more', async () => {
    // jaccard(a, b) = 2 / 4 = 0.5
    expect(await model.colocate(chunks, NO_CO_ACCESS, 0.5)).toEqual([['a', 'b']]);
    expect(await model.colocate(chunks, NO_CO_ACCESS, 0.51)).toEqual([]);
  });

  it('uses the co-access ratio pairs / min(accesses) when it is higher', async () => {
    const stats = coAccess({ c: 4, d: 10 }, [['c', 'd', 3]]);
    // ratio(c, d) = 3 / min(4, 10) = 0.75
    expect(await model.colocate(chunks, stats, 0.75)).toEqual([['c', 'd']]);
    expect(await model.colocate(chunks, stats, 0.8)).toEqual([]);
  });

  it('forms connected components, so association is transitive within a group', async () => {
    const chain = [meta('x', ['k1', 'k2']), meta('y', ['k2', 'k3']), meta('z', ['k3', 'k4'])];
    // jaccard(x, y) = jaccard(y, z) = 1/3, jaccard(x, z) = 0
    expect(await model.colocate(chain, NO_CO_ACCESS, 0.3)).toEqual([['x', 'y', 'z']]);
  });

  it('agrees with a naive all-pairs evaluation of the association formula', async () => {
    const vocabulary = ['cat', 'cats', 'vet', 'berlin', 'rent', 'python', 'garden'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.subarray(vocabulary), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(11), fc.nat(11), fc.integer({ min: 1, max: 4 })), { maxLength: 10 }),
        fc.constantFrom(0, 0.25, 0.5, 0.75, 1),
        async (keywordSets, pairSpecs, tau) => {
          const chunks = keywordSets.map((keywords, i) => meta(`c${i}`, keywords, i));
          const n = chunks.length;
          const pairs = pairSpecs
            .map(([i, j, count]) => [`c${i % n}`, `c${j % n}`, count] as const)
            .filter(([a, b]) => a !== b);
          const stats = coAccess(Object.fromEntries(chunks.map((c, i) => [c.id, 1 + (i % 4)])), pairs);
          const expected = referenceGroups(chunks, stats, tau).filter((g) => g.length >= 2);
          expect(normalize(await model.colocate(chunks, stats, tau))).toEqual(normalize(expected));
        },
      ),
    );
  });

  it('rejects tauAssoc outside [0, 1]', async () => {
    await expect(model.colocate(chunks, NO_CO_ACCESS, 2)).rejects.toSatisfy((err: unknown) =>
      isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT'),
    );
  });
});

describe('EmbeddedModel.group', () => {
  it('partitions by association >= 0.5 and orders members by createdAt', async () => {
    const chunks = [
      meta('late', ['berlin', 'rent'], 30),
      meta('solo', ['cat'], 20),
      meta('early', ['berlin', 'rent', 'apartment'], 10),
    ];
    expect(await model.group(chunks, NO_CO_ACCESS)).toEqual([['early', 'late'], ['solo']]);
  });

  it('honours a custom groupThreshold', async () => {
    const loose = new EmbeddedModel({ groupThreshold: 0.2 });
    const chunks = [meta('p', ['a1', 'a2', 'a3']), meta('q', ['a3', 'b1', 'b2'])];
    // jaccard = 1/5 = 0.2
    expect(await loose.group(chunks, NO_CO_ACCESS)).toEqual([['p', 'q']]);
    expect(await model.group(chunks, NO_CO_ACCESS)).toEqual([['p'], ['q']]);
  });

  it('covers every id exactly once', async () => {
    const vocabulary = ['cat', 'vet', 'berlin', 'rent', 'python', 'garden', 'tomato'];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 30 }),
        fc.array(fc.subarray(vocabulary), { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(29), fc.nat(29), fc.integer({ min: 1, max: 5 })), { maxLength: 20 }),
        async (ids, keywordSets, pairSpecs) => {
          const chunks = ids.map((id, i) => meta(id, keywordSets[i % keywordSets.length] ?? [], i % 7));
          const accesses = Object.fromEntries(ids.map((id) => [id, 5]));
          const pairs = pairSpecs
            .map(([i, j, n]) => [ids[i % Math.max(1, ids.length)], ids[j % Math.max(1, ids.length)], n] as const)
            .filter((p): p is readonly [string, string, number] => p[0] !== undefined && p[1] !== undefined && p[0] !== p[1]);
          const groups = await model.group(chunks, coAccess(accesses, pairs));
          expect(groups.flat().sort()).toEqual([...ids].sort());
          for (const group of groups) expect(group.length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('returns nothing for no chunks', async () => {
    expect(await model.group([], NO_CO_ACCESS)).toEqual([]);
  });
});

describe('co-access with engine-style ids', () => {
  it('joins chunks that are only co-accessed when ids contain the separator', async () => {
    const { EmbeddedModel } = await import('../../src/model/embedded-model.js');
    const model = new EmbeddedModel();
    const a = { id: 's\u0000A', sessionId: 's', createdAt: 1, tokenCount: 1, keywords: ['apple'] };
    const b = { id: 's\u0000B', sessionId: 's', createdAt: 2, tokenCount: 1, keywords: ['zebra'] };
    const co = { accesses: new Map([[a.id, 4], [b.id, 4]]), pairs: new Map([[`${a.id}\u0000${b.id}`, 4]]) };
    expect(await model.colocate([a, b], co, 0.7)).toEqual([[a.id, b.id]]);
    expect(await model.group([a, b], co)).toEqual([[a.id, b.id]]);
  });
});

/**
 * Differential test of the LangGraph store: random operation sequences run against AkashicLangGraphStore (the adapter) and
 * LangGraph's InMemoryStore, results compared. Deliberate differences (docs/adapters.md) are kept out of the
 * comparison, not papered over:
 * - order of search results without a vector index (unspecified): compared as sets, and our pages are checked
 *   against our own full ordering;
 * - namespaces that hold no item: InMemoryStore keeps listing them, so the reference is normalized by dropping
 *   empty namespaces after every step;
 * - listNamespaces order: sets, plus our pages against our own full list;
 * - filters: only values where both agree (numbers for ordering operators, primitives for equality).
 */
import { InMemoryStore, type Item, type Operation } from '@langchain/langgraph-checkpoint';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AkashicLangGraphStore } from '../../src/adapters/langgraph/index.js';
import { memoryEngine } from './engines.js';
import { TEST_ENGINE } from '../support/test-engine.js';

const NAMESPACES = [['a'], ['a', 'b'], ['a', 'b', 'c'], ['ab'], ['ab', 'b'], ['x', 'a'], ['a', 'x'], ['50%', 'ü'], ['a', 'tab\tlabel']];
/** Most steps use a few namespaces and keys so that gets and overwrites hit. */
const HOT_NAMESPACES = [['a'], ['a', 'b'], ['ab']];
const PREFIXES = [[], ['a'], ['a', 'b'], ['ab'], ['x'], ['50%'], ['a', 'x'], ['zz']];
const KEYS = ['k1', 'k2', 'k3', '', 'k'.repeat(300)];
const WORDS = ['tea', 'coffee', 'berlin', 'paris', 'cats', 'dogs'];

const value: fc.Arbitrary<Record<string, unknown>> = fc.record(
  { n: fc.integer({ min: 0, max: 4 }), s: fc.constantFrom('red', 'blue', 'green'), b: fc.boolean(), text: fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }).map((w) => w.join(' ')) },
  { requiredKeys: ['text'] },
);
const filter: fc.Arbitrary<Record<string, unknown> | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 0, max: 4 }).map((k) => ({ n: { $gt: k } })),
  fc.integer({ min: 0, max: 4 }).map((k) => ({ n: { $lte: k } })),
  fc.integer({ min: 0, max: 4 }).map((k) => ({ n: { $gte: k, $lt: k + 2 } })),
  fc.integer({ min: 0, max: 4 }).map((k) => ({ n: k })),
  fc.constantFrom('red', 'blue').map((s) => ({ s })),
  fc.constantFrom('red', 'blue').map((s) => ({ s: { $ne: s } })),
  fc.constant({ s: { $in: ['red', 'green'] } }),
  fc.constant({ s: { $nin: ['red'] } }),
  fc.boolean().map((b) => ({ b: { $eq: b } })),
);
const ns = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOT_NAMESPACES) }, { weight: 1, arbitrary: fc.constantFrom(...NAMESPACES) });
const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('k1', 'k2') }, { weight: 1, arbitrary: fc.constantFrom(...KEYS) });

type Step =
  | { t: 'put'; ns: string[]; key: string; value: Record<string, unknown> }
  | { t: 'delete'; ns: string[]; key: string }
  | { t: 'get'; ns: string[]; key: string }
  | { t: 'search'; prefix: string[]; filter: Record<string, unknown> | undefined; query: string | undefined; limit: number; offset: number }
  | { t: 'list'; prefix: string[] | undefined; suffix: string[] | undefined; maxDepth: number | undefined; limit: number; offset: number }
  | { t: 'batch'; ops: { ns: string[]; key: string; value: Record<string, unknown> | null }[] };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant('put' as const), ns, key, value }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), ns, key }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('get' as const), ns, key }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('search' as const),
      prefix: fc.oneof({ weight: 2, arbitrary: fc.constantFrom<string[]>([], ['a']) }, { weight: 1, arbitrary: fc.constantFrom(...PREFIXES) }),
      filter,
      query: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
      limit: fc.integer({ min: 1, max: 12 }),
      offset: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('list' as const),
      prefix: fc.option(fc.constantFrom<string[]>(['a'], ['a', '*'], ['ab'], ['*', 'b'], ['x']), { nil: undefined }),
      suffix: fc.option(fc.constantFrom<string[]>(['b'], ['a'], ['*'], ['b', 'c']), { nil: undefined }),
      maxDepth: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      limit: fc.integer({ min: 1, max: 10 }),
      offset: fc.integer({ min: 0, max: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('batch' as const),
      ops: fc.array(fc.record({ ns, key, value: fc.option(value, { nil: null }) }), { minLength: 1, maxLength: 6 }),
    }),
  },
);

/** InMemoryStore keeps a namespace listed after its last item is deleted (or a delete of nothing); we do not. */
function dropEmptyNamespaces(ref: InMemoryStore): void {
  // `data` is private in the typings but a plain field at run time.
  const data = (ref as unknown as { data: Map<string, Map<string, Item>> }).data;
  for (const [k, items] of data) if (items.size === 0) data.delete(k);
}

/** How much the comparisons saw, so a vacuous run (everything empty) fails. */
// Over Redis every run opens a store on the cluster and every step is a round trip: an eighth of the runs keeps the
// tier short; the coverage floors below scale with the runs. They sit at an eighth to a fifth of what a run sees on average
// (gets that hit ≈ 0.8 per run, search hits ≈ 4, list hits ≈ 1.4; over 25 runs the hits spread from 5 to 26), so a
// vacuous generator fails and an unlucky seed does not.
const RUNS = TEST_ENGINE === 'redis' ? 25 : 200;
const seen = { gets: 0, hits: 0, searches: 0, searchHits: 0, lists: 0, listHits: 0 };

const itemId = (i: Item): string => JSON.stringify([i.namespace, i.key]);
const asSet = (items: Item[]): Map<string, unknown> => new Map(items.map((i) => [itemId(i), i.value]));
const nsSet = (list: string[][]): string[] => list.map((n) => JSON.stringify(n)).sort();

async function runSteps(steps: Step[]): Promise<void> {
  const engine = await memoryEngine();
  try {
    const ours = new AkashicLangGraphStore({ store: engine });
    const ref = new InMemoryStore();
    for (const s of steps) {
      switch (s.t) {
        case 'put':
          await Promise.all([ours.put(s.ns, s.key, s.value), ref.put(s.ns, s.key, s.value)]);
          break;
        case 'delete':
          await Promise.all([ours.delete(s.ns, s.key), ref.delete(s.ns, s.key)]);
          break;
        case 'batch': {
          const ops: Operation[] = s.ops.map((o) => ({ namespace: o.ns, key: o.key, value: o.value }));
          await Promise.all([ours.batch(ops), ref.batch(ops)]);
          break;
        }
        case 'get': {
          const [a, b] = await Promise.all([ours.get(s.ns, s.key), ref.get(s.ns, s.key)]);
          expect(a === null).toBe(b === null);
          seen.gets++;
          if (a !== null) seen.hits++;
          if (a !== null && b !== null) {
            expect(a.value).toEqual(b.value);
            expect(a.key).toBe(b.key);
            expect(a.namespace).toEqual(b.namespace);
            expect(a.createdAt.getTime()).toBeLessThanOrEqual(a.updatedAt.getTime());
          }
          break;
        }
        case 'search': {
          const opts = { ...(s.filter === undefined ? {} : { filter: s.filter }), ...(s.query === undefined ? {} : { query: s.query }) };
          const [all, refAll, page] = await Promise.all([
            ours.search(s.prefix, { ...opts, limit: 1000 }),
            ref.search(s.prefix, { ...opts, limit: 1000 }),
            ours.search(s.prefix, { ...opts, limit: s.limit, offset: s.offset }),
          ]);
          expect(asSet(all)).toEqual(asSet(refAll));
          seen.searches++;
          seen.searchHits += all.length;
          expect(all.length).toBe(refAll.length);
          expect(page.map(itemId)).toEqual(all.slice(s.offset, s.offset + s.limit).map(itemId));
          if (s.query !== undefined) expect(all.every((i) => typeof i.score === 'number')).toBe(true);
          break;
        }
        case 'list': {
          const opts = { ...(s.prefix === undefined ? {} : { prefix: s.prefix }), ...(s.suffix === undefined ? {} : { suffix: s.suffix }), ...(s.maxDepth === undefined ? {} : { maxDepth: s.maxDepth }) };
          const [all, refAll, page] = await Promise.all([
            ours.listNamespaces({ ...opts, limit: 1000 }),
            ref.listNamespaces({ ...opts, limit: 1000 }),
            ours.listNamespaces({ ...opts, limit: s.limit, offset: s.offset }),
          ]);
          expect(nsSet(all)).toEqual(nsSet(refAll));
          seen.lists++;
          seen.listHits += all.length;
          expect(page).toEqual(all.slice(s.offset, s.offset + s.limit));
          break;
        }
      }
      dropEmptyNamespaces(ref);
    }
  } finally {
    await engine.close();
  }
}

describe('AkashicLangGraphStore against InMemoryStore', () => {
  it('agrees on random operation sequences', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40, size: 'max' }), runSteps), { numRuns: RUNS });
    expect(seen.hits).toBeGreaterThan(RUNS / 10);
    expect(seen.searchHits).toBeGreaterThan(RUNS / 2);
    expect(seen.listHits).toBeGreaterThan(RUNS / 4);
  });
});

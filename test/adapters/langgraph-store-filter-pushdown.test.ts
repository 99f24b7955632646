import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AkashicStore as Engine } from '../../src/index.js';
import { AkashicLangGraphStore } from '../../src/adapters/langgraph/index.js';
import { durableEngines } from './engines.js';

/** LangGraph's filter semantics, written out independently of the adapter. */
function reference(value: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  const ord = (a: unknown, b: unknown): number | null =>
    typeof a === 'number' && typeof b === 'number' ? a - b : typeof a === 'string' && typeof b === 'string' ? (a < b ? -1 : a > b ? 1 : 0) : null;
  return Object.entries(filter).every(([f, cond]) => {
    const v = Object.hasOwn(value, f) ? value[f] : undefined;
    if (cond === null || typeof cond !== 'object' || Array.isArray(cond) || !Object.keys(cond).some((k) => k.startsWith('$'))) return isDeepStrictEqual(v, cond);
    return Object.entries(cond).every(([op, arg]) => {
      if (op === '$eq') return isDeepStrictEqual(v, arg);
      if (op === '$ne') return !isDeepStrictEqual(v, arg);
      if (op === '$in') return (arg as unknown[]).some((x) => isDeepStrictEqual(v, x));
      if (op === '$nin') return !(arg as unknown[]).some((x) => isDeepStrictEqual(v, x));
      const c = ord(v, arg);
      if (c === null) return false;
      return op === '$gt' ? c > 0 : op === '$gte' ? c >= 0 : op === '$lt' ? c < 0 : c <= 0;
    });
  });
}

const FIELDS = ['a', 'b', 'c'];
// Numbers and numeric-looking strings side by side: "10" < "9" as strings, 10 > 9 as numbers.
const scalar = fc.oneof(fc.constantFrom(0, 3, 9, 10, -2.5), fc.constantFrom('9', '10', 'ann', 'bob', '', 's:x', 'é'), fc.boolean(), fc.constant(null));
const fieldValue = fc.oneof(scalar, fc.constant(['x']), fc.constant({ k: 1 }));
const item = fc.dictionary(fc.constantFrom(...FIELDS), fieldValue, { maxKeys: 3 });
const condition = fc.oneof(
  fieldValue,
  fc.record({ $eq: fieldValue }),
  fc.record({ $ne: scalar }),
  fc.record({ $in: fc.array(scalar, { minLength: 1, maxLength: 3 }) }),
  fc.record({ $nin: fc.array(scalar, { maxLength: 3 }) }),
  fc.constantFrom('$gt', '$gte', '$lt', '$lte').chain((op) => scalar.map((v) => ({ [op]: v }))),
);
const filter = fc.dictionary(fc.constantFrom(...FIELDS), condition, { minKeys: 1, maxKeys: 2 });

describe.each(durableEngines())('LangGraph store search filters pushed down to attributes (%s)', (_name, open) => {
  let engine: Engine;
  let cleanup: () => Promise<void>;
  let store: AkashicLangGraphStore;
  beforeEach(async () => {
    ({ engine, cleanup } = await open());
    store = new AkashicLangGraphStore({ store: engine });
  });
  afterEach(async () => {
    await engine.close();
    await cleanup();
  });

  it('returns exactly the items LangGraph semantics select (property over mixed types and operators)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 8 }), fc.array(filter, { minLength: 1, maxLength: 6 }), async (items, filters) => {
        const ns = ['p', `run${run++}`];
        for (const [i, v] of items.entries()) await store.put(ns, `k${i}`, v);
        for (const f of filters) {
          const got = (await store.search(ns, { filter: f, limit: 100 })).map((x) => x.key).sort();
          const want = items.flatMap((v, i) => (reference(v, f) ? [`k${i}`] : [])).sort();
          expect(got, JSON.stringify(f)).toEqual(want);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('reads only the bodies of items whose attributes match', async () => {
    for (let i = 0; i < 40; i++) await store.put(['docs'], `d${i}`, { n: i, topic: i % 10 === 0 ? 'tea' : 'coffee' });
    const getMany = vi.spyOn(engine, 'getMany');
    const hits = await store.search(['docs'], { filter: { topic: 'tea', n: { $gte: 10 } }, limit: 100 });
    expect(hits.map((h) => h.key).sort()).toEqual(['d10', 'd20', 'd30']);
    const bodiesRead = getMany.mock.calls.reduce((n, c) => n + c[1].length, 0);
    expect(bodiesRead).toBe(3);
    // The attributes are in the item's directory entry, typed by the field's JSON type.
    const listed = [];
    for await (const e of engine.list('docs')) listed.push(e.entry.attributes);
    expect(listed[1]).toMatchObject({ 'lg.n.n': '1', 'lg.s.topic': 's:coffee', 'lg.format': '2' });
  });

  it('still checks items whose fields do not fit attributes, on their bodies', async () => {
    const wide = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, i]));
    await store.put(['w'], 'wide', { ...wide, topic: 'tea' });
    await store.put(['w'], 'long', { topic: 'tea', blob: 'x'.repeat(20_000) });
    await store.put(['w'], 'plain', { topic: 'coffee' });
    const hits = await store.search(['w'], { filter: { topic: { $eq: 'tea' } } });
    expect(hits.map((h) => h.key).sort()).toEqual(['long', 'wide']);
    for await (const e of engine.list('w')) if (e.entry.attributes?.['lg.key'] !== 'plain') expect(e.entry.attributes?.['lg.format']).toBe('1');
  });
});

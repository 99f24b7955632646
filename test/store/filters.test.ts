import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, type AkashicStore, type ChunkFilter } from '../../src/index.js';
import { BACKENDS, type Backend } from '../support/backends.js';

describe.each(BACKENDS)('filters on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  let clock = 1000;
  beforeEach(async () => {
    clock = 1000;
    be = await make();
    store = await be.open({ now: () => clock });
    const rows: [string, Record<string, string>][] = [
      ['tea in kyoto', { topic: 'travel', priority: '2', city: 'kyoto' }],
      ['tea at home', { topic: 'food', priority: '10' }],
      ['tea with bob', { topic: 'people', priority: '5', city: 'osaka' }],
      // fromEntries: a literal `__proto__` key would set the prototype instead of an attribute.
      ['tea recipe', Object.fromEntries([['topic', 'food'], ['__proto__', 'kept as data']])],
    ];
    for (const [text, attributes] of rows) {
      await store.put('u', { sessionId: 's', text, keywords: ['tea'], attributes });
      clock += 100;
    }
    await store.put('u', { sessionId: 's', text: 'deleted tea', keywords: ['tea'], attributes: { topic: 'food' } }).then(({ chunkId }) =>
      store.write('u', [{ op: 'delete', sessionId: 's', chunkId }]),
    );
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  async function texts(filter: ChunkFilter): Promise<string[]> {
    const out: string[] = [];
    const refs = [];
    for await (const e of store.list('u', { filter, includeDeleted: true })) refs.push({ sessionId: e.sessionId, chunkId: e.chunkId });
    for (const c of (await store.getMany('u', refs)).chunks) out.push(c!.text);
    return out;
  }

  it('applies every attribute operator and the time bounds to list', async () => {
    expect(await texts({ attributes: { topic: 'food' } })).toEqual(['tea at home', 'tea recipe']);
    expect(await texts({ attributes: { topic: { eq: 'food' } } })).toEqual(['tea at home', 'tea recipe']);
    expect(await texts({ attributes: { topic: { ne: 'food' } } })).toEqual(['tea in kyoto', 'tea with bob']);
    expect(await texts({ attributes: { topic: { in: ['travel', 'people'] } } })).toEqual(['tea in kyoto', 'tea with bob']);
    // Numeric comparison when both sides are numbers: '10' > '5' although '10' < '5' as strings.
    expect(await texts({ attributes: { priority: { gt: 4 } } })).toEqual(['tea at home', 'tea with bob']);
    expect(await texts({ attributes: { priority: { gte: '5', lt: 10 } } })).toEqual(['tea with bob']);
    expect(await texts({ attributes: { priority: { lte: 2 } } })).toEqual(['tea in kyoto']);
    expect(await texts({ attributes: { city: { gt: 'l' } } })).toEqual(['tea with bob']);
    expect(await texts({ attributes: { city: { exists: true } } })).toEqual(['tea in kyoto', 'tea with bob']);
    expect(await texts({ attributes: { city: { exists: false } } })).toEqual(['tea at home', 'tea recipe']);
    expect(await texts({ attributes: Object.fromEntries([['__proto__', 'kept as data']]) })).toEqual(['tea recipe']);
    expect(await texts({ createdAfter: 1100 })).toEqual(['tea with bob', 'tea recipe']);
    expect(await texts({ createdBefore: 1100 })).toEqual(['tea in kyoto']);
    expect(await texts({ createdAfter: 1000, createdBefore: 1300, attributes: { topic: 'food' } })).toEqual(['tea at home']);
  });

  it('keeps attributes in step with updates', async () => {
    const [first] = await (async () => {
      const out = [];
      for await (const e of store.list('u')) out.push(e);
      return out;
    })();
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: first!.chunkId, attributes: { topic: 'food' } }]);
    expect(await texts({ attributes: { topic: 'food' } })).toEqual(['tea in kyoto', 'tea at home', 'tea recipe']);
    expect(await texts({ attributes: { city: { exists: true } } })).toEqual(['tea with bob']);
  });

  it('filters recall before SELECT, so the budget goes to matching chunks', async () => {
    const memory = new AkashicMemory(store, { chunkGateTokens: 100_000, relocateEveryRecalls: 0 });
    const r = await memory.recall({ user: 'u', session: 's', query: 'tea', topP: 1, filter: { attributes: { topic: 'people' } } });
    expect(r.chunks.map((c) => c.text)).toEqual(['tea with bob']);
    expect(r.candidates).toBe(1);
    const none = await memory.recall({ user: 'u', session: 's', query: 'tea', filter: { attributes: { topic: 'nothing' } } });
    expect(none.chunks).toEqual([]);
    await expect(memory.recall({ user: 'u', session: 's', query: 'tea', filter: { attributes: { topic: { like: 'x' } } } as never })).rejects.toMatchObject({
      code: 'AKASHIC_INVALID_ARGUMENT',
    });
    await memory.close();
  });

  it('rejects malformed filters with a typed error', async () => {
    const bad: unknown[] = [
      null,
      [],
      { nope: 1 },
      { createdAfter: 'yesterday' },
      { createdBefore: Number.NaN },
      { attributes: [] },
      { attributes: { a: 5 } },
      { attributes: { a: {} } },
      { attributes: { a: { in: 'x' } } },
      { attributes: { a: { gt: {} } } },
      { attributes: { a: { exists: 'yes' } } },
      { attributes: { a: { regex: '.*' } } },
    ];
    for (const filter of bad) {
      const run = async (): Promise<void> => {
        for await (const _ of store.list('u', { filter: filter as ChunkFilter })) void _;
      };
      await expect(run()).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    }
  });
});

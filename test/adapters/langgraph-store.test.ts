import { InvalidNamespaceError, type Item, type Operation, type SearchItem } from '@langchain/langgraph-checkpoint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicError, AkashicStore as Engine } from '../../src/index.js';
import { AkashicLangGraphStore } from '../../src/adapters/langgraph/index.js';
import { DURABLE_ENGINE_NAME, MEMORY_ENGINE_NAME, diskEngine, memoryEngine } from './engines.js';
import { BACKENDS, type Attached } from './backends.js';

/** A deterministic bag-of-words embedding over a tiny vocabulary, enough to rank by cosine. */
class WordEmbeddings {
  static readonly vocab = ['tea', 'coffee', 'berlin', 'paris', 'cats'];
  calls = 0;
  embed(text: string): number[] {
    const words = text.toLowerCase().split(/\W+/);
    return WordEmbeddings.vocab.map((w) => words.filter((x) => x === w).length);
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls++;
    return texts.map((t) => this.embed(t));
  }
  async embedQuery(text: string): Promise<number[]> {
    return this.embed(text);
  }
}

describe.each(BACKENDS)(`AkashicLangGraphStore on ${MEMORY_ENGINE_NAME} ($name)`, (backend) => {
  let engine: Engine;
  let attached: Attached;
  let store: AkashicLangGraphStore;
  let clock = 1_000;
  beforeEach(async () => {
    clock = 1_000;
    engine = await memoryEngine({ now: () => clock });
    attached = await backend.attach(engine);
    store = new AkashicLangGraphStore({ store: attached.store });
  });
  afterEach(async () => {
    await attached.close();
    await engine.close();
  });

  it('does not let the prefix ["a"] match ["ab"]', async () => {
    await store.put(['a'], 'k', { v: 1 });
    await store.put(['ab'], 'k', { v: 2 });
    await store.put(['a', 'b'], 'k', { v: 3 });
    const hits = await store.search(['a']);
    expect(hits.map((h) => h.namespace).sort()).toEqual([['a'], ['a', 'b']]);
    expect(await store.listNamespaces({ prefix: ['a'] })).toEqual([['a'], ['a', 'b']]);
    expect(await store.listNamespaces({ prefix: ['ab'] })).toEqual([['ab']]);
  });

  it('keeps createdAt and moves updatedAt on overwrite', async () => {
    await store.put(['u', 'prefs'], 'theme', { color: 'dark' });
    clock = 5_000;
    await store.put(['u', 'prefs'], 'theme', { color: 'light' });
    const item = await store.get(['u', 'prefs'], 'theme');
    expect(item?.value).toEqual({ color: 'light' });
    expect(item?.createdAt.getTime()).toBe(1_000);
    expect(item?.updatedAt.getTime()).toBe(5_000);
  });

  it('puts a key again after deleting it, and forgets deleted namespaces', async () => {
    await store.put(['u'], 'k', { n: 1 });
    await store.delete(['u'], 'k');
    expect(await store.get(['u'], 'k')).toBeNull();
    expect(await store.listNamespaces()).toEqual([]);
    await store.put(['u'], 'k', { n: 2 });
    expect((await store.get(['u'], 'k'))?.value).toEqual({ n: 2 });
    expect(await store.search(['u'])).toHaveLength(1);
  });

  it('reads the state before the batch and applies the last write per key', async () => {
    await store.put(['u'], 'k', { n: 0 });
    const results: unknown[] = await store.batch<Operation[]>([
      { namespace: ['u'], key: 'k' },
      { namespace: ['u'], key: 'k', value: { n: 1 } },
      { namespace: ['u'], key: 'k', value: { n: 2 } },
      { namespacePrefix: ['u'], limit: 10, offset: 0 },
    ]);
    const before = results[0] as Item | null;
    const list = results[3] as SearchItem[];
    expect(before?.value).toEqual({ n: 0 });
    expect(list.map((i) => i.value)).toEqual([{ n: 0 }]);
    expect((await store.get(['u'], 'k'))?.value).toEqual({ n: 2 });
  });

  it('ranks a query lexically, matches first, every item kept', async () => {
    await store.put(['u', 'm'], '1', { text: 'Alice drinks green tea every morning' });
    await store.put(['u', 'm'], '2', { text: 'Alice moved to Berlin' });
    await store.put(['u', 'm'], '3', { text: 'Bob prefers coffee' }, false);
    const hits = await store.search(['u'], { query: 'where does alice live? berlin' });
    expect(hits.map((h) => h.key)).toEqual(['2', '1', '3']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score!);
    expect(hits[2]!.score).toBe(0);
  });

  it('ranks a query by cosine with an embeddings index; unindexed items come last, unscored', async () => {
    const embeddings = new WordEmbeddings();
    const vstore = new AkashicLangGraphStore({ store: attached.store, index: { dims: 5, embeddings: embeddings as never, fields: ['text'] } });
    await vstore.batch([
      { namespace: ['v'], key: 'tea', value: { text: 'tea tea coffee' } },
      { namespace: ['v'], key: 'paris', value: { text: 'paris cats' } },
      { namespace: ['v'], key: 'plain', value: { text: 'tea' }, index: false },
    ]);
    expect(embeddings.calls).toBe(1);
    const hits = await vstore.search(['v'], { query: 'tea' });
    expect(hits.map((h) => h.key)).toEqual(['tea', 'paris', 'plain']);
    expect(hits[0]!.score).toBeCloseTo(2 / Math.sqrt(5), 5);
    expect(hits[1]!.score).toBe(0);
    expect(hits[2]!.score).toBeUndefined();
  });

  it('filters deeply and type-strictly', async () => {
    await store.put(['f'], 'a', { tags: ['x', 'y'], n: 3, name: 'ann' });
    await store.put(['f'], 'b', { tags: ['x'], n: '4', name: 'bob' });
    const keys = async (filter: Record<string, unknown>): Promise<string[]> => (await store.search(['f'], { filter })).map((i) => i.key).sort();
    expect(await keys({ tags: ['x', 'y'] })).toEqual(['a']);
    expect(await keys({ n: { $gt: 2 } })).toEqual(['a']);
    expect(await keys({ name: { $gte: 'b' } })).toEqual(['b']);
    expect(await keys({ name: { $in: ['ann', 'zed'] } })).toEqual(['a']);
    expect(await keys({ missing: { $ne: 1 } })).toEqual(['a', 'b']);
    await expect(store.search(['f'], { filter: { n: { $regex: 'a' } } })).rejects.toSatisfy((e) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
  });

  it('round-trips labels with control characters and percent signs, and rejects namespaces that cannot fit', async () => {
    const ns = ['50%', 'tab\there', 'é'];
    await store.put(ns, 'k', { ok: true });
    expect(await store.listNamespaces()).toEqual([ns]);
    expect((await store.get(ns, 'k'))?.namespace).toEqual(ns);
    expect(await engine.users()).toEqual(['50%25']);
    await expect(store.put(['u', 'x'.repeat(300)], 'k', {})).rejects.toBeInstanceOf(InvalidNamespaceError);
    await expect(store.put(['a.b'], 'k', {})).rejects.toBeInstanceOf(InvalidNamespaceError);
    expect(await store.get(['u', 'x'.repeat(300)], 'k')).toBeNull();
  });

  it('lists namespaces with suffix, wildcard, maxDepth and pagination', async () => {
    for (const ns of [['a', 'x', 'v1'], ['a', 'y', 'v1'], ['b', 'x', 'v2'], ['b']]) await store.put(ns, 'k', {});
    expect(await store.listNamespaces({ suffix: ['v1'] })).toEqual([['a', 'x', 'v1'], ['a', 'y', 'v1']]);
    expect(await store.listNamespaces({ prefix: ['*', 'x'] })).toEqual([['a', 'x', 'v1'], ['b', 'x', 'v2']]);
    expect(await store.listNamespaces({ maxDepth: 1 })).toEqual([['a'], ['b']]);
    expect(await store.listNamespaces({ limit: 2, offset: 1 })).toEqual([['a', 'y', 'v1'], ['b']]);
  });

  it('finds items whose keys are too long for a readable marker', async () => {
    const key = 'k'.repeat(1000);
    await store.put(['u'], key, { n: 1 });
    await store.put(['u'], key, { n: 2 });
    expect((await store.get(['u'], key))?.value).toEqual({ n: 2 });
    expect(await store.search(['u'])).toHaveLength(1);
  });

  it('shares the engine user with the first label and keeps items out of conversation sessions', async () => {
    await store.put(['alice', 'memories'], 'm1', { text: 'likes tea' });
    expect(await engine.sessions('alice')).toEqual(['lg.store.memories']);
  });
});

describe(`AkashicLangGraphStore on ${DURABLE_ENGINE_NAME}`, () => {
  it('keeps items across a close and reopen', async () => {
    const disk = await diskEngine();
    try {
      const store = new AkashicLangGraphStore({ store: disk.engine });
      await store.put(['alice', 'memories'], 'm1', { text: 'Alice likes green tea' });
      await store.put(['alice', 'memories'], 'm2', { text: 'Alice lives in Berlin' });
      await disk.engine.close();
      const engine = await disk.reopen();
      const again = new AkashicLangGraphStore({ store: engine });
      expect((await again.get(['alice', 'memories'], 'm1'))?.value).toEqual({ text: 'Alice likes green tea' });
      expect((await again.search(['alice'], { query: 'berlin' }))[0]?.key).toBe('m2');
      expect(await again.listNamespaces()).toEqual([['alice', 'memories']]);
      await engine.close();
    } finally {
      await disk.cleanup();
    }
  });
});

describe('AkashicLangGraphStore options', () => {
  it('rejects bad options with AKASHIC_INVALID_ARGUMENT', async () => {
    const engine = await memoryEngine();
    expect(() => new AkashicLangGraphStore({ store: engine, keywordLimit: 0 })).toThrow(/keywordLimit/);
    expect(() => new AkashicLangGraphStore({} as never)).toThrow(/store/);
    await engine.close();
  });
});

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, EmbeddedModel, OpenAIEmbedder, type AkashicStore, type Embedder } from '../../src/index.js';
import { associationComponents } from '../../src/gc/association.js';
import { memoryStore } from './fixtures.js';
import { CONCEPTS, conceptVector, startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from '../model/scripted-embeddings-server.js';

let server: ScriptedEmbeddingsServer;
beforeAll(async () => {
  server = await startScriptedEmbeddingsServer(conceptVector);
});
afterAll(async () => {
  await server.close();
});

const DIMS = CONCEPTS.length + 1;
const lexicalOnly = (): EmbeddedModel => new EmbeddedModel({ denseSignal: false });

describe('AkashicMemory with an Embedder (a /v1/embeddings server on 127.0.0.1)', () => {
  let store: AkashicStore;
  let embedder: OpenAIEmbedder;
  let memory: AkashicMemory;
  beforeEach(async () => {
    server.reset();
    ({ store } = await memoryStore());
    embedder = new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: 'k', model: 'toy', dimensions: DIMS, retryDelayMs: 0, maxRetries: 0 });
    memory = new AkashicMemory(store, { model: lexicalOnly(), embedder, relocateEveryRecalls: 0 });
  });
  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  async function tell(session: string, text: string): Promise<void> {
    await memory.appendTurn({ user: 'alice', session, role: 'user', text });
    await memory.endSession({ user: 'alice', session });
  }

  it('stores each compacted chunk with its vector and the embedder id', async () => {
    await tell('s1', 'I moved to Lisbon last week.');
    const listed = [];
    for await (const e of store.list('alice')) listed.push(e);
    expect(listed).toHaveLength(1);
    const r = await store.get('alice', 's1', listed[0]!.chunkId);
    expect(r!.embedding!.model).toBe(`openai:toy@${DIMS}`);
    expect(Array.from(r!.embedding!.vector)).toEqual(Array.from(Float32Array.from(conceptVector(r!.text))));
  });

  it('recalls a fact asked in other words through the fused cosine ranking, where lexical SELECT finds nothing', async () => {
    await tell('s1', 'I moved to Lisbon last week.');
    await tell('s2', 'I adopted a puppy from the shelter.');
    await tell('s3', 'I got hired as an engineer.');
    const q = { user: 'alice', session: 'q', scope: 'user' as const, query: 'Where does she live?', topP: 1 };
    const r = await memory.recall(q);
    expect(r.passages.map((p) => p.sessionId)).toEqual(['s1']);
    const plain = new AkashicMemory(store, { model: lexicalOnly(), relocateEveryRecalls: 0 });
    try {
      expect((await plain.recall(q)).passages).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('ignores stored vectors of another embedder id or dimension (lexical ranking only)', async () => {
    await tell('s1', 'I moved to Lisbon last week.');
    const other: Embedder = { id: 'another-model', dimensions: DIMS, embed: async (texts) => texts.map((t) => Float32Array.from(conceptVector(t))) };
    const m2 = new AkashicMemory(store, { model: lexicalOnly(), embedder: other, relocateEveryRecalls: 0 });
    try {
      expect((await m2.recall({ user: 'alice', session: 'q', scope: 'user', query: 'Where does she live?' })).passages).toEqual([]);
    } finally {
      await m2.close();
    }
  });

  it('a failing embedder fails the compaction with AKASHIC_MODEL and changes nothing; the turns stay active', async () => {
    await memory.appendTurn({ user: 'alice', session: 's1', role: 'user', text: 'I moved to Lisbon last week.' });
    server.enqueue({ kind: 'status', status: 500 });
    await expect(memory.endSession({ user: 'alice', session: 's1' })).rejects.toMatchObject({ code: 'AKASHIC_MODEL' });
    const listed = [];
    for await (const e of store.list('alice')) listed.push(e);
    expect(listed).toEqual([]);
    await memory.endSession({ user: 'alice', session: 's1' });
    for await (const e of store.list('alice')) listed.push(e);
    expect(listed).toHaveLength(1);
  });

  it('an embedder answering outside its contract (wrong length) is AKASHIC_MODEL', async () => {
    const bad: Embedder = { id: 'bad', dimensions: 4, embed: async (texts) => texts.map(() => new Float32Array(3)) };
    const m2 = new AkashicMemory(store, { embedder: bad, relocateEveryRecalls: 0 });
    try {
      await expect(m2.recall({ user: 'alice', session: 'q', query: 'x' })).rejects.toMatchObject({ code: 'AKASHIC_MODEL' });
    } finally {
      await m2.close();
    }
    expect(() => new AkashicMemory(store, { embedder: { id: '', dimensions: 4, embed: bad.embed } })).toThrow(expect.objectContaining({ code: 'AKASHIC_INVALID_ARGUMENT' }));
  });
});

describe('association by cosine (COLOCATE and GC grouping)', () => {
  const chunk = (id: string, text: string, model = 'm') => ({ id, createdAt: Number(id.slice(1)), keywords: [id], embedding: { model, vector: Float32Array.from(conceptVector(text)) } });
  const none = { accesses: new Map<string, number>(), pairs: new Map<string, number>() };

  it('groups chunks whose vectors are close although they share no keyword', () => {
    const groups = associationComponents([chunk('c1', 'moved to Lisbon'), chunk('c2', 'my apartment'), chunk('c3', 'a puppy')], none, 0.7);
    expect(groups.map((g) => g.map((c) => c.id))).toEqual([['c1', 'c2'], ['c3']]);
  });

  it('never compares vectors of different models', () => {
    const groups = associationComponents([chunk('c1', 'moved to Lisbon'), chunk('c2', 'my apartment', 'other')], none, 0.7);
    expect(groups).toHaveLength(2);
  });
});

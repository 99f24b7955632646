/**
 * Embedder calls leave cost receipts like model calls (call `embed`): input tokens from the server's usage, else
 * the tokenizer's count of the texts; 0 for a local embedder; a failed call counted as failed; retries counted. They
 * appear in the operation's event and in the store's totals under the `embedding` kind.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, OpenAIEmbedder, type AkashicStore, type CompactionEvent, type Embedder, type RecallEvent } from '../../src/index.js';
import { CONCEPTS, conceptVector, startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from '../model/scripted-embeddings-server.js';
import { memoryStore, reportingModel, sentence, tokenizer } from './fixtures.js';

const DIMS = CONCEPTS.length + 1;
let server: ScriptedEmbeddingsServer;
beforeAll(async () => {
  server = await startScriptedEmbeddingsServer(conceptVector);
});
afterAll(async () => server.close());

/** Appends until the gate compacts (awaited), and returns the compaction's event. */
async function compactOnce(memory: AkashicMemory, user: string): Promise<{ event: CompactionEvent | null; error: unknown }> {
  let event: CompactionEvent | null = null;
  const stop = memory.on('compaction', (e) => (event = e));
  try {
    for (let i = 0; ; i++) {
      const r = await memory.appendTurn({ user, session: 's', role: i % 2 === 0 ? 'user' : 'assistant', text: sentence('lisbon'), turnId: `t${i}` });
      if (r.compacted !== undefined || r.compactionError !== undefined) return { event, error: r.compactionError };
    }
  } finally {
    stop();
  }
}

describe('embedder receipts', () => {
  let store: AkashicStore;
  beforeEach(async () => {
    server.reset();
    ({ store } = await memoryStore());
  });

  it('carry the server-reported input tokens in the compaction and recall events and the store totals', async () => {
    const embedder = new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: 'k', model: 'toy', dimensions: DIMS, retryDelayMs: 0, maxRetries: 1 });
    const memory = new AkashicMemory(store, { model: reportingModel(), embedder, chunkGateTokens: 60, relocateEveryRecalls: 0, writeBack: 'await' });
    const { event } = await compactOnce(memory, 'u');
    const embeds = event!.modelCalls.filter((c) => c.call === 'embed');
    expect(embeds.length).toBeGreaterThanOrEqual(1);
    for (const c of embeds) expect(c).toMatchObject({ model: 'toy', usageSource: 'server', completionTokens: 0, retries: 0, ok: true });
    const texts = server.requests.reduce((n, q) => n + (Array.isArray(q.input) ? q.input.length : 1), 0);
    expect(embeds.reduce((n, c) => n + c.promptTokens, 0)).toBe(3 * texts);

    // One retry: the receipt counts it, and the server's usage of the request that answered.
    server.enqueue({ kind: 'status', status: 500 });
    let recalled: RecallEvent | null = null;
    memory.on('recall', (e) => (recalled = e));
    await memory.recall({ user: 'u', session: 's', query: 'lisbon' });
    const q = recalled!.modelCalls.filter((c) => c.call === 'embed');
    expect(q).toEqual([expect.objectContaining({ promptTokens: 3, completionTokens: 0, retries: 1, ok: true, usageSource: 'server' })]);

    const s = await store.stats();
    expect(s.modelUsage.byOperation.embedding).toMatchObject({ calls: embeds.length + 1, failedCalls: 0, promptTokens: 3 * texts + 3, completionTokens: 0, retries: 1 });
    expect(s.modelUsage.byCall.embed).toEqual(s.modelUsage.byOperation.embedding);
    // Embedder calls are not counted again under the operation that made them.
    expect(s.modelUsage.byOperation.recall!.calls).toBe(recalled!.modelCalls.length - 1);
    await memory.close();
    await store.close();
  });

  it('count a failed call as failed, with its input estimated by the tokenizer', async () => {
    const embedder = new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: 'k', model: 'toy', dimensions: DIMS, retryDelayMs: 0, maxRetries: 0 });
    const memory = new AkashicMemory(store, { model: reportingModel(), embedder, chunkGateTokens: 60, relocateEveryRecalls: 0, writeBack: 'await' });
    server.enqueue({ kind: 'status', status: 500 });
    const { error } = await compactOnce(memory, 'u');
    expect(error).toMatchObject({ code: 'AKASHIC_MODEL' });
    const s = await store.stats();
    const failed = s.modelUsage.byOperation.embedding!;
    expect(failed).toMatchObject({ calls: 1, failedCalls: 1, completionTokens: 0 });
    const text = (server.requests[0]!.input as string[]).join('');
    expect(failed.promptTokens).toBeGreaterThan(0);
    expect(failed.promptTokens).toBeLessThanOrEqual(tokenizer.count(text) + 2);
    await memory.close();
    await store.close();
  });

  it('cost nothing for a local embedder and are estimated for one that reports nothing', async () => {
    const vector = (t: string): Float32Array => Float32Array.of(1, t.length % 5);
    const local: Embedder = { id: 'local-2d', dimensions: 2, local: true, embed: async (texts) => texts.map(vector) };
    const silent: Embedder = { id: 'silent-2d', dimensions: 2, embed: async (texts) => texts.map(vector) };
    for (const [embedder, source] of [[local, 'local'], [silent, 'estimated']] as const) {
      const memory = new AkashicMemory(store, { model: reportingModel(), embedder, relocateEveryRecalls: 0 });
      let recalled: RecallEvent | null = null;
      memory.on('recall', (e) => (recalled = e));
      await memory.recall({ user: `u-${source}`, session: 's', query: 'where do I live now' });
      const [receipt] = recalled!.modelCalls.filter((c) => c.call === 'embed');
      expect(receipt).toMatchObject({ model: embedder.id, usageSource: source, completionTokens: 0, ok: true });
      expect(receipt!.promptTokens).toBe(source === 'local' ? 0 : tokenizer.count('where do I live now'));
      expect((await store.stats()).modelUsage.byUser[`u-${source}`]!.calls).toBe(recalled!.modelCalls.length);
      await memory.close();
    }
    await store.close();
  });
});

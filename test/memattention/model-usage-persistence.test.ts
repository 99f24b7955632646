/**
 * Model usage persists per user and per kind in the user's accounting: a compaction's usage (its embedder calls
 * included, under `embedding`) lands with the compaction's own commit; a recall's is persisted by the user's next
 * commit or at close; a reopened store shows the same totals; verify knows the rows; a purge removes them with the
 * user. On every backend of the shared suite (Redis when a cluster is up).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicMemory, OpenAIEmbedder, type AkashicStore } from '../../src/index.js';
import { decodeAccounting } from '../../src/record/accounting.js';
import { accountingKey } from '../../src/store/kv/keys.js';
import type { UsageTotals } from '../../src/api/model-usage.js';
import { BACKENDS, type Backend } from '../support/backends.js';
import { CONCEPTS, conceptVector, startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from '../model/scripted-embeddings-server.js';
import { reportingModel, sentence } from './fixtures.js';

const U = 'usage-user';
const OTHER = 'usage-other';

/** The user's accounting record as stored now (not what the process holds in memory). */
async function storedUsage(be: Backend, user: string) {
  const v = await be.raw().alloc.get(accountingKey(user));
  return v === undefined ? [] : decodeAccounting(v, 'accounting').modelUsage;
}

/** Every key of every family that names `user`. */
async function keysNaming(be: Backend, user: string): Promise<string[]> {
  const out: string[] = [];
  for (const [name, family] of Object.entries(be.raw())) {
    for await (const k of family.keys()) if (k.includes(user)) out.push(`${name}:${JSON.stringify(k)}`);
  }
  return out;
}

let server: ScriptedEmbeddingsServer;
beforeAll(async () => {
  server = await startScriptedEmbeddingsServer(conceptVector);
});
afterAll(async () => server.close());

describe.each(BACKENDS)('persisted model usage on $name', ({ make }) => {
  it('persists per kind with the work, survives a reopen, is verified, and leaves with a purge', async () => {
    server.reset();
    const be = await make();
    let store: AkashicStore = await be.open();
    try {
      const embedder = new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: 'k', model: 'toy', dimensions: CONCEPTS.length + 1, retryDelayMs: 0, maxRetries: 0 });
      let memory = new AkashicMemory(store, { model: reportingModel(), embedder, chunkGateTokens: 60, relocateEveryRecalls: 0 });
      for (let i = 0; ; i++) {
        const r = await memory.appendTurn({ user: U, session: 's1', role: i % 2 === 0 ? 'user' : 'assistant', text: sentence('espresso'), turnId: `t${i}` });
        if (r.compactionScheduled === true) break;
      }
      await memory.flush();
      await memory.appendTurn({ user: OTHER, session: 's1', role: 'user', text: 'a short note', turnId: 'o1' });

      // The compaction's usage is in the record its own commit wrote, before any close.
      const afterCompaction = await storedUsage(be, U);
      expect(afterCompaction.find((r) => r.kind === 'compaction' && r.call === 'compress')).toMatchObject({ calls: 1, failedCalls: 0, promptTokens: 100, completionTokens: 20 });
      expect(afterCompaction.find((r) => r.kind === 'compaction' && r.call === 'buildMeta')).toMatchObject({ calls: 1, promptTokens: 10, completionTokens: 5 });
      // The embedder's calls are their own kind: the server counts 3 input tokens per text, and no output.
      const embedded = afterCompaction.find((r) => r.kind === 'embedding' && r.call === 'embed')!;
      expect(embedded.calls).toBeGreaterThanOrEqual(1);
      expect(embedded.promptTokens).toBe(3 * server.requests.reduce((n, q) => n + (Array.isArray(q.input) ? q.input.length : 1), 0));
      expect(embedded.completionTokens).toBe(0);
      expect(afterCompaction.some((r) => r.kind === 'compaction' && r.call === 'embed')).toBe(false);

      // A recall is a read: its usage waits in memory (stats show it) until the user's next commit or close.
      const requestsBefore = server.requests.length;
      const got = await memory.recall({ user: U, session: 's1', query: 'espresso' });
      expect(got.chunks.length).toBeGreaterThan(0);
      expect((await storedUsage(be, U)).some((r) => r.kind === 'recall')).toBe(false);
      const live = await store.stats();
      // BUILDQUERY (10 + 5 tokens) then SELECT (30 + 2).
      expect(live.modelUsage.byOperation.recall).toMatchObject({ calls: 2, failedCalls: 0, promptTokens: 40, completionTokens: 7 });
      expect(live.modelUsage.byOperation.embedding!.calls).toBe(embedded.calls + (server.requests.length - requestsBefore));
      expect(live.modelUsage.byCall.embed!.calls).toBe(live.modelUsage.byOperation.embedding!.calls);
      expect(Object.keys(live.modelUsage.byUser)).toEqual([U]);
      expect(live.modelUsage.byUser[U]).toEqual(live.modelUsage.total);
      const sum = (ts: readonly UsageTotals[]): number => ts.reduce((n, t) => n + t.promptTokens, 0);
      expect(sum(Object.values(live.modelUsage.byOperation))).toBe(live.modelUsage.total.promptTokens);
      expect(sum(Object.values(live.modelUsage.byCall))).toBe(live.modelUsage.total.promptTokens);

      await memory.close();
      await store.close();
      store = await be.reopen();
      const reopened = await store.stats();
      expect(reopened.modelUsage).toEqual(live.modelUsage);
      expect((await storedUsage(be, U)).find((r) => r.kind === 'recall' && r.call === 'select')).toMatchObject({ calls: 1, promptTokens: 30 });
      expect((await store.verify()).ok).toBe(true);

      // Another process's usage adds to what is stored.
      memory = new AkashicMemory(store, { model: reportingModel(), embedder, relocateEveryRecalls: 0 });
      await memory.recall({ user: U, session: 's1', query: 'espresso' });
      await memory.close();
      expect((await store.stats()).modelUsage.byOperation.recall).toMatchObject({ calls: 4, promptTokens: 80 });

      await store.purge({ user: U });
      const purged = await store.stats();
      expect(purged.modelUsage.total.calls).toBe(0);
      expect(purged.modelUsage.byUser).toEqual({});
      await store.close();
      store = await be.reopen();
      expect(await keysNaming(be, U)).toEqual([]);
      expect((await store.stats()).modelUsage.total.calls).toBe(0);
      expect((await store.verify()).ok).toBe(true);
    } finally {
      await store.close();
      await be.cleanup();
    }
  }, 30_000);
});

/**
 * `akashic inspect` and `akashic stats`, run as separate processes, show the model usage another process persisted:
 * overall and per kind (compaction, recall, embedding), as the store's own `stats()` gives it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicMemory, type Embedder, type StoreStats, type UsageTotals } from '../../src/index.js';
import { reportModelUsage } from '../../src/util/model-usage.js';
import { reportingModel, sentence } from '../memattention/fixtures.js';
import { openStore, runCli, tempDir } from './fixtures.js';

/** A two-dimensional embedder that reports 2 input tokens per text, as a server would. */
const countingEmbedder: Embedder = {
  id: 'counting-2d',
  dimensions: 2,
  embed: async (texts) => {
    reportModelUsage({ promptTokens: 2 * texts.length, completionTokens: 0, model: 'counting-2d' });
    return texts.map((t) => Float32Array.of(1, t.length % 7));
  },
};

/** The inspect line `model usage` and its per-kind lines print for these totals. */
function usageLine(t: UsageTotals): string {
  return `${t.calls} calls, ${t.promptTokens} prompt + ${t.completionTokens} completion tokens, ${t.retries} retries, ${(t.latencyMs / 1000).toFixed(1)} s`;
}

describe('inspect and stats show persisted model usage', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let db: string;
  let expected: StoreStats['modelUsage'];
  beforeAll(async () => {
    tmp = await tempDir();
    db = join(tmp.dir, 'db');
    const store = await openStore(db);
    const memory = new AkashicMemory(store, { model: reportingModel(), embedder: countingEmbedder, chunkGateTokens: 60, relocateEveryRecalls: 0 });
    for (let i = 0; ; i++) {
      const r = await memory.appendTurn({ user: 'ann', session: 's', role: i % 2 === 0 ? 'user' : 'assistant', text: sentence('tea'), turnId: `t${i}` });
      if (r.compactionScheduled === true) break;
    }
    await memory.flush();
    await memory.recall({ user: 'ann', session: 's', query: 'tea' });
    await memory.close();
    expected = (await store.stats()).modelUsage;
    await store.close();
  });
  afterAll(async () => tmp.dispose());

  it('inspect prints the totals and one line per kind', async () => {
    expect(expected.byOperation.compaction!.calls).toBeGreaterThanOrEqual(2);
    expect(expected.byOperation.recall).toMatchObject({ calls: 2, promptTokens: 40, completionTokens: 7 });
    expect(expected.byOperation.embedding!.promptTokens).toBeGreaterThan(0);
    const r = await runCli(['inspect', '--db', db]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`${'model usage'.padEnd(18)}${usageLine(expected.total)}`);
    for (const kind of ['compaction', 'recall', 'embedding'] as const) {
      expect(lines).toContain(`${('  ' + kind).padEnd(18)}${usageLine(expected.byOperation[kind]!)}`);
    }
  });

  it('stats --json carries the same figures, per kind, call and user', async () => {
    const r = await runCli(['stats', '--db', db, '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as StoreStats;
    expect(s.modelUsage).toEqual(expected);
    expect(s.modelUsage.byUser.ann).toEqual(expected.total);
    expect(s.modelUsage.byCall.embed!.calls).toBe(expected.byOperation.embedding!.calls);
  });
});

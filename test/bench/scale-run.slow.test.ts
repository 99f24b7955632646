import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScale, scaleMarkdown } from '../../src/lab/bench/scale-run.js';
import { AkashicStore } from '../../src/engine/akashic-store.js';

describe('bench --scale', () => {
  it('writes every chunk through bulk writes per cohort round and leaves a store that verifies', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-scale-test-'));
    try {
      // 4 users × 30 sessions, cohorts of 2, 7 sessions per user per bulk write (the last round of a user is short).
      const r = await runScale({ chunks: 120, users: 4, cohort: 2, batch: 7, questionsPerUser: 4, coldSamples: 2, dropCaches: false, workDir: dir });
      expect(r.meta.chunks).toBe(120);
      expect(r.meta.sessionsPerUser).toBe(30);
      expect(r.meta.batch).toBe(7);
      expect(r.meta.requests).toBeGreaterThan(0);
      const ak = r.policies.akashic!;
      expect(ak.ingestChunksPerSec).toBeGreaterThan(0);
      expect(ak.blocksPerRequest).toBeGreaterThanOrEqual(ak.lowerBound!);
      expect(ak.spaceAmp).toBeGreaterThanOrEqual(1);
      expect(scaleMarkdown(r)).toContain('bulk writes of 7 chunks per user');
      const store = await AkashicStore.open({ path: join(dir, 'akashic') });
      try {
        const v = await store.verify();
        expect(v.problems).toEqual([]);
        expect(v.checked.chunks).toBe(120);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a batch that is not a positive integer', async () => {
    await expect(runScale({ chunks: 10, users: 1, batch: 0, dropCaches: false })).rejects.toThrow(/batch must be a positive integer/);
  });
});

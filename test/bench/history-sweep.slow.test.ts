import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historySweepMarkdown, runHistorySweep } from '../../src/bench/history-sweep.js';

describe('bench --history-sweep', () => {
  it('reports the sweep and ingest figures in the documented JSON shape', async () => {
    const r = await runHistorySweep({ sizes: [10, 30], warmSamples: 2, coldSamples: 0, dropCaches: false, ingestChunks: 16, ingestSyncChunks: 16 });
    expect(r.sweep.map((s) => s.chunksPerUser)).toEqual([10, 30]);
    for (const s of r.sweep) {
      for (const k of ['recallP50Ms', 'recallP95Ms', 'coldRecallP50Ms', 'bytesReadPerRecall', 'fts5RecallP50Ms', 'fts5ColdRecallP50Ms'] as const) expect(s).toHaveProperty(k);
      expect(s.recallP50Ms).toBeGreaterThan(0);
      expect(s.coldRecallP50Ms).toBeNull(); // no cold samples asked for
    }
    for (const k of ['akashic', 'akashicConcurrent', 'akashicSync', 'akashicSyncConcurrent', 'leveldb-naive', 'leveldb-naive-sync', 'sqlite', 'sqlite-sync'] as const) {
      expect(r.ingest).toHaveProperty(k);
    }
    expect(r.ingest?.akashic).toBeGreaterThan(0);
    expect(r.ingest?.akashicSyncConcurrent).toBeGreaterThan(0);
    expect(r.meta.disk.summary.length).toBeGreaterThan(0);
    expect(historySweepMarkdown(r)).toContain('| 30 |');
  }, 120_000);

  it('grows a kept history once (build only) and a later run resumes it, measuring only the sizes not below it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-history-kept-'));
    try {
      const built = await runHistorySweep({ sizes: [20, 40], historyDir: dir, buildOnly: true, dropCaches: false });
      expect(built.sweep).toEqual([]);
      expect(built.ingest).toBeNull();
      expect(JSON.parse(await readFile(join(dir, 'history-state.json'), 'utf8'))).toMatchObject({ chunks: 40 });
      const r = await runHistorySweep({ sizes: [20, 50], historyDir: dir, warmSamples: 2, coldSamples: 0, dropCaches: false, skipIngest: true });
      expect(r.sweep.map((s) => s.chunksPerUser)).toEqual([50]);
      expect(r.sweep[0]!.candidatesPerRecall).toBeGreaterThan(0);
      expect(r.ingest).toBeNull();
      expect(r.meta.notes.join('\n')).toContain('size 20 skipped');
      expect(JSON.parse(await readFile(join(dir, 'history-state.json'), 'utf8'))).toMatchObject({ chunks: 50 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

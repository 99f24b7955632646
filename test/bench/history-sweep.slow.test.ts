import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historySweepMarkdown, runHistorySweep } from '../../src/lab/bench/history-sweep.js';

describe('bench --history-sweep', () => {
  it('reports the sweep and ingest figures in the documented JSON shape', async () => {
    const r = await runHistorySweep({ sizes: [10, 30], warmSamples: 2, coldSamples: 0, dropCaches: false, ingestChunks: 16, ingestSyncChunks: 16 });
    expect(r.sweep.map((s) => s.chunksPerUser)).toEqual([10, 30]);
    for (const s of r.sweep) {
      for (const k of ['recallP50Ms', 'recallP95Ms', 'coldRecallP50Ms', 'bytesReadPerRecall', 'fts5RecallP50Ms', 'fts5ColdRecallP50Ms'] as const) expect(s).toHaveProperty(k);
      expect(s.recallP50Ms).toBeGreaterThan(0);
      expect(s.coldRecallP50Ms).toBeNull(); // no cold samples asked for
    }
    for (const k of ['akashic', 'akashicConcurrent', 'akashicSync', 'akashicSyncConcurrent', 'leveldb-naive', 'leveldb-naive-sync', 'leveldb-zstd', 'sqlite', 'sqlite-sync'] as const) {
      expect(r.ingest).toHaveProperty(k);
    }
    expect(r.ingest?.akashic).toBeGreaterThan(0);
    expect(r.ingest?.akashicSyncConcurrent).toBeGreaterThan(0);
    expect(r.ingest?.['leveldb-zstd']).toBeGreaterThan(0);
    expect(r.meta.disk.summary.length).toBeGreaterThan(0);
    expect(r.meta.warmupQueries).toBe(100);
    expect(historySweepMarkdown(r)).toContain('| 30 |');
  }, 120_000);

  it('grows kept histories once (build only), a later run resumes them, and the sizes are measured interleaved', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-history-kept-'));
    try {
      const built = await runHistorySweep({ sizes: [20, 40], historyDir: dir, buildOnly: true, dropCaches: false });
      expect(built.sweep).toEqual([]);
      expect(built.ingest).toBeNull();
      expect(JSON.parse(await readFile(join(dir, 'size-20', 'history-state.json'), 'utf8'))).toMatchObject({ chunks: 20 });
      expect(JSON.parse(await readFile(join(dir, 'size-40', 'history-state.json'), 'utf8'))).toMatchObject({ chunks: 40 });
      const r = await runHistorySweep({ sizes: [20, 50], historyDir: dir, warmSamples: 3, coldSamples: 0, dropCaches: false, skipIngest: true });
      expect(r.sweep.map((s) => s.chunksPerUser)).toEqual([20, 50]);
      expect(r.sweep[0]!.candidatesPerRecall).toBe(20);
      expect(r.sweep[1]!.candidatesPerRecall).toBe(50);
      expect(r.sweep[0]!.akashicIngestSeconds).toBe(0); // resumed whole
      expect(r.ingest).toBeNull();
      expect(r.meta.notes.join('\n')).toContain('size 20: resumed a kept history of 20 chunks');
      // No 1,000-chunk size: the ratios are against the smallest, which is 1 to itself.
      expect(r.sweep.map((s) => s.ratioReferenceChunks)).toEqual([20, 20]);
      expect(r.sweep[0]!.recallP50Ratio).toBe(1);
      expect(r.sweep[0]!.recallPairedRatioP50).toBe(1);
      expect(r.sweep[1]!.recallPairedRatioP50).toBeGreaterThan(0);
      expect(JSON.parse(await readFile(join(dir, 'size-50', 'history-state.json'), 'utf8'))).toMatchObject({ chunks: 50 });
      // A kept history larger than its size cannot be the corpus's first chunks.
      await mkdir(join(dir, 'size-30'));
      await writeFile(join(dir, 'size-30', 'history-state.json'), await readFile(join(dir, 'size-50', 'history-state.json')));
      await expect(runHistorySweep({ sizes: [30], historyDir: dir, buildOnly: true, dropCaches: false })).rejects.toThrow(/holds 50 chunks, more than its size 30/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { benchMarkdown, benchSvg, PEER_NAMES, POLICY_NAMES, runBench, type BenchResult } from '../../src/lab/bench/index.js';
import { quantile } from '../../src/lab/bench/summary-stats.js';

const CORE_FIELDS = ['blocksPerRequest', 'blocksPerRequestP95', 'lowerBound', 'p95ColdMs', 'bytesReadPerRequest', 'spaceAmp', 'writeAmp'] as const;

const isNumberOrNull = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isFinite(v));

describe('akashic bench --fast (harness smoke run; no timing assertions)', () => {
  let result: BenchResult;

  it('runs end to end on the tiny synthetic trace', async () => {
    result = await runBench({ fast: true, command: 'test' });
    expect(result.meta.requests).toBeGreaterThan(0);
    expect(result.meta.chunks).toBeGreaterThan(0);
  });

  it('has exactly the stable schema: six policies, two peers, seven core fields each', () => {
    expect(Object.keys(result.policies).sort()).toEqual([...POLICY_NAMES].sort());
    expect(Object.keys(result.peers).sort()).toEqual([...PEER_NAMES].sort());
    for (const entry of [...Object.values(result.policies), ...Object.values(result.peers)]) {
      for (const f of CORE_FIELDS) {
        expect(entry).toHaveProperty(f);
        expect(isNumberOrNull(entry[f])).toBe(true);
      }
    }
    // The JSON form keeps it (no undefined fields that would vanish).
    const json = JSON.parse(JSON.stringify(result)) as Record<string, Record<string, Record<string, unknown>>>;
    for (const name of POLICY_NAMES) for (const f of CORE_FIELDS) expect(json['policies']![name]).toHaveProperty(f);
  });

  it('reports sane relations for every policy', () => {
    for (const name of POLICY_NAMES) {
      const p = result.policies[name];
      expect(p.blocksPerRequest).not.toBeNull();
      expect(p.lowerBound).not.toBeNull();
      expect(p.lowerBound!).toBeLessThanOrEqual(p.blocksPerRequest! + 1e-9);
      expect(p.blocksPerRequestP95!).toBeGreaterThanOrEqual(1);
      expect(p.writeAmp!).toBeGreaterThanOrEqual(1 - 1e-9);
      expect(p.spaceAmp!).toBeGreaterThanOrEqual(1 - 1e-9);
      expect(p.oracle.lowerBound!).toBeLessThanOrEqual(p.oracle.blocksPerRequest! + 1e-9);
      expect(p.coldSamples).toBeGreaterThan(0);
    }
  });

  it('varies only placement: policies that never move a chunk write each byte once', () => {
    // Beyond the chunks themselves, only the superseded versions the trace's reconciliations keep in history.
    const appendOnly = result.policies['append-only'];
    expect(appendOnly.writeAmp! - appendOnly.historyWriteAmp!).toBeCloseTo(1, 9);
    expect(result.policies['append-only'].relocatedChunks).toBe(0);
    expect(result.policies['no-relocation'].relocatedChunks).toBe(0);
    expect(result.policies['no-gc'].gcMovedChunks).toBe(0);
    // Same trace, same requests, same capacity: the lower bound does not depend on the policy.
    const bounds = new Set(POLICY_NAMES.map((n) => result.policies[n].lowerBound));
    expect(bounds.size).toBe(1);
  });

  it('exercises relocation and GC on the fast trace', () => {
    expect(result.policies.akashic.relocatedChunks + result.policies['aggressive-relocation'].relocatedChunks).toBeGreaterThan(0);
    expect(result.policies['semantic-only'].relocatedChunks).toBeGreaterThan(0);
  });

  it('measures the peers or says why not, with ratios to akashic', () => {
    for (const name of PEER_NAMES) {
      const p = result.peers[name];
      expect(p.blocksPerRequest).toBeNull();
      if (p.available) {
        expect(p.coldSamples).toBe(result.policies.akashic.coldSamples);
        expect(p.coldP50RatioToAkashic).not.toBeNull();
      } else expect(typeof p.reason).toBe('string');
    }
    expect(result.meta.pageCacheDropped).toBe(false);
  });

  it('has the sweeps and renders markdown and SVG', () => {
    expect(result.sweeps?.theta.length).toBeGreaterThan(0);
    expect(result.sweeps?.tauAssoc.length).toBeGreaterThan(0);
    expect(result.sweeps?.blockCapacity.length).toBeGreaterThan(0);
    const md = benchMarkdown(result);
    for (const name of [...POLICY_NAMES, ...PEER_NAMES]) expect(md).toContain(`| ${name} |`);
    const svg = benchSvg(result);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('akashic');
  });
});

describe('quantile', () => {
  it('is nearest-rank', () => {
    expect(quantile([], 0.95)).toBeNull();
    expect(quantile([3, 1, 2], 0.5)).toBe(2);
    expect(quantile(Array.from({ length: 100 }, (_, i) => i + 1), 0.95)).toBe(95);
  });
});

describe('akashic bench --fast --trace admission (a recall at every user turn)', () => {
  it('records one request per user turn, recalls end to end, and measures device writes per store', async () => {
    const r = await runBench({ fast: true, trace: 'admission', sweeps: false, policies: ['append-only', 'akashic'], deviceWrites: true, command: 'test' });
    expect(r.meta.trace).toBe('admission');
    // fast shape: 2 users × 10 sessions × 16 turns, half of them the user's
    expect(r.meta.requests).toBe(2 * 10 * 8);
    expect(r.meta.oracleRequests).toBe(0);
    expect(r.meta.logicalBytes).toBeGreaterThan(0);
    expect(r.meta.disk?.summary).toContain('read-ahead');
    expect(r.policies['semantic-only'].available).toBe(false);
    for (const name of ['append-only', 'akashic'] as const) {
      const p = r.policies[name];
      expect(p.available).toBe(true);
      expect(p.p50ColdRecallMs).not.toBeNull();
      // Every byte ingested reaches the device at least once (LevelDB writes its log and then its tables).
      if (p.deviceWriteAmp !== null) expect(p.deviceWriteAmp).toBeGreaterThan(1);
    }
    const fts = r.peers['sqlite-fts5'];
    if (fts.available) {
      expect(fts.p50ColdRecallMs).not.toBeNull();
      expect(fts.coldRecallP50RatioToAkashic).not.toBeNull();
    }
    expect(r.peers.sqlite.p50ColdRecallMs).toBeNull();
  });
});

describe('offline layout bound', () => {
  it('clusters chunks recalled together into one block and counts write order otherwise', async () => {
    const { offlineLayoutBound } = await import('../../src/lab/bench/offline-layout-bound.js');
    const put = (i: number) => ({ op: 'put' as const, sessionId: 's', chunkId: `c${i}`, createdAt: i, text: 't', tokenCount: 1, keywords: [], provenance: [] });
    const write = (i: number) => ({ kind: 'write' as const, user: 'u', ops: [put(i)], neighbours: [] });
    const req = (ids: number[]) => ({ kind: 'request' as const, user: 'u', index: 0, category: 0, oracle: [], recall: ids.map((i) => ({ sessionId: 's', chunkId: `c${i}` })), evidenceFound: false, query: 'q', sessionId: 's' });
    const events = [...Array.from({ length: 8 }, (_, i) => write(i)), req([0, 7]), req([0, 7]), req([3, 4])];
    const b = offlineLayoutBound({ kind: 'admission', source: 't', users: 1, events, chunksWritten: 8, requests: 3, recordMs: 0 }, 4);
    // write order: {0,7} spans blocks 0 and 1, {3,4} too; clustered: each pair shares a block
    expect(b.appendOrder).toBe(2);
    expect(b.coAccessClustering).toBe(1);
  });
});

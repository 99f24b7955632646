/**
 * The main comparison: one pass over the trace drives every store at once. Each write goes to all of them; each
 * request is served by every store back to back, the order rotated from request to request (round robin), so
 * machine noise falls on all of them alike. On sampled requests the read is cold: dirty pages written back, the
 * page cache dropped right before each store's read, the bytes the process read from storage taken from
 * /proc/self/io around it. Blocks are counted on every request, before the relocation the request triggers.
 *
 * "Cold" for the LevelDB-backed stores also means reopened first: LevelDB memory-maps its table files and the kernel
 * does not drop mapped pages, so without the reopen every region read once stays resident for good.
 *
 * The six policies run twice: on disk driven by the recall sets (the figures of the table, cold reads included) and
 * in memory driven by the oracle sets (blocks only).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { dropPageCache, processReadBytes } from './cold-read.js';
import type { OracleFigures, PeerFigures, PolicyFigures } from './bench-figures.js';
import { POLICIES, POLICY_NAMES, type LayoutParams, type PolicyName } from './layout-policies.js';
import { dirBytes, LevelNaivePeer, loadSqlite, PEER_NAMES, SqlitePeer, type PeerName, type PeerStore } from './peer-stores.js';
import { PolicyReplayer, type RequestCost } from './policy-replayer.js';
import { mean, median, quantile, ratio } from './summary-stats.js';
import type { Trace, TraceRequest } from './trace.js';

export interface ComparisonOptions {
  readonly params: LayoutParams;
  /** An empty directory for the stores. */
  readonly workDir: string;
  /** Requests measured cold (evenly spaced over the trace); 0 measures none. */
  readonly coldSamples: number;
  /** Drop the page cache before each cold read (needs root on Linux). */
  readonly dropCaches: boolean;
  readonly writeBufferSize: number;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface ComparisonResult {
  readonly policies: Record<PolicyName, PolicyFigures>;
  readonly peers: Record<PeerName, PeerFigures>;
  readonly coldSamples: number;
  readonly emptyRecallRequests: number;
  readonly oracleRequests: number;
}

interface Samples {
  readonly ms: number[];
  readonly bytes: number[];
}

interface PolicyTrack {
  readonly r: PolicyReplayer;
  readonly blocks: number[];
  readonly bounds: number[];
  readonly engineBytes: number[];
  readonly cold: Samples;
}

/** Indices (into `eligible`) of `n` requests spread evenly over the trace. */
export function spread(count: number, n: number): Set<number> {
  const out = new Set<number>();
  if (n <= 0 || count === 0) return out;
  if (n >= count) {
    for (let i = 0; i < count; i++) out.add(i);
    return out;
  }
  for (let k = 0; k < n; k++) out.add(Math.floor(((k + 0.5) * count) / n));
  return out;
}

async function trackPolicies(params: LayoutParams, backend: (name: PolicyName) => Promise<Parameters<typeof PolicyReplayer.open>[3]>): Promise<PolicyTrack[]> {
  const out: PolicyTrack[] = [];
  for (const name of POLICY_NAMES) {
    out.push({ r: await PolicyReplayer.open(name, POLICIES[name], params, await backend(name)), blocks: [], bounds: [], engineBytes: [], cold: { ms: [], bytes: [] } });
  }
  return out;
}

export async function runComparison(trace: Trace, opts: ComparisonOptions): Promise<ComparisonResult> {
  const { params } = opts;
  const disk = await trackPolicies(params, async (name) => {
    const path = join(opts.workDir, name);
    await mkdir(path, { recursive: true });
    return { kind: 'disk', path, writeBufferSize: opts.writeBufferSize };
  });
  const oracle = await trackPolicies(params, async () => ({ kind: 'memory' }));
  const peers: PeerStore[] = [];
  const peerCold = new Map<PeerName, Samples>();
  const unavailable = new Map<PeerName, string>();
  await mkdir(join(opts.workDir, 'leveldb-naive'), { recursive: true });
  peers.push(await LevelNaivePeer.open(join(opts.workDir, 'leveldb-naive'), opts.writeBufferSize));
  const sqlite = await loadSqlite();
  if (sqlite.ok) {
    await mkdir(join(opts.workDir, 'sqlite'), { recursive: true });
    peers.push(SqlitePeer.open(sqlite.Database, join(opts.workDir, 'sqlite')));
  } else unavailable.set('sqlite', sqlite.reason);
  for (const p of peers) peerCold.set(p.name, { ms: [], bytes: [] });

  const requests = trace.events.filter((e): e is TraceRequest => e.kind === 'request');
  const eligible = requests.filter((q) => q.recall.length > 0);
  const sampledPositions = spread(eligible.length, opts.coldSamples);
  const sampled = new Set([...sampledPositions].map((i) => eligible[i]!.index));
  let dirty = true;
  let done = 0;
  let oracleRequests = 0;

  type Target = { kind: 'policy'; t: PolicyTrack } | { kind: 'peer'; p: PeerStore };
  const targets: Target[] = [...disk.map((t) => ({ kind: 'policy' as const, t })), ...peers.map((p) => ({ kind: 'peer' as const, p }))];

  try {
    for (const ev of trace.events) {
      if (ev.kind === 'write') {
        for (const t of disk) await t.r.write(ev);
        for (const t of oracle) await t.r.write(ev);
        for (const p of peers) await p.write(ev);
        dirty = true;
      } else {
        if (ev.recall.length === 0) {
          for (const t of disk) await t.r.skip();
        } else if (sampled.has(ev.index)) {
          const costs = new Map<PolicyTrack, RequestCost>();
          const start = ev.index % targets.length;
          for (let k = 0; k < targets.length; k++) {
            const target = targets[(start + k) % targets.length]!;
            if (target.kind === 'peer') await target.p.forgetCaches();
            else await target.t.r.forgetCaches();
            // Reopening LevelDB writes its memtable out as a table: those pages are dirty until synced.
            if (opts.dropCaches) dropPageCache(dirty || target.kind === 'policy' || target.p.name === 'leveldb-naive');
            dirty = false;
            const io0 = processReadBytes();
            const t0 = performance.now();
            let cost: RequestCost | null = null;
            if (target.kind === 'policy') cost = await target.t.r.read(ev.user, ev.recall);
            else await target.p.read(ev.user, ev.recall);
            const ms = performance.now() - t0;
            const io1 = processReadBytes();
            const samples = target.kind === 'policy' ? target.t.cold : peerCold.get(target.p.name)!;
            samples.ms.push(ms);
            if (io0 !== null && io1 !== null) samples.bytes.push(io1 - io0);
            if (cost !== null && target.kind === 'policy') costs.set(target.t, cost);
          }
          for (const t of disk) await record(t, ev.user, costs.get(t)!);
        } else {
          for (const t of disk) await record(t, ev.user, await t.r.read(ev.user, ev.recall));
        }
        if (ev.oracle.length === 0) {
          for (const t of oracle) await t.r.skip();
        } else {
          oracleRequests++;
          for (const t of oracle) await record(t, ev.user, await t.r.read(ev.user, ev.oracle));
        }
        opts.onProgress?.(++done, requests.length);
      }
    }

    const policies = {} as Record<PolicyName, PolicyFigures>;
    const appendBlocks = mean(disk.find((t) => t.r.name === 'append-only')!.blocks);
    for (const [i, t] of disk.entries()) {
      const s = await t.r.finish();
      const o = oracle[i]!;
      const os = await o.r.finish();
      const oracleFigures: OracleFigures = {
        requests: o.blocks.length,
        blocksPerRequest: mean(o.blocks),
        blocksPerRequestP95: quantile(o.blocks, 0.95),
        lowerBound: mean(o.bounds),
        spaceAmp: os.spaceAmplification,
        writeAmp: os.writeAmplification,
      };
      policies[t.r.name] = {
        blocksPerRequest: mean(t.blocks),
        blocksPerRequestP95: quantile(t.blocks, 0.95),
        lowerBound: mean(t.bounds),
        p95ColdMs: quantile(t.cold.ms, 0.95),
        bytesReadPerRequest: mean(t.cold.bytes),
        spaceAmp: s.spaceAmplification,
        writeAmp: s.writeAmplification,
        requests: t.blocks.length,
        p50ColdMs: median(t.cold.ms),
        coldSamples: t.cold.ms.length,
        bytesReadPerRequestP50: median(t.cold.bytes),
        engineBytesReadPerRequest: mean(t.engineBytes),
        blocksRatioToAppendOnly: ratio(mean(t.blocks), appendBlocks),
        relocatedChunks: s.relocatedChunks,
        gcMovedChunks: s.gcMovedChunks,
        gcPasses: t.r.gcPasses,
        blocks: s.blocks,
        chunksPerBlock: ratio(s.chunks, s.blocks),
        diskBytes: await dirBytes(join(opts.workDir, t.r.name)),
        oracle: oracleFigures,
      };
    }
    const ak = policies.akashic;
    const peerFigures = {} as Record<PeerName, PeerFigures>;
    for (const name of PEER_NAMES) {
      const p = peers.find((x) => x.name === name);
      const c = peerCold.get(name);
      if (p === undefined || c === undefined) {
        peerFigures[name] = {
          available: false,
          reason: unavailable.get(name) ?? 'not run',
          blocksPerRequest: null, blocksPerRequestP95: null, lowerBound: null, p95ColdMs: null, bytesReadPerRequest: null, spaceAmp: null, writeAmp: null,
          p50ColdMs: null, coldSamples: 0, bytesReadPerRequestP50: null, diskBytes: null,
          coldP50RatioToAkashic: null, coldP95RatioToAkashic: null, bytesReadRatioToAkashic: null,
        };
        continue;
      }
      const p50 = median(c.ms);
      const p95 = quantile(c.ms, 0.95);
      const bytes = mean(c.bytes);
      peerFigures[name] = {
        available: true,
        // A peer has no blocks and no engine accounting: those figures are undefined for it.
        blocksPerRequest: null, blocksPerRequestP95: null, lowerBound: null,
        p95ColdMs: p95,
        bytesReadPerRequest: bytes,
        spaceAmp: null,
        writeAmp: null,
        p50ColdMs: p50,
        coldSamples: c.ms.length,
        bytesReadPerRequestP50: median(c.bytes),
        diskBytes: await p.diskBytes(),
        coldP50RatioToAkashic: ratio(p50, ak.p50ColdMs),
        coldP95RatioToAkashic: ratio(p95, ak.p95ColdMs),
        bytesReadRatioToAkashic: ratio(bytes, ak.bytesReadPerRequest),
      };
    }
    return { policies, peers: peerFigures, coldSamples: sampled.size, emptyRecallRequests: requests.length - eligible.length, oracleRequests };
  } finally {
    for (const t of [...disk, ...oracle]) await t.r.close();
    for (const p of peers) await p.close();
  }
}

async function record(t: PolicyTrack, user: string, cost: RequestCost): Promise<void> {
  t.blocks.push(cost.blocksTouched);
  t.bounds.push(cost.lowerBound);
  t.engineBytes.push(cost.engineBytesRead);
  await t.r.afterRequest(user, cost);
}

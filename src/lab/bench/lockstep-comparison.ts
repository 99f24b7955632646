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
import { DEFAULT_TOP_P } from '../../memattention/options.js';
import type { EndToEndFigures, OracleFigures, PeerFigures, PolicyFigures } from './bench-figures.js';
import { measureDeviceWrites, type DeviceWrites } from './device-write-amp.js';
import { SqliteFts5Peer } from './sqlite-fts5-peer.js';
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
  /** Policies to run (default all); the others are reported with `available: false`. */
  readonly policies?: readonly PolicyName[];
  /** Measure device-level write amplification (a second, store-by-store replay). Default true. */
  readonly deviceWrites?: boolean;
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
  /** The request's fetch, by slot (as a recall fetches: the locations come with its candidates). */
  readonly cold: Samples;
  /** The same fetch by ref (`getMany`: a directory read, then the blocks). */
  readonly coldByRef: Samples;
  readonly coldRecall: Samples;
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

async function trackPolicies(names: readonly PolicyName[], params: LayoutParams, backend: (name: PolicyName) => Promise<Parameters<typeof PolicyReplayer.open>[3]>): Promise<PolicyTrack[]> {
  const out: PolicyTrack[] = [];
  for (const name of names) {
    out.push({ r: await PolicyReplayer.open(name, POLICIES[name], params, await backend(name)), blocks: [], bounds: [], engineBytes: [], cold: { ms: [], bytes: [] }, coldByRef: { ms: [], bytes: [] }, coldRecall: { ms: [], bytes: [] } });
  }
  return out;
}

/** Peers that can be opened here, each with how to open a fresh one in a directory. */
async function peerOpeners(writeBufferSize: number): Promise<{ openers: { name: PeerName; open: (dir: string) => Promise<PeerStore> }[]; unavailable: Map<PeerName, string> }> {
  const openers: { name: PeerName; open: (dir: string) => Promise<PeerStore> }[] = [{ name: 'leveldb-naive', open: (dir) => LevelNaivePeer.open(dir, writeBufferSize) }];
  const unavailable = new Map<PeerName, string>();
  const sqlite = await loadSqlite();
  if (sqlite.ok) {
    openers.push({ name: 'sqlite', open: async (dir) => SqlitePeer.open(sqlite.Database, dir) });
    openers.push({ name: 'sqlite-fts5', open: async (dir) => SqliteFts5Peer.open(sqlite.Database, dir) });
  } else {
    unavailable.set('sqlite', sqlite.reason);
    unavailable.set('sqlite-fts5', sqlite.reason);
  }
  return { openers, unavailable };
}

/** What one cold read (or recall) of one store cost. */
function coldMeasure(dropCaches: boolean, syncFirst: boolean): <T>(fn: () => Promise<T>, into: Samples) => Promise<T> {
  return async (fn, into) => {
    if (dropCaches) dropPageCache(syncFirst);
    const io0 = processReadBytes();
    const t0 = performance.now();
    const out = await fn();
    into.ms.push(performance.now() - t0);
    const io1 = processReadBytes();
    if (io0 !== null && io1 !== null) into.bytes.push(io1 - io0);
    return out;
  };
}

export async function runComparison(trace: Trace, opts: ComparisonOptions): Promise<ComparisonResult> {
  const { params } = opts;
  const names = opts.policies ?? POLICY_NAMES;
  const disk = await trackPolicies(names, params, async (name) => {
    const path = join(opts.workDir, name);
    await mkdir(path, { recursive: true });
    return { kind: 'disk', path, writeBufferSize: opts.writeBufferSize };
  });
  // Oracle sets exist only for questions with evidence; an admission trace has none.
  const oracle = trace.kind === 'questions' ? await trackPolicies(names, params, async () => ({ kind: 'memory' })) : [];
  const peers: PeerStore[] = [];
  const peerCold = new Map<PeerName, Samples>();
  const peerRecall = new Map<PeerName, Samples>();
  const { openers, unavailable } = await peerOpeners(opts.writeBufferSize);
  for (const o of openers) {
    const dir = join(opts.workDir, o.name);
    await mkdir(dir, { recursive: true });
    peers.push(await o.open(dir));
    peerCold.set(o.name, { ms: [], bytes: [] });
    peerRecall.set(o.name, { ms: [], bytes: [] });
  }

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
            const forget = (): Promise<void> => (target.kind === 'peer' ? target.p.forgetCaches() : target.t.r.forgetCaches());
            // Reopening LevelDB writes its memtable out as a table: those pages are dirty until synced.
            const cold = coldMeasure(opts.dropCaches, dirty || target.kind === 'policy' || target.p.name === 'leveldb-naive');
            // The recall end to end first (it may pick a different set than the trace's), then the fetch of the
            // trace's set, whose cost is the request's (and what the policy's relocation sees).
            if (target.kind === 'policy') {
              await forget();
              await cold(() => target.t.r.recall(ev.user, ev.sessionId, ev.query), target.t.coldRecall);
            } else if (target.p.recall !== undefined) {
              await forget();
              const p = target.p;
              await cold(() => p.recall!(ev.user, ev.query, DEFAULT_TOP_P), peerRecall.get(p.name)!);
            }
            if (target.kind === 'policy') {
              // The fetch by ref (directory, then blocks), then by slot: the locations a recall's candidates carry
              // are read warm first, as candidate gathering reads them, and only the fetch is measured.
              await forget();
              dirty = false;
              await cold(() => target.t.r.read(ev.user, ev.recall), target.t.coldByRef);
              const located = await target.t.r.locate(ev.user, ev.recall);
              await forget();
              costs.set(target.t, await cold(() => target.t.r.readBySlot(ev.user, located), target.t.cold));
            } else {
              await forget();
              dirty = false;
              await cold(() => target.p.read(ev.user, ev.recall), peerCold.get(target.p.name)!);
            }
          }
          for (const t of disk) await record(t, ev.user, costs.get(t)!);
        } else {
          for (const t of disk) await record(t, ev.user, await t.r.read(ev.user, ev.recall));
        }
        if (oracle.length > 0) {
          if (ev.oracle.length === 0) {
            for (const t of oracle) await t.r.skip();
          } else {
            oracleRequests++;
            for (const t of oracle) await record(t, ev.user, await t.r.read(ev.user, ev.oracle));
          }
        }
        opts.onProgress?.(++done, requests.length);
      }
    }
    const figures = await finishFigures(trace, opts, names, disk, oracle, peers, peerCold, peerRecall, unavailable);
    return { ...figures, coldSamples: sampled.size, emptyRecallRequests: requests.length - eligible.length, oracleRequests };
  } finally {
    for (const t of [...disk, ...oracle]) await t.r.close();
    for (const p of peers) await p.close();
  }
}

async function finishFigures(
  trace: Trace,
  opts: ComparisonOptions,
  names: readonly PolicyName[],
  disk: readonly PolicyTrack[],
  oracle: readonly PolicyTrack[],
  peers: readonly PeerStore[],
  peerCold: ReadonlyMap<PeerName, Samples>,
  peerRecall: ReadonlyMap<PeerName, Samples>,
  unavailable: ReadonlyMap<PeerName, string>,
): Promise<Pick<ComparisonResult, 'policies' | 'peers'>> {
    const deviceWrites =
      opts.deviceWrites === false
        ? new Map<string, DeviceWrites>()
        : await measureDeviceWrites(trace, names, (await peerOpeners(opts.writeBufferSize)).openers, opts.params, join(opts.workDir, 'device-writes'), opts.writeBufferSize);
    const device = (name: string): Pick<EndToEndFigures, 'deviceWriteAmp' | 'deviceBytesWritten'> => {
      const d = deviceWrites.get(name);
      return { deviceWriteAmp: d?.writeAmp ?? null, deviceBytesWritten: d?.bytesWritten ?? null };
    };
    const policies = {} as Record<PolicyName, PolicyFigures>;
    const appendOnly = disk.find((t) => t.r.name === 'append-only');
    const appendBlocks = appendOnly === undefined ? null : mean(appendOnly.blocks);
    for (const name of POLICY_NAMES) if (!names.includes(name)) policies[name] = notRunPolicy();
    for (const [i, t] of disk.entries()) {
      const s = await t.r.finish();
      const o = oracle[i];
      const os = o === undefined ? null : await o.r.finish();
      const oracleFigures: OracleFigures = {
        requests: o?.blocks.length ?? 0,
        blocksPerRequest: o === undefined ? null : mean(o.blocks),
        blocksPerRequestP95: o === undefined ? null : quantile(o.blocks, 0.95),
        lowerBound: o === undefined ? null : mean(o.bounds),
        spaceAmp: os?.spaceAmplification ?? null,
        writeAmp: os?.writeAmplification ?? null,
      };
      policies[t.r.name] = {
        available: true,
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
        historyWriteAmp: ratio(s.historyBytes, s.logicalBytesIngested),
        relocatedChunks: s.relocatedChunks,
        gcMovedChunks: s.gcMovedChunks,
        gcPasses: t.r.gcPasses,
        blocks: s.blocks,
        chunksPerBlock: ratio(s.chunks, s.blocks),
        diskBytes: await dirBytes(join(opts.workDir, t.r.name)),
        p50ColdRecallMs: median(t.coldRecall.ms),
        p95ColdRecallMs: quantile(t.coldRecall.ms, 0.95),
        bytesReadPerRecall: mean(t.coldRecall.bytes),
        p50ColdFetchByRefMs: median(t.coldByRef.ms),
        bytesReadPerFetchByRef: mean(t.coldByRef.bytes),
        ...device(t.r.name),
        oracle: oracleFigures,
      };
    }
    const ak = policies.akashic;
    const peerFigures = {} as Record<PeerName, PeerFigures>;
    for (const name of PEER_NAMES) {
      const p = peers.find((x) => x.name === name);
      const c = peerCold.get(name);
      const rc = peerRecall.get(name);
      if (p === undefined || c === undefined || rc === undefined) {
        peerFigures[name] = {
          available: false,
          reason: unavailable.get(name) ?? 'not run',
          blocksPerRequest: null, blocksPerRequestP95: null, lowerBound: null, p95ColdMs: null, bytesReadPerRequest: null, spaceAmp: null, writeAmp: null,
          p50ColdMs: null, coldSamples: 0, bytesReadPerRequestP50: null, diskBytes: null,
          coldP50RatioToAkashic: null, coldP95RatioToAkashic: null, bytesReadRatioToAkashic: null, coldRecallP50RatioToAkashic: null,
          p50ColdRecallMs: null, p95ColdRecallMs: null, bytesReadPerRecall: null, deviceWriteAmp: null, deviceBytesWritten: null,
        };
        continue;
      }
      const p50 = median(c.ms);
      const p95 = quantile(c.ms, 0.95);
      const bytes = mean(c.bytes);
      const recallP50 = median(rc.ms);
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
        coldRecallP50RatioToAkashic: ratio(recallP50, ak.p50ColdRecallMs),
        p50ColdRecallMs: recallP50,
        p95ColdRecallMs: quantile(rc.ms, 0.95),
        bytesReadPerRecall: mean(rc.bytes),
        ...device(name),
      };
    }
    return { policies, peers: peerFigures };
}

/** The entry of a policy the run left out. */
function notRunPolicy(): PolicyFigures {
  return {
    available: false,
    blocksPerRequest: null, blocksPerRequestP95: null, lowerBound: null, p95ColdMs: null, bytesReadPerRequest: null, spaceAmp: null, writeAmp: null,
    requests: 0, p50ColdMs: null, coldSamples: 0, bytesReadPerRequestP50: null, engineBytesReadPerRequest: null, blocksRatioToAppendOnly: null, historyWriteAmp: null,
    relocatedChunks: 0, gcMovedChunks: 0, gcPasses: 0, blocks: 0, chunksPerBlock: null, diskBytes: null,
    p50ColdRecallMs: null, p95ColdRecallMs: null, bytesReadPerRecall: null, deviceWriteAmp: null, deviceBytesWritten: null,
    p50ColdFetchByRefMs: null, bytesReadPerFetchByRef: null,
    oracle: { requests: 0, blocksPerRequest: null, blocksPerRequestP95: null, lowerBound: null, spaceAmp: null, writeAmp: null },
  };
}

async function record(t: PolicyTrack, user: string, cost: RequestCost): Promise<void> {
  t.blocks.push(cost.blocksTouched);
  t.bounds.push(cost.lowerBound);
  t.engineBytes.push(cost.engineBytesRead);
  await t.r.afterRequest(user, cost);
}

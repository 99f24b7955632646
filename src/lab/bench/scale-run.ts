/**
 * The scale run: at least a million chunks, far more than a test or a quick benchmark can write. MemAttention ingest
 * of a million ~1k-token chunks would take the gate, SELECT and reconciliation a million times over; instead the
 * chunks are driven straight into the stores, shaped as MemAttention shapes them on LoCoMo-sized sessions with the
 * default gate: one chunk per session (a session is ~600 tokens, under the 1024-token gate, so `endSession`
 * compacts it whole), the embedded model's COMPRESS text (`[date]` then `speaker: text` lines) and BUILDMETA
 * keywords (the model's own `compress` and `buildMeta`). Requests are the synthetic questions, asked once their
 * evidence session is written: the recall set is the embedded model's SELECT over the candidate set the engine
 * gathers through the akashic store's candidate index (`gatherCandidates`, the library's default bounds), and
 * drives co-access and relocation; the oracle set is read too, for its blocks only.
 *
 * Users are generated in cohorts that write round-robin, as concurrent agents would. Each cohort round hands every
 * user's next `batch` sessions to each store as one bulk write per user, the round's users issued together, as an
 * importer or an agent host that buffers its agents' chunks would (the engine's bulk path: many chunks per frame and
 * transaction; group commit may coalesce the users' writes). `batch: 1` writes one chunk per call.
 * Stores: akashic (and, on request, append-only as its baseline), leveldb-naive and sqlite.
 */
import type { CoreFigures } from './bench-figures.js';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { monotonicFactory } from 'ulid';
import { EmbeddedModel } from '../../model/embedded-model.js';
import { gatherCandidates } from '../../memattention/candidates.js';
import { DEFAULT_CANDIDATE_KEYWORDS, DEFAULT_CANDIDATE_PREFILTER, DEFAULT_CANDIDATE_WINDOW } from '../../memattention/options.js';
import type { ChunkRef } from '../../api/chunk-input.js';
import { syntheticConversation } from '../workload/synthetic.js';
import type { Conversation } from '../workload/conversation.js';
import { dropPageCache, probePageCacheDrop, processReadBytes } from './cold-read.js';
import { POLICIES, type PolicyName } from './layout-policies.js';
import { dirBytes, LevelNaivePeer, loadSqlite, SqlitePeer, type PeerName, type PeerStore } from './peer-stores.js';
import { PolicyReplayer } from './policy-replayer.js';
import { DEFAULT_LAYOUT_PARAMS, requireEmptyDir } from './run-bench.js';
import { mean, median, quantile, ratio, round } from './summary-stats.js';
import type { TraceOp, TraceWrite } from './trace.js';

export interface ScaleOptions {
  /** Total chunks (= sessions) to write. Default 1,000,000. */
  readonly chunks?: number;
  /** Users; each gets chunks ÷ users sessions. Default chunks ÷ 1000. */
  readonly users?: number;
  readonly questionsPerUser?: number;
  readonly coldSamples?: number;
  readonly dropCaches?: boolean;
  /** Users generated and written together (round-robin). Default 20. */
  readonly cohort?: number;
  /**
   * Sessions per user in one cohort round, written as one bulk write per user (the users' writes of a round issued
   * together). Default 50; 1 writes one chunk per call.
   */
  readonly batch?: number;
  /** Layout policies to run. Default ['akashic'] (each AkashicStore roughly doubles the run's time). */
  readonly policies?: readonly ('append-only' | 'akashic')[];
  readonly workDir?: string;
  readonly command?: string;
  readonly log?: (line: string) => void;
  readonly onProgress?: (stage: string, done: number, total: number) => void;
}

export interface ScaleStoreFigures extends CoreFigures {
  readonly p50ColdMs: number | null;
  readonly coldSamples: number;
  readonly oracleBlocksPerRequest: number | null;
  readonly oracleLowerBound: number | null;
  /** Chunks per second of write time spent in this store alone. */
  readonly ingestChunksPerSec: number | null;
  readonly diskBytes: number | null;
  readonly relocatedChunks?: number;
  readonly gcMovedChunks?: number;
  readonly coldP50RatioToAkashic?: number | null;
  readonly coldP95RatioToAkashic?: number | null;
  readonly bytesReadRatioToAkashic?: number | null;
}

export interface ScaleResult {
  readonly meta: {
    readonly command: string;
    readonly chunks: number;
    readonly users: number;
    readonly sessionsPerUser: number;
    /** Sessions (chunks) per user in one bulk write. */
    readonly batch: number;
    readonly requests: number;
    readonly logicalBytes: number;
    readonly pageCacheDropped: boolean;
    readonly pageCacheNote: string;
    readonly wallSeconds: number;
    readonly peakRssMiB: number;
    readonly finalRssMiB: number;
    readonly heapUsedMiB: number;
    readonly generateAndKeywordSeconds: number;
  };
  readonly policies: Partial<Record<PolicyName, ScaleStoreFigures>>;
  readonly peers: Partial<Record<PeerName, ScaleStoreFigures | { available: false; reason: string }>>;
}

interface Track {
  readonly name: string;
  readonly write: (ev: TraceWrite) => Promise<void>;
  readonly read: (user: string, refs: readonly ChunkRef[]) => Promise<number | null>;
  writeMs: number;
  readonly blocks: number[];
  readonly bounds: number[];
  readonly oracleBlocks: number[];
  readonly oracleBounds: number[];
  readonly coldMs: number[];
  readonly coldBytes: number[];
}

/** The chunks that hold each turn of one user (the oracle set of a question is the chunks of its evidence). */
class TurnOracle {
  readonly #chunkOfTurn = new Map<string, ChunkRef>();

  add(ref: ChunkRef, turnIds: readonly string[]): void {
    for (const t of turnIds) this.#chunkOfTurn.set(t, ref);
  }

  chunksOf(turnIds: readonly string[]): ChunkRef[] {
    const out = new Map<string, ChunkRef>();
    for (const t of turnIds) {
      const ref = this.#chunkOfTurn.get(t);
      if (ref !== undefined) out.set(ref.sessionId + '\u0000' + ref.chunkId, ref);
    }
    return [...out.values()];
  }
}

/** The library's default candidate bounds (AkashicMemory's `candidateWindow`, `candidatePrefilter`, `candidateKeywords`). */
const CANDIDATE_BOUNDS = { window: DEFAULT_CANDIDATE_WINDOW, prefilter: DEFAULT_CANDIDATE_PREFILTER, keywords: DEFAULT_CANDIDATE_KEYWORDS };
const MEMORY_KINDS = new Set(['memory'] as const);

export async function runScale(opts: ScaleOptions = {}): Promise<ScaleResult> {
  const started = performance.now();
  const chunks = opts.chunks ?? 1_000_000;
  const users = opts.users ?? Math.max(1, Math.round(chunks / 1000));
  const sessionsPerUser = Math.max(1, Math.round(chunks / users));
  const questionsPerUser = opts.questionsPerUser ?? 50;
  const cohort = opts.cohort ?? 20;
  const batch = opts.batch ?? 50;
  if (!Number.isSafeInteger(batch) || batch < 1) throw new Error(`the scale run's batch must be a positive integer, got ${batch}`);
  const log = opts.log ?? (() => undefined);
  const expectedRequests = users * questionsPerUser;
  const coldEvery = Math.max(1, Math.floor(expectedRequests / Math.max(1, opts.coldSamples ?? 200)));
  const probe = opts.dropCaches === false ? { ok: false, reason: 'page cache not dropped (disabled)' } : probePageCacheDrop();
  const workDir = opts.workDir ?? (await mkdtemp(join(tmpdir(), 'akashic-scale-')));
  await requireEmptyDir(workDir);
  // The chunks' text and keywords are what the embedded model's COMPRESS and BUILDMETA make of each session.
  const model = new EmbeddedModel({ keywordLimit: 24 });
  const params = { ...DEFAULT_LAYOUT_PARAMS, gcEveryEvents: 4096 };
  const writeBufferSize = 4 * 1024 * 1024;

  if ((opts.policies ?? ['akashic']).length === 0) throw new Error('the scale run needs at least one akashic policy (its candidate index picks the recall sets)');
  const replayers: PolicyReplayer[] = [];
  const peers: PeerStore[] = [];
  const tracks: Track[] = [];
  const newTrack = (name: string, write: Track['write'], read: Track['read']): Track => ({ name, write, read, writeMs: 0, blocks: [], bounds: [], oracleBlocks: [], oracleBounds: [], coldMs: [], coldBytes: [] });
  for (const name of opts.policies ?? (['akashic'] as const)) {
    const path = join(workDir, name);
    await mkdir(path, { recursive: true });
    const r = await PolicyReplayer.open(name, POLICIES[name], params, { kind: 'disk', path, writeBufferSize });
    replayers.push(r);
    tracks.push(newTrack(name, (ev) => r.write(ev), async () => null));
  }
  await mkdir(join(workDir, 'leveldb-naive'), { recursive: true });
  peers.push(await LevelNaivePeer.open(join(workDir, 'leveldb-naive'), writeBufferSize));
  const sqlite = await loadSqlite();
  if (sqlite.ok) {
    await mkdir(join(workDir, 'sqlite'), { recursive: true });
    peers.push(SqlitePeer.open(sqlite.Database, join(workDir, 'sqlite')));
  }
  for (const p of peers) tracks.push(newTrack(p.name, (ev) => p.write(ev), (u, refs) => p.read(u, refs)));

  let written = 0;
  let requests = 0;
  let logicalBytes = 0;
  let genMs = 0;
  let peakRss = 0;
  let dirty = true;
  const sampleRss = (): void => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };

  try {
    for (let u0 = 0; u0 < users; u0 += cohort) {
      let g0 = performance.now();
      const convs: Conversation[] = [];
      for (let u = u0; u < Math.min(users, u0 + cohort); u++) {
        convs.push(syntheticConversation(u, { sessionsPerUser, turnsPerSession: 24, questionsPerUser, seed: 1 }));
      }
      genMs += performance.now() - g0;
      const oracles = convs.map(() => new TurnOracle());
      // One monotonic id source per user: a chunk id's time is its session's end, whatever other users wrote.
      const ulids = convs.map(() => monotonicFactory());
      const due = convs.map((c) => {
        const sessionOfTurn = new Map<string, number>();
        for (const s of c.sessions) for (const t of s.turns) sessionOfTurn.set(t.turnId, s.index);
        const m = new Map<number, Conversation['questions']>();
        for (const q of c.questions) {
          if (q.evidence.length === 0) continue;
          const at = Math.max(...q.evidence.map((e) => sessionOfTurn.get(e) ?? sessionsPerUser));
          m.set(at, [...(m.get(at) ?? []), q]);
        }
        return m;
      });
      for (let s0 = 0; s0 < sessionsPerUser; s0 += batch) {
        const s1 = Math.min(sessionsPerUser, s0 + batch);
        // One cohort round: each user's next `batch` sessions, one chunk each, as one bulk write per user.
        const round: TraceWrite[] = [];
        for (const [k, conv] of convs.entries()) {
          const ops: TraceOp[] = [];
          for (let si = s0; si < s1; si++) {
            const s = conv.sessions[si];
            if (s === undefined) continue;
            g0 = performance.now();
            const { text } = await model.compress(s.turns.map((t) => ({ turnId: t.turnId, role: t.speaker, text: t.text, at: t.at })));
            const { keywords } = await model.buildMeta(text);
            const createdAt = s.turns[s.turns.length - 1]?.at ?? s.startedAt;
            const chunkId = ulids[k]!(createdAt);
            genMs += performance.now() - g0;
            const provenance = s.turns.map((t) => t.turnId);
            ops.push({ op: 'put', sessionId: s.id, chunkId, createdAt, text, tokenCount: Math.ceil(text.length / 4), keywords, provenance });
            logicalBytes += Buffer.byteLength(text);
            oracles[k]!.add({ sessionId: s.id, chunkId }, provenance);
          }
          if (ops.length > 0) round.push({ kind: 'write', user: conv.id, ops, neighbours: [] });
        }
        for (const t of tracks) {
          const t0 = performance.now();
          const r = replayers.find((x) => x.name === t.name);
          if (r !== undefined) await r.writeConcurrent(round);
          else for (const ev of round) await t.write(ev);
          t.writeMs += performance.now() - t0;
        }
        dirty = true;
        const before = written;
        for (const ev of round) written += ev.ops.length;
        sampleRss();
        if (Math.floor(written / 50_000) > Math.floor(before / 50_000)) {
          const rates = tracks.map((t) => `${t.name} ${Math.round(written / (t.writeMs / 1000))}/s`).join(', ');
          log(`scale: ${written} chunks, ${requests} requests, ${((performance.now() - started) / 1000).toFixed(0)} s; ingest ${rates}; rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
        }
        opts.onProgress?.('scale', written, chunks);

        // The questions whose evidence this round wrote, in session order, each user in turn.
        for (let si = s0; si < s1; si++) {
          for (const [k, conv] of convs.entries()) {
            const s = conv.sessions[si];
            if (s === undefined) continue;
            for (const q of due[k]!.get(s.index) ?? []) {
              // The recall set as AkashicMemory.recall picks it: BUILDMETA of the question, the engine's candidate
              // gathering (the first akashic store's candidate index), the model's SELECT.
              const { keywords: qk } = await model.buildMeta(q.question);
              const { candidates } = await gatherCandidates(replayers[0]!.store, conv.id, null, qk, CANDIDATE_BOUNDS, { kinds: MEMORY_KINDS });
              const ids = await model.select({ text: q.question, keywords: qk }, candidates.map((c) => c.meta), 5);
              const byId = new Map(candidates.map((c) => [c.meta.id, c.ref]));
              const recall = ids.map((id) => byId.get(id)!);
              const oracle = oracles[k]!.chunksOf(q.evidence);
              if (recall.length === 0) continue;
              const cold = requests % coldEvery === 0;
              requests++;
              const order = tracks.map((_, j) => tracks[(requests + j) % tracks.length]!);
              const costs = new Map<string, Awaited<ReturnType<PolicyReplayer['read']>>>();
              for (const t of order) {
                const replayer = replayers.find((r) => r.name === t.name);
                const peer = peers.find((p) => p.name === t.name);
                if (cold) {
                  if (peer !== undefined) await peer.forgetCaches();
                  if (replayer !== undefined) await replayer.forgetCaches();
                  if (probe.ok) dropPageCache(dirty || t.name !== 'sqlite');
                  dirty = false;
                }
                const io0 = cold ? processReadBytes() : null;
                const t0 = performance.now();
                if (replayer !== undefined) costs.set(t.name, await replayer.read(conv.id, recall));
                else await t.read(conv.id, recall);
                if (cold) {
                  t.coldMs.push(performance.now() - t0);
                  const io1 = processReadBytes();
                  if (io0 !== null && io1 !== null) t.coldBytes.push(io1 - io0);
                }
              }
              for (const r of replayers) {
                const t = tracks.find((x) => x.name === r.name)!;
                const c = costs.get(r.name)!;
                t.blocks.push(c.blocksTouched);
                t.bounds.push(c.lowerBound);
                await r.afterRequest(conv.id, c);
                if (oracle.length > 0) {
                  // Oracle sets are only measured here: reading does not change the layout.
                  const o = await r.read(conv.id, oracle);
                  t.oracleBlocks.push(o.blocksTouched);
                  t.oracleBounds.push(o.lowerBound);
                }
              }
            }
          }
        }
      }
    }
    sampleRss();

    const policies: Partial<Record<PolicyName, ScaleStoreFigures>> = {};
    for (const r of replayers) {
      const t = tracks.find((x) => x.name === r.name)!;
      const s = await r.finish();
      policies[r.name] = {
        blocksPerRequest: round(mean(t.blocks)),
        blocksPerRequestP95: quantile(t.blocks, 0.95),
        lowerBound: round(mean(t.bounds)),
        p95ColdMs: round(quantile(t.coldMs, 0.95)),
        bytesReadPerRequest: round(mean(t.coldBytes), 0),
        spaceAmp: round(s.spaceAmplification, 4),
        writeAmp: round(s.writeAmplification, 4),
        p50ColdMs: round(median(t.coldMs)),
        coldSamples: t.coldMs.length,
        oracleBlocksPerRequest: round(mean(t.oracleBlocks)),
        oracleLowerBound: round(mean(t.oracleBounds)),
        ingestChunksPerSec: round(written / (t.writeMs / 1000), 0),
        diskBytes: await dirBytes(join(workDir, r.name)),
        relocatedChunks: s.relocatedChunks,
        gcMovedChunks: s.gcMovedChunks,
      };
    }
    const ak = tracks.find((x) => x.name === 'akashic') ?? tracks[0]!;
    const peerOut: ScaleResult['peers'] = {};
    if (!sqlite.ok) peerOut.sqlite = { available: false, reason: sqlite.reason };
    for (const p of peers) {
      const t = tracks.find((x) => x.name === p.name)!;
      peerOut[p.name] = {
        blocksPerRequest: null,
        blocksPerRequestP95: null,
        lowerBound: null,
        p95ColdMs: round(quantile(t.coldMs, 0.95)),
        bytesReadPerRequest: round(mean(t.coldBytes), 0),
        spaceAmp: null,
        writeAmp: null,
        p50ColdMs: round(median(t.coldMs)),
        coldSamples: t.coldMs.length,
        oracleBlocksPerRequest: null,
        oracleLowerBound: null,
        ingestChunksPerSec: round(written / (t.writeMs / 1000), 0),
        diskBytes: await p.diskBytes(),
        coldP50RatioToAkashic: round(ratio(median(t.coldMs), median(ak.coldMs))),
        coldP95RatioToAkashic: round(ratio(quantile(t.coldMs, 0.95), quantile(ak.coldMs, 0.95))),
        bytesReadRatioToAkashic: round(ratio(mean(t.coldBytes), mean(ak.coldBytes))),
      };
    }
    const mem = process.memoryUsage();
    return {
      meta: {
        command: opts.command ?? 'runScale()',
        chunks: written,
        users,
        sessionsPerUser,
        batch,
        requests,
        logicalBytes,
        pageCacheDropped: probe.ok,
        pageCacheNote: probe.reason,
        wallSeconds: round((performance.now() - started) / 1000, 1)!,
        peakRssMiB: Math.round(peakRss / 2 ** 20),
        finalRssMiB: Math.round(mem.rss / 2 ** 20),
        heapUsedMiB: Math.round(mem.heapUsed / 2 ** 20),
        generateAndKeywordSeconds: round(genMs / 1000, 1)!,
      },
      policies,
      peers: peerOut,
    };
  } finally {
    for (const r of replayers) await r.close();
    for (const p of peers) await p.close();
    if (opts.workDir === undefined) await rm(workDir, { recursive: true, force: true });
  }
}

export function scaleMarkdown(r: ScaleResult): string {
  const m = r.meta;
  const f = (x: number | null | undefined, d = 2): string => (x === null || x === undefined ? '–' : x.toFixed(d));
  const mib = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${(x / 2 ** 20).toFixed(1)} MiB`);
  const rows: string[] = [];
  const entries: [string, ScaleStoreFigures | { available: false; reason: string } | undefined][] = [
    ...Object.entries(r.policies),
    ...Object.entries(r.peers),
  ];
  for (const [name, e] of entries) {
    if (e === undefined) continue;
    if ('available' in e) {
      rows.push(`| ${name} | unavailable: ${e.reason} |||||||||||`);
      continue;
    }
    rows.push(`| ${name} | ${f(e.blocksPerRequest)} | ${f(e.blocksPerRequestP95, 0)} | ${f(e.lowerBound)} | ${f(e.oracleBlocksPerRequest)} | ${f(e.p50ColdMs)} | ${f(e.p95ColdMs)} | ${mib(e.bytesReadPerRequest)} | ${f(e.spaceAmp, 3)} | ${f(e.writeAmp, 3)} | ${f(e.ingestChunksPerSec, 0)} | ${mib(e.diskBytes)} |`);
  }
  return [
    `Scale run: ${m.chunks} chunks (${m.users} users × ${m.sessionsPerUser} sessions, one chunk per session; ${m.batch === 1 ? 'one chunk per write' : `bulk writes of ${m.batch} chunks per user`}), ${m.requests} requests, ${mib(m.logicalBytes)} of chunk text.`,
    `Cold reads: page cache ${m.pageCacheDropped ? 'dropped' : 'not dropped'} (${m.pageCacheNote}). Wall ${m.wallSeconds} s (generation + keywords ${m.generateAndKeywordSeconds} s). Memory: peak RSS ${m.peakRssMiB} MiB, final RSS ${m.finalRssMiB} MiB, heap ${m.heapUsedMiB} MiB.`,
    '',
    '| store | blocks/request | p95 | lower bound | oracle blocks/request | cold p50 ms | cold p95 ms | read bytes/request | space amp | write amp | ingest chunks/s | db size |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

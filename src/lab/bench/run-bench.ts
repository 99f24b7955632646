/**
 * `akashic bench` as a library function: load or generate the conversations, record the trace once, run the
 * lockstep comparison of the six layout policies and the two peers, run the parameter sweeps, and return the
 * figures (BenchResult). The CLI only parses options and prints.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { invalidArgument } from '../../errors.js';
import { DEFAULT_RELOCATE_EVERY_RECALLS, DEFAULT_RELOCATE_MIN_RECURRENCE, DEFAULT_TAU_ASSOC, DEFAULT_TOP_P } from '../../memattention/options.js';
import { DEFAULT_BLOCK_CAPACITY, DEFAULT_GC_MERGE_BELOW_FILL } from '../../api/store-options.js';
import { generateSynthetic, loadLocomo } from '../workload/index.js';
import type { Conversation } from '../workload/conversation.js';
import type { BenchMeta, BenchResult } from './bench-figures.js';
import { probePageCacheDrop, describeDisk } from './cold-read.js';
import { POLICY_NAMES, type LayoutParams, type PolicyName } from './layout-policies.js';
import { traceLogicalBytes } from './device-write-amp.js';
import { offlineLayoutBound } from './offline-layout-bound.js';
import { traceRecurrence } from './trace-recurrence.js';
import { runComparison } from './lockstep-comparison.js';
import { DEFAULT_SWEEP_VALUES, FAST_SWEEP_VALUES, runSweeps } from './parameter-sweeps.js';
import { mean } from './summary-stats.js';
import { recordTrace, TRACE_KINDS, type Trace, type TraceKind } from './trace.js';
import { checkSelectVariant, selectLabel, selectSetup, type SelectVariant } from '../../model/select-variants.js';

export interface BenchOptions {
  /** Which requests the trace holds: each question once (default), or a recall at every user turn. */
  readonly trace?: TraceKind;
  /** Policies of the comparison (default all six); the others are reported as not run. */
  readonly policies?: readonly PolicyName[];
  /** Measure device-level write amplification (a second replay, store by store). Default true (fast: false). */
  readonly deviceWrites?: boolean;
  /**
   * A file caching the recorded trace: read when it exists and was recorded from the same source and kind, written
   * otherwise. Recording a long admission trace takes minutes; replays of it under other settings then start at once.
   */
  readonly traceFile?: string;
  /** A LoCoMo file or folder; without it the synthetic generator is used. */
  readonly locomo?: string;
  /** Tiny synthetic trace, few cold samples, two points per sweep, no page-cache drop: a smoke run. */
  readonly fast?: boolean;
  /** Synthetic workload shape (ignored with `locomo`). */
  readonly users?: number;
  readonly sessionsPerUser?: number;
  readonly turnsPerSession?: number;
  readonly questionsPerUser?: number;
  readonly seed?: number;
  /** Synthetic topic realism (see SyntheticOptions.topicSkew and followUpChance); default 0 = the original generator. */
  readonly topicSkew?: number;
  readonly followUpChance?: number;
  /** Worker threads recording the trace, one conversation each at a time. Default 1 (in this thread). */
  readonly recordWorkers?: number;
  /**
   * The SELECT the trace is recorded with (see `model/select-variants.ts`): `lexical` (default, the engine's
   * default), `hybrid` (the offline word-mean embedder plugged into AkashicMemory, fused with BM25), `dense` (an
   * experiment: the embedder's ranking alone). Any but `lexical` joins the trace's source, so cached traces of one
   * variant are never reused for another.
   */
  readonly select?: SelectVariant;
  /** Requests measured cold. Default 300 (fast: 6). */
  readonly coldSamples?: number;
  /** Drop the page cache before each cold read. Default true (fast: false). */
  readonly dropCaches?: boolean;
  /** Run the sweeps. Default true. */
  readonly sweeps?: boolean;
  /** Layout parameters of the comparison; each defaults to the library default. */
  readonly params?: Partial<LayoutParams>;
  /** LevelDB memtable size of the on-disk stores. Default 64 KiB (see openBenchLevel). */
  readonly writeBufferSize?: number;
  /** Where the stores go; default a fresh temporary directory, removed afterwards. */
  readonly workDir?: string;
  /** The command line, recorded in meta. */
  readonly command?: string;
  /** Progress of the stages, for a progress display. */
  readonly onProgress?: (stage: string, done: number, total: number) => void;
}

export const DEFAULT_LAYOUT_PARAMS: LayoutParams = {
  blockCapacity: DEFAULT_BLOCK_CAPACITY,
  gcThreshold: 0.3,
  gcMergeBelowFill: DEFAULT_GC_MERGE_BELOW_FILL,
  gcMaxBlocks: 64,
  gcEveryEvents: 32,
  tauAssoc: DEFAULT_TAU_ASSOC,
  relocateEveryRecalls: DEFAULT_RELOCATE_EVERY_RECALLS,
  relocateMinRecurrence: DEFAULT_RELOCATE_MIN_RECURRENCE,
};

/** Synthetic shape of the default run without LoCoMo files: LoCoMo-like users with longer histories. */
export const SYNTHETIC_BENCH_DEFAULTS = { users: 8, sessionsPerUser: 40, turnsPerSession: 24, questionsPerUser: 60, seed: 1 } as const;
export const SYNTHETIC_FAST = { users: 2, sessionsPerUser: 10, turnsPerSession: 16, questionsPerUser: 12, seed: 1 } as const;
/** Fast runs use small blocks and frequent GC, so a tiny trace still exercises relocation and GC. */
export const FAST_LAYOUT_PARAMS: Partial<LayoutParams> = { blockCapacity: 4, gcEveryEvents: 8, relocateEveryRecalls: 2 };

function machine(): BenchMeta['machine'] {
  let readAheadKb: string | null = null;
  try {
    const devs = readdirSync('/sys/block').filter((d) => !d.startsWith('loop') && !d.startsWith('ram'));
    readAheadKb = devs.map((d) => `${d}=${readFileSync(`/sys/block/${d}/queue/read_ahead_kb`, 'utf8').trim()}`).join(' ');
  } catch {
    readAheadKb = null;
  }
  return { nproc: availableParallelism(), memGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10, node: process.version, platform: `${process.platform}-${process.arch}`, readAheadKb };
}

export async function loadConversations(opts: BenchOptions): Promise<{ conversations: Conversation[]; source: string }> {
  if (opts.locomo !== undefined) return { conversations: await loadLocomo(opts.locomo), source: `locomo:${opts.locomo}` };
  const base = opts.fast === true ? SYNTHETIC_FAST : SYNTHETIC_BENCH_DEFAULTS;
  const shape = {
    users: opts.users ?? base.users,
    sessionsPerUser: opts.sessionsPerUser ?? base.sessionsPerUser,
    turnsPerSession: opts.turnsPerSession ?? base.turnsPerSession,
    questionsPerUser: opts.questionsPerUser ?? base.questionsPerUser,
    seed: opts.seed ?? base.seed,
    topicSkew: opts.topicSkew ?? 0,
    followUpChance: opts.followUpChance ?? 0,
  };
  // The realism knobs join the source only when set, so traces recorded before them still match.
  const realism = `${shape.topicSkew > 0 ? `,skew=${shape.topicSkew}` : ''}${shape.followUpChance > 0 ? `,followUp=${shape.followUpChance}` : ''}`;
  return {
    conversations: generateSynthetic(shape),
    source: `synthetic:users=${shape.users},sessions=${shape.sessionsPerUser},turns=${shape.turnsPerSession},questions=${shape.questionsPerUser},seed=${shape.seed}${realism}`,
  };
}

function resolveParams(p: Partial<LayoutParams> | undefined, fast: boolean): LayoutParams {
  const out = { ...DEFAULT_LAYOUT_PARAMS, ...(fast ? FAST_LAYOUT_PARAMS : {}), ...(p ?? {}) };
  for (const k of ['blockCapacity', 'gcMaxBlocks', 'gcEveryEvents', 'relocateEveryRecalls', 'relocateMinRecurrence'] as const) {
    if (!Number.isSafeInteger(out[k]) || out[k] < (k === 'relocateEveryRecalls' ? 0 : 1)) throw invalidArgument(`bench option ${k} must be a positive integer, got ${String(out[k])}`);
  }
  if (!(out.gcThreshold > 0 && out.gcThreshold <= 1)) throw invalidArgument(`bench option gcThreshold must be in (0, 1], got ${out.gcThreshold}`);
  if (!(out.gcMergeBelowFill >= 0 && out.gcMergeBelowFill <= 1)) throw invalidArgument(`bench option gcMergeBelowFill must be in [0, 1], got ${out.gcMergeBelowFill}`);
  if (!(out.tauAssoc >= 0 && out.tauAssoc <= 1)) throw invalidArgument(`bench option tauAssoc must be in [0, 1], got ${out.tauAssoc}`);
  return out;
}

/** The stores must start empty: a replay into yesterday's data would measure nothing meaningful. */
export async function requireEmptyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).length > 0) throw invalidArgument(`work directory ${dir} is not empty`);
}

/** Figures of a trace's requests that do not depend on layout. */
function traceFigures(trace: Trace): Pick<BenchMeta, 'evidenceRecall' | 'meanRecallSetSize' | 'meanOracleSetSize'> {
  const reqs = trace.events.flatMap((e) => (e.kind === 'request' ? [e] : []));
  const withEvidence = reqs.filter((r) => r.oracle.length > 0);
  return {
    evidenceRecall: withEvidence.length === 0 ? null : withEvidence.filter((r) => r.evidenceFound).length / withEvidence.length,
    meanRecallSetSize: mean(reqs.filter((r) => r.recall.length > 0).map((r) => r.recall.length)),
    meanOracleSetSize: mean(withEvidence.map((r) => r.oracle.length)),
  };
}

async function cachedTrace(file: string | undefined, source: string, kind: TraceKind, record: () => Promise<Trace>): Promise<Trace> {
  if (file !== undefined) {
    try {
      const t = JSON.parse(await readFile(file, 'utf8')) as Trace;
      if (t.source === source && t.kind === kind) return t;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw invalidArgument(`trace file ${file} cannot be read: ${(err as Error).message}`);
    }
  }
  const t = await record();
  if (file !== undefined) await writeFile(file, JSON.stringify(t));
  return t;
}

/** Runs the benchmark end to end. */
export async function runBench(opts: BenchOptions = {}): Promise<BenchResult> {
  const fast = opts.fast === true;
  const params = resolveParams(opts.params, fast);
  const coldSamples = opts.coldSamples ?? (fast ? 6 : 300);
  if (!Number.isSafeInteger(coldSamples) || coldSamples < 0) throw invalidArgument(`bench option coldSamples must be a non-negative integer, got ${String(coldSamples)}`);
  const progress = opts.onProgress ?? (() => undefined);
  const timings: Record<string, number> = {};
  const startedAt = new Date().toISOString();

  let t = Date.now();
  const select = checkSelectVariant(opts.select ?? 'lexical');
  const loaded = await loadConversations(opts);
  const conversations = loaded.conversations;
  const source = select === 'lexical' ? loaded.source : `${loaded.source},select=${select}`;
  const kind = opts.trace ?? 'questions';
  if (!TRACE_KINDS.includes(kind)) throw invalidArgument(`bench option trace must be one of ${TRACE_KINDS.join(', ')}, got ${String(kind)}`);
  for (const p of opts.policies ?? []) if (!POLICY_NAMES.includes(p)) throw invalidArgument(`unknown policy ${JSON.stringify(p)} (policies: ${POLICY_NAMES.join(', ')})`);
  const trace = await cachedTrace(opts.traceFile, source, kind, () => recordTrace(conversations, source, { kind, select, topP: DEFAULT_TOP_P, ...(opts.recordWorkers === undefined ? {} : { workers: opts.recordWorkers }), onConversation: (d, n) => progress('record trace', d, n) }));
  timings['recordTrace'] = Date.now() - t;

  const wantDrop = opts.dropCaches ?? !fast;
  const probe = wantDrop ? probePageCacheDrop() : { ok: false, reason: 'page cache not dropped (disabled for this run): cold figures are warm-cache reads' };
  const workDir = opts.workDir ?? (await mkdtemp(join(tmpdir(), 'akashic-bench-')));
  await requireEmptyDir(workDir);
  t = Date.now();
  let comparison;
  let disk = null;
  try {
    comparison = await runComparison(trace, {
      params,
      workDir,
      coldSamples,
      dropCaches: probe.ok,
      writeBufferSize: opts.writeBufferSize ?? 64 * 1024,
      deviceWrites: opts.deviceWrites ?? !fast,
      ...(opts.policies === undefined ? {} : { policies: opts.policies }),
      onProgress: (d, n) => progress('replay', d, n),
    });
    disk = describeDisk(workDir);
  } finally {
    if (opts.workDir === undefined) await rm(workDir, { recursive: true, force: true });
  }
  timings['comparison'] = Date.now() - t;

  let sweeps;
  if (opts.sweeps !== false) {
    t = Date.now();
    const values = fast ? FAST_SWEEP_VALUES : DEFAULT_SWEEP_VALUES;
    const total = values.theta.length + values.tauAssoc.length + values.blockCapacity.length;
    let d = 0;
    sweeps = await runSweeps(trace, params, values, () => progress('sweeps', ++d, total));
    timings['sweeps'] = Date.now() - t;
  }

  const meta: BenchMeta = {
    command: opts.command ?? 'runBench()',
    trace: trace.kind,
    source,
    select: {
      ...selectLabel(await selectSetup(select)),
      note:
        select === 'lexical'
          ? 'the engine default SELECT (embedded model)'
          : `the trace was recorded with ${select === 'hybrid' ? 'the word-mean embedder fused with BM25 (hybrid SELECT)' : "the word-mean embedder's ranking alone (an experiment)"}; replays and cold end-to-end recalls use the default SELECT over the replayed stores, which hold no chunk vectors`,
    },
    users: trace.users,
    chunks: trace.chunksWritten,
    requests: trace.requests,
    emptyRecallRequests: comparison.emptyRecallRequests,
    oracleRequests: comparison.oracleRequests,
    ...traceFigures(trace),
    pageCacheDropped: probe.ok,
    pageCacheNote: probe.reason,
    coldSamples: comparison.coldSamples,
    disk,
    offlineBound: offlineLayoutBound(trace, params.blockCapacity),
    recurrence: traceRecurrence(trace),
    logicalBytes: traceLogicalBytes(trace),
    params: { ...params, writeBufferSize: opts.writeBufferSize ?? 64 * 1024 },
    machine: machine(),
    timingsMs: timings,
    startedAt,
  };
  return sweeps === undefined ? { meta, policies: comparison.policies, peers: comparison.peers } : { meta, policies: comparison.policies, peers: comparison.peers, sweeps };
}

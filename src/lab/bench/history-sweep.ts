/**
 * `akashic bench --history-sweep`: what one recall and one write cost as a user's history grows.
 *
 * Recall: one user's history of 100, 1k, 10k, 100k chunks (the `sizes`; each size its own stores holding the
 * corpus's first chunks); recalls through `AkashicMemory.recall` (user scope, embedded model: candidate gathering
 * through the candidate index + SELECT + fetch, end to end) warm and cold, against SQLite FTS5 top-5 by bm25() over
 * the same chunk texts. Every size's stores are open at once and measured interleaved request by request (each
 * query at every size in turn), so the machine's load falls on every size alike. Cold means the page cache dropped
 * and both stores' own caches emptied (the LevelDB handle reopened, SQLite's cache shrunk) before each request.
 *
 * Ingest: chunks/s writing fresh stores one chunk per call — akashic with 1 writer and with 16 concurrent writers
 * (16 users, group commit coalescing them), classic-level one key per chunk and SQLite one row per chunk (one
 * transaction each), under relaxed durability and under sync durability (fsync per acknowledged write; SQLite
 * `synchronous = FULL`). Plus `leveldb-zstd` (relaxed): classic-level one key per chunk whose value is zstd-compressed
 * before its `put` — the floor of any store that compresses a chunk before acknowledging its write (two thread-pool
 * round trips in a row, no other work), which akashic's put is bound by.
 *
 * The corpus is synthetic and deterministic: pronounceable words from a Zipf-distributed vocabulary, each chunk
 * about a topic (a fifth of its words from the topic's own words), keywords = its distinct words by frequency.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { compress } from '@mongodb-js/zstd';
import { DEFAULT_ZSTD_LEVEL } from '../../block/frame-codec.js';
import { AkashicStore } from '../../engine/akashic-store.js';
import type { WriteOp } from '../../api/requests.js';
import { coldReopen } from '../../engine/internal-seams.js';
import { forgetKeywordListTerms } from '../../model/keywords.js';
import { AkashicMemory } from '../../memattention/memory.js';
import { createPrng, type Prng } from '../workload/prng.js';
import { describeDisk, dropPageCache, probePageCacheDrop, processReadBytes } from './cold-read.js';
import type { DiskInfo } from './bench-figures.js';
import { loadSqlite, type SqliteConstructor } from './peer-stores.js';
import { openBenchLevel } from './policy-replayer.js';
import { SqliteFts5Peer } from './sqlite-fts5-peer.js';
import { median, quantile, round } from './summary-stats.js';
import type { TraceOp } from './trace.js';

export interface HistorySweepOptions {
  /** Chunks per user at each step, increasing. Default 100, 1k, 10k, 100k. */
  readonly sizes?: readonly number[];
  readonly workDir?: string;
  readonly dropCaches?: boolean;
  readonly warmSamples?: number;
  /**
   * Queries recalled at every size before the measured ones (their own, not measured), so the process-wide memos a
   * long-running host has filled (word stems, keyword terms, the tokenizer's merges) are as warm for a large history
   * as for a small one, whose few chunks ten queries cover. Default 100.
   */
  readonly warmupQueries?: number;
  readonly coldSamples?: number;
  /** Chunks written per relaxed ingest figure (default 4,000) and per sync figure (default 640). */
  readonly ingestChunks?: number;
  readonly ingestSyncChunks?: number;
  readonly seed?: number;
  /**
   * Keep the grown histories in this directory, one per size in `size-N/` (the akashic and FTS5 stores, and where
   * the corpus stopped), and resume from them: a run continues growing each from what an earlier run left there
   * (same seed). Lets a 100k history be grown once, outside a time-boxed measuring run.
   */
  readonly historyDir?: string;
  /** Only grow the histories of every size: no recall measurements (needs `historyDir`). */
  readonly buildOnly?: boolean;
  /** Leave out the ingest table (`ingest` is then null). */
  readonly skipIngest?: boolean;
  readonly command?: string;
  readonly log?: (line: string) => void;
}

export interface SweepRow {
  readonly chunksPerUser: number;
  readonly recallP50Ms: number | null;
  readonly recallP95Ms: number | null;
  readonly coldRecallP50Ms: number | null;
  /** Bytes the process read from storage per cold akashic recall (/proc/self/io read_bytes), null where unknown. */
  readonly bytesReadPerRecall: number | null;
  readonly fts5RecallP50Ms: number | null;
  readonly fts5ColdRecallP50Ms: number | null;
  /** Extra figures (not in the stable schema's core). */
  readonly coldRecallP95Ms: number | null;
  readonly fts5RecallP95Ms: number | null;
  readonly fts5BytesReadPerRecall: number | null;
  /** Candidates shown to SELECT per warm recall (bounded by the window and prefilter, whatever the history). */
  readonly candidatesPerRecall: number | null;
  readonly akashicIngestSeconds: number;
  readonly fts5IngestSeconds: number;
  /** The size the ratios below compare with: 1,000 chunks when measured, else the smallest size. */
  readonly ratioReferenceChunks: number;
  /** recallP50Ms ÷ the reference size's (the sizes are measured interleaved, so both come from the same minutes). */
  readonly recallP50Ratio: number | null;
  /** Median over the warm queries of this size's time ÷ the reference size's time for the same query. */
  readonly recallPairedRatioP50: number | null;
  /** coldRecallP50Ms ÷ the reference size's. */
  readonly coldRecallP50Ratio: number | null;
}

export interface IngestFigures {
  readonly akashic: number;
  readonly akashicConcurrent: number;
  readonly akashicSync: number;
  readonly akashicSyncConcurrent: number;
  readonly 'leveldb-naive': number;
  readonly 'leveldb-naive-sync': number;
  /** classic-level one key per chunk, the value zstd-compressed (level 3) before each `put`; relaxed durability. */
  readonly 'leveldb-zstd': number;
  readonly sqlite: number | null;
  readonly 'sqlite-sync': number | null;
}

export interface HistorySweepResult {
  readonly meta: {
    readonly command: string;
    readonly startedAt: string;
    readonly seconds: number;
    readonly disk: DiskInfo;
    readonly cold: string;
    readonly warmSamples: number;
    readonly warmupQueries: number;
    readonly coldSamples: number;
    readonly ingestChunks: number;
    readonly ingestSyncChunks: number;
    readonly chunkBytes: number;
    readonly seed: number;
    readonly notes: readonly string[];
  };
  readonly sweep: SweepRow[];
  readonly ingest: IngestFigures | null;
}

const SYLLABLES = ['ka', 'lu', 'mer', 'to', 'sa', 'vin', 'dor', 'pe', 'ri', 'xo', 'nam', 'bel', 'tu', 'go', 'fi', 'ze', 'qua', 'nes'];
const VOCAB = 30_000;
const TOPICS = 3_000;
const TOPIC_WORDS = 12;
const WORDS_PER_CHUNK = 140;
const KEYWORDS_PER_CHUNK = 64;

function word(i: number): string {
  let s = '';
  let x = i + SYLLABLES.length;
  do {
    s += SYLLABLES[x % SYLLABLES.length];
    x = Math.floor(x / SYLLABLES.length);
  } while (x > 0);
  return s;
}

/** Zipf(1) over [0, n) by inverse transform of the harmonic CDF, approximated with logs. */
function zipf(rng: Prng, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(rng.next() * Math.log(n + 1)) - 1));
}

/** The deterministic synthetic corpus. */
export class SweepCorpus {
  readonly #rng: Prng;
  constructor(seed: number) {
    this.#rng = createPrng(seed);
  }

  topicWords(topic: number): string[] {
    return Array.from({ length: TOPIC_WORDS }, (_, j) => word(VOCAB + topic * TOPIC_WORDS + j));
  }

  chunk(): { text: string; keywords: string[] } {
    const rng = this.#rng;
    const topic = zipf(rng, TOPICS);
    const tw = this.topicWords(topic);
    const words: string[] = [];
    for (let i = 0; i < WORDS_PER_CHUNK; i++) words.push(rng.chance(0.2) ? rng.pick(tw) : word(zipf(rng, VOCAB)));
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    const keywords = [...tf.entries()]
      .sort((a, b) => b[1] - a[1] || b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1))
      .slice(0, KEYWORDS_PER_CHUNK)
      .map(([w]) => w);
    return { text: words.join(' '), keywords };
  }

  /** A question about one topic: two of its words and some common words. */
  query(): string {
    const rng = this.#rng;
    const tw = this.topicWords(zipf(rng, TOPICS));
    return `what did we say about ${rng.pick(tw)} and ${rng.pick(tw)} ${word(zipf(rng, 50))}?`;
  }
}

const USER = 'history';
const SESSION = 'main';

function p(xs: number[], q: number): number | null {
  return round(quantile(xs, q), 3);
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Runs the history sweep and the ingest table. */
export async function runHistorySweep(opts: HistorySweepOptions = {}): Promise<HistorySweepResult> {
  const started = Date.now();
  const sizes = [...(opts.sizes ?? [100, 1_000, 10_000, 100_000])].sort((a, b) => a - b);
  const seed = opts.seed ?? 12;
  const warmSamples = opts.warmSamples ?? 60;
  const coldSamples = opts.coldSamples ?? 20;
  const log = opts.log ?? (() => undefined);
  const ownDir = opts.workDir === undefined;
  const root = opts.workDir ?? (await mkdtemp(join(tmpdir(), 'akashic-history-')));
  const work = join(root, `history-sweep-${process.pid}`);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const notes: string[] = [];
  const drop = opts.dropCaches !== false ? probePageCacheDrop() : { ok: false, reason: 'page-cache drop disabled (--no-drop-caches): cold figures are not cold' };
  if (!drop.ok) notes.push(drop.reason);
  const sqlite = await loadSqlite();
  if (!sqlite.ok) notes.push(sqlite.reason);
  try {
    if (opts.buildOnly === true && opts.historyDir === undefined) throw new Error('history sweep: buildOnly needs historyDir');
    const history = opts.historyDir ?? join(work, 'history');
    const warmupQueries = opts.warmupQueries ?? 100;
    const sweep = await sweepRecall(history, sizes, seed, warmSamples, warmupQueries, coldSamples, drop.ok, sqlite.ok ? sqlite.Database : null, log, opts.buildOnly === true, notes);
    const ingestChunks = opts.ingestChunks ?? 4_000;
    const ingestSyncChunks = opts.ingestSyncChunks ?? 640;
    const ingest =
      opts.skipIngest === true || opts.buildOnly === true ? null : await ingestTable(work, seed, ingestChunks, ingestSyncChunks, sqlite.ok ? sqlite.Database : null, log);
    return {
      meta: {
        command: opts.command ?? 'akashic bench --history-sweep',
        startedAt: new Date(started).toISOString(),
        seconds: round((Date.now() - started) / 1000, 1)!,
        disk: describeDisk(work),
        cold: drop.ok ? 'page cache dropped and store caches emptied before each cold request' : drop.reason,
        warmSamples,
        warmupQueries,
        coldSamples,
        ingestChunks,
        ingestSyncChunks,
        chunkBytes: Buffer.byteLength(new SweepCorpus(seed).chunk().text),
        seed,
        notes,
      },
      sweep,
      ingest,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
    if (ownDir) await rm(root, { recursive: true, force: true });
  }
}

/** Where a kept history stopped (`historyDir`): the corpus position and the clock of the last chunk. */
interface HistoryState {
  readonly seed: number;
  readonly chunks: number;
  readonly clock: number;
}

/** One size's history: its own akashic and FTS5 stores, holding the corpus's first `size` chunks. */
interface SizedHistory {
  readonly size: number;
  readonly dir: string;
  readonly akashicMs: number;
  readonly ftsMs: number;
}

/** Directory of one size's history inside the history directory. */
function sizeDir(history: string, size: number): string {
  return join(history, `size-${size}`);
}

/**
 * Grows the history in `dir` (akashic and FTS5 stores) to `size` chunks, resuming what an earlier run left there,
 * in bulk writes (the import path) of 256 chunks. A history already past `size` is an error (it would not be the
 * corpus's first `size` chunks).
 */
async function growHistory(dir: string, size: number, seed: number, Database: SqliteConstructor | null, notes: string[]): Promise<SizedHistory> {
  await mkdir(dir, { recursive: true });
  const statePath = join(dir, 'history-state.json');
  const state = await readFile(statePath, 'utf8').then(
    (t) => JSON.parse(t) as HistoryState,
    () => null,
  );
  if (state !== null && state.seed !== seed) throw new Error(`history sweep: ${dir} holds a history of seed ${state.seed}, not ${seed}`);
  if (state !== null && state.chunks > size) throw new Error(`history sweep: ${dir} holds ${state.chunks} chunks, more than its size ${size}`);
  const corpus = new SweepCorpus(seed);
  // Resuming: the corpus continues where the kept history stopped.
  for (let i = 0; i < (state?.chunks ?? 0); i++) corpus.chunk();
  if (state !== null) notes.push(`size ${size}: resumed a kept history of ${state.chunks} chunks (${dir})`);
  let have = state?.chunks ?? 0;
  let clock = state?.clock ?? Date.UTC(2025, 0, 1);
  let akashicMs = 0;
  let ftsMs = 0;
  if (have >= size) return { size, dir, akashicMs, ftsMs };
  const store = await AkashicStore.open({ path: join(dir, 'akashic'), durability: 'relaxed', gc: { intervalMs: 0 } });
  const fts = Database === null ? null : await openFts(Database, dir);
  try {
    while (have < size) {
      const n = Math.min(256, size - have);
      const ops: WriteOp[] = [];
      const trace: TraceOp[] = [];
      for (let i = 0; i < n; i++) {
        const c = corpus.chunk();
        clock += 60_000;
        ops.push({ op: 'put', sessionId: SESSION, kind: 'memory', text: c.text, keywords: c.keywords, tokenCount: WORDS_PER_CHUNK, createdAt: clock });
      }
      akashicMs += await timeIt(async () => {
        const res = await store.write(USER, ops);
        res.forEach((r, i) => {
          const o = ops[i] as unknown as { text: string; keywords: string[]; createdAt: number };
          trace.push({ op: 'put', sessionId: r.sessionId, chunkId: r.chunkId, createdAt: o.createdAt, tokenCount: WORDS_PER_CHUNK, keywords: o.keywords, provenance: [], text: o.text });
        });
      });
      if (fts !== null) ftsMs += await timeIt(() => fts.write({ kind: 'write', user: USER, ops: trace, neighbours: [] }));
      have += n;
      await writeFile(statePath, JSON.stringify({ seed, chunks: have, clock } satisfies HistoryState));
    }
  } finally {
    await store.close();
    await fts?.close();
  }
  return { size, dir, akashicMs, ftsMs };
}

async function openFts(Database: SqliteConstructor, dir: string): Promise<SqliteFts5Peer> {
  const ftsDir = join(dir, 'fts5');
  await mkdir(ftsDir, { recursive: true });
  return SqliteFts5Peer.open(Database, ftsDir);
}

/** One size's stores, open for measuring. */
interface OpenHistory {
  readonly h: SizedHistory;
  readonly store: AkashicStore;
  memory: AkashicMemory;
  readonly fts: SqliteFts5Peer | null;
  readonly warm: number[];
  readonly ftsWarm: number[];
  readonly cold: number[];
  readonly ftsCold: number[];
  readonly bytes: number[];
  readonly ftsBytes: number[];
  candidates: number;
}

/**
 * The recall measurements. Every size has its own stores (the corpus's first `size` chunks), all open at once, and
 * the sizes are measured interleaved request by request: each query is recalled at every size in turn (the first
 * size rotating), warm and then cold, so load on a shared machine falls on every size alike and the ratio of two
 * sizes is read from the same minutes.
 */
async function sweepRecall(
  history: string,
  sizes: readonly number[],
  seed: number,
  warmSamples: number,
  warmupQueries: number,
  coldSamples: number,
  cold: boolean,
  Database: SqliteConstructor | null,
  log: (line: string) => void,
  buildOnly: boolean,
  notes: string[],
): Promise<SweepRow[]> {
  const grown: SizedHistory[] = [];
  for (const size of sizes) {
    const h = await growHistory(sizeDir(history, size), size, seed, Database, notes);
    log(`history sweep: ${size} chunks (akashic ingest ${(h.akashicMs / 1000).toFixed(1)} s, fts5 ${(h.ftsMs / 1000).toFixed(1)} s)`);
    grown.push(h);
  }
  if (buildOnly) return [];
  const openMemory = (s: AkashicStore): AkashicMemory => new AkashicMemory(s, { relocateEveryRecalls: 0, recallScope: 'user', writeBack: 'await' });
  const open: OpenHistory[] = [];
  try {
    for (const h of grown) {
      const store = await AkashicStore.open({ path: join(h.dir, 'akashic'), durability: 'relaxed', gc: { intervalMs: 0 } });
      open.push({ h, store, memory: openMemory(store), fts: Database === null ? null : await openFts(Database, h.dir), warm: [], ftsWarm: [], cold: [], ftsCold: [], bytes: [], ftsBytes: [], candidates: 0 });
    }
    const queries = new SweepCorpus(seed + 1);
    // Warm: `warmupQueries` queries of their own (another seed, so the measured ones stay the same), then one pass of
    // the first 10 measured queries, then the measured pass.
    const qs = Array.from({ length: warmSamples }, () => queries.query());
    const warmup = new SweepCorpus(seed + 2);
    for (const q of [...Array.from({ length: warmupQueries }, () => warmup.query()), ...qs.slice(0, 10)]) {
      for (const o of open) {
        await o.memory.recall({ user: USER, session: SESSION, query: q });
        await o.fts?.recall(USER, q, 5);
      }
    }
    for (let i = 0; i < qs.length; i++) {
      const q = qs[i]!;
      for (let k = 0; k < open.length; k++) {
        const o = open[(i + k) % open.length]!;
        o.warm.push(
          await timeIt(async () => {
            const r = await o.memory.recall({ user: USER, session: SESSION, query: q });
            o.candidates += r.candidates;
          }),
        );
        if (o.fts !== null) o.ftsWarm.push(await timeIt(() => o.fts!.recall(USER, q, 5)));
      }
    }
    if (cold) {
      for (let i = 0; i < coldSamples; i++) {
        const q = queries.query();
        for (let k = 0; k < open.length; k++) {
          const o = open[(i + k) % open.length]!;
          await o.memory.close();
          await o.store[coldReopen]();
          // Process-wide memos filed by chunks' content go too, as in a restarted process.
          forgetKeywordListTerms();
          o.memory = openMemory(o.store);
          dropPageCache(i === 0 && k === 0);
          const b0 = processReadBytes();
          o.cold.push(await timeIt(() => o.memory.recall({ user: USER, session: SESSION, query: q })));
          const b1 = processReadBytes();
          if (b0 !== null && b1 !== null) o.bytes.push(b1 - b0);
          if (o.fts !== null) {
            await o.fts.forgetCaches();
            dropPageCache(false);
            const f0 = processReadBytes();
            o.ftsCold.push(await timeIt(() => o.fts!.recall(USER, q, 5)));
            const f1 = processReadBytes();
            if (f0 !== null && f1 !== null) o.ftsBytes.push(f1 - f0);
          }
        }
      }
    }
    // Ratios against the 1,000-chunk size (the reference), else the smallest: of the p50s, and the median
    // over queries of the same query's time at this size ÷ at the reference (paired, so a slow minute cancels).
    const ref = open.find((o) => o.h.size === 1_000) ?? open[0]!;
    const rows = open.map((o): SweepRow => {
      const paired = o.warm.map((t, i) => t / ref.warm[i]!);
      return {
        chunksPerUser: o.h.size,
        recallP50Ms: p(o.warm, 0.5),
        recallP95Ms: p(o.warm, 0.95),
        coldRecallP50Ms: p(o.cold, 0.5),
        bytesReadPerRecall: o.bytes.length === 0 ? null : round(median(o.bytes), 0),
        fts5RecallP50Ms: p(o.ftsWarm, 0.5),
        fts5ColdRecallP50Ms: p(o.ftsCold, 0.5),
        coldRecallP95Ms: p(o.cold, 0.95),
        fts5RecallP95Ms: p(o.ftsWarm, 0.95),
        fts5BytesReadPerRecall: o.ftsBytes.length === 0 ? null : round(median(o.ftsBytes), 0),
        candidatesPerRecall: qs.length === 0 ? null : round(o.candidates / qs.length, 1),
        akashicIngestSeconds: round(o.h.akashicMs / 1000, 2)!,
        fts5IngestSeconds: round(o.h.ftsMs / 1000, 2)!,
        ratioReferenceChunks: ref.h.size,
        recallP50Ratio: ratioOf(p(o.warm, 0.5), p(ref.warm, 0.5)),
        recallPairedRatioP50: paired.length === 0 ? null : round(median(paired), 3),
        coldRecallP50Ratio: ratioOf(p(o.cold, 0.5), p(ref.cold, 0.5)),
      };
    });
    for (const r of rows) {
      log(`  ${r.chunksPerUser}: warm p50 ${r.recallP50Ms} ms (fts5 ${r.fts5RecallP50Ms}; ÷ ${r.ratioReferenceChunks}: ${r.recallP50Ratio}, paired ${r.recallPairedRatioP50}), cold p50 ${r.coldRecallP50Ms} ms (fts5 ${r.fts5ColdRecallP50Ms})`);
    }
    return rows;
  } finally {
    for (const o of open) {
      await o.memory.close();
      await o.store.close();
      await o.fts?.close();
    }
  }
}

function ratioOf(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : round(a / b, 3);
}

/** Chunks/s of `n` chunk writes issued by `writers` concurrent loops. */
async function rate(n: number, writers: number, write: (writer: number, i: number) => Promise<void>): Promise<number> {
  const per = Math.ceil(n / writers);
  const t = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < per; i++) await write(w, i);
    }),
  );
  return round((per * writers) / ((performance.now() - t) / 1000), 0)!;
}

async function ingestTable(work: string, seed: number, n: number, nSync: number, Database: SqliteConstructor | null, log: (line: string) => void): Promise<IngestFigures> {
  const corpus = new SweepCorpus(seed + 7);
  const pool = Array.from({ length: 512 }, () => corpus.chunk());
  const chunk = (w: number, i: number): { text: string; keywords: string[] } => pool[(w * 131 + i) % pool.length]!;
  let dirNo = 0;
  const fresh = async (name: string): Promise<string> => {
    const d = join(work, `ingest-${dirNo++}-${name}`);
    await mkdir(d, { recursive: true });
    return d;
  };

  const akashic = async (durability: 'sync' | 'relaxed', writers: number, count: number): Promise<number> => {
    const store = await AkashicStore.open({ path: join(await fresh('akashic'), 'db'), durability, gc: { intervalMs: 0 } });
    try {
      return await rate(count, writers, async (w, i) => {
        const c = chunk(w, i);
        await store.put(`agent${w}`, { sessionId: SESSION, kind: 'memory', text: c.text, keywords: c.keywords, tokenCount: WORDS_PER_CHUNK });
      });
    } finally {
      await store.close();
    }
  };
  const level = async (sync: boolean, count: number, compressFirst = false): Promise<number> => {
    const db = openBenchLevel(join(await fresh('leveldb'), 'db'), 4 * 1024 * 1024);
    await db.open();
    try {
      let seq = 0;
      return await rate(count, 1, async (w, i) => {
        const c = chunk(w, i);
        const key = `${USER}/${SESSION}/${(seq++).toString().padStart(10, '0')}`;
        const json = Buffer.from(JSON.stringify({ createdAt: Date.now(), tokenCount: WORDS_PER_CHUNK, keywords: c.keywords, text: c.text }));
        const value = compressFirst ? await compress(json, DEFAULT_ZSTD_LEVEL) : json;
        await db.put(key, value, { sync } as unknown as Record<string, never>);
      });
    } finally {
      await db.close();
    }
  };
  const sqlite = async (sync: boolean, count: number): Promise<number | null> => {
    if (Database === null) return null;
    const db = new Database(join(await fresh('sqlite'), 'chunks.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma(sync ? 'synchronous = FULL' : 'synchronous = OFF');
    db.exec('CREATE TABLE chunks (id INTEGER PRIMARY KEY, user TEXT NOT NULL, session TEXT NOT NULL, created_at INTEGER NOT NULL, token_count INTEGER NOT NULL, keywords TEXT NOT NULL, text TEXT NOT NULL); CREATE INDEX chunks_user ON chunks (user, session, id);');
    const ins = db.prepare('INSERT INTO chunks (user, session, created_at, token_count, keywords, text) VALUES (?, ?, ?, ?, ?, ?)');
    try {
      return await rate(count, 1, async (w, i) => {
        const c = chunk(w, i);
        ins.run(USER, SESSION, Date.now(), WORDS_PER_CHUNK, JSON.stringify(c.keywords), c.text);
      });
    } finally {
      db.close();
    }
  };

  const out = {
    akashic: await akashic('relaxed', 1, n),
    akashicConcurrent: await akashic('relaxed', 16, n),
    'leveldb-naive': await level(false, n),
    'leveldb-zstd': await level(false, n, true),
    sqlite: await sqlite(false, n),
    akashicSync: await akashic('sync', 1, nSync),
    akashicSyncConcurrent: await akashic('sync', 16, nSync),
    'leveldb-naive-sync': await level(true, nSync),
    'sqlite-sync': await sqlite(true, nSync),
  };
  log(`ingest (chunks/s): ${JSON.stringify(out)}`);
  return out;
}

/** The sweep and ingest tables as markdown. */
export function historySweepMarkdown(r: HistorySweepResult): string {
  const f = (x: number | null): string => (x === null ? '–' : String(x));
  const lines = [
    `# History sweep`,
    ``,
    `\`${r.meta.command}\` — ${r.meta.seconds} s; disk: ${r.meta.disk.summary}; ${r.meta.cold}.`,
    ``,
    `| chunks/user | recall p50 ms | p95 ms | cold p50 ms | cold p95 ms | bytes read/recall | FTS5 p50 ms | FTS5 p95 ms | FTS5 cold p50 ms | FTS5 bytes/recall |`,
    `|---|---|---|---|---|---|---|---|---|---|`,
    ...r.sweep.map(
      (s) =>
        `| ${s.chunksPerUser} | ${f(s.recallP50Ms)} | ${f(s.recallP95Ms)} | ${f(s.coldRecallP50Ms)} | ${f(s.coldRecallP95Ms)} | ${f(s.bytesReadPerRecall)} | ${f(s.fts5RecallP50Ms)} | ${f(s.fts5RecallP95Ms)} | ${f(s.fts5ColdRecallP50Ms)} | ${f(s.fts5BytesReadPerRecall)} |`,
    ),
    ...(r.ingest === null
      ? []
      : [
          ``,
          `| ingest (chunks/s) | relaxed | sync |`,
          `|---|---|---|`,
          `| akashic, 1 writer | ${r.ingest.akashic} | ${r.ingest.akashicSync} |`,
          `| akashic, 16 writers | ${r.ingest.akashicConcurrent} | ${r.ingest.akashicSyncConcurrent} |`,
          `| classic-level, one key per chunk | ${r.ingest['leveldb-naive']} | ${r.ingest['leveldb-naive-sync']} |`,
          `| classic-level, one key per chunk, zstd before each put | ${r.ingest['leveldb-zstd']} | – |`,
          `| SQLite, one row per chunk | ${f(r.ingest.sqlite)} | ${f(r.ingest['sqlite-sync'])} |`,
        ]),
    ``,
    ...r.meta.notes.map((n) => `- ${n}`),
  ];
  return lines.join('\n') + '\n';
}

import { AkashicStore } from '../../engine/akashic-store.js';
import type { GcReport, StoreStats, VerifyReport } from '../../api/reports.js';
import { AkashicMemory } from '../../memattention/index.js';
import { lineWriter, type LineSink } from '../../util/line-sink.js';
import { formatBytes, formatRatio } from '../../util/text-format.js';
import type { ChunkRef } from '../../api/chunk-input.js';
import { generateSynthetic } from '../workload/synthetic.js';
import type { Conversation } from '../workload/conversation.js';
import { replayConversation, type AskedQuestion } from './replay.js';
import { runMemoryDemo } from './memory-demo.js';

export interface DemoOptions {
  /** Database directory (classic-level). */
  readonly path: string;
  readonly users?: number;
  readonly sessionsPerUser?: number;
  readonly seed?: number;
  /** Conversations to use instead of the built-in synthetic workload. */
  readonly conversations?: readonly Conversation[];
  /** Progress within the running step (e.g. conversations ingested, questions asked), for a progress bar. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Blocks touched per retrieval over one pass of the question set. */
export interface RetrievalFigures {
  readonly requests: number;
  readonly blocksPerRequest: number;
  /** Mean of ceil(chunks / capacity): the fewest blocks that could hold each request's chunks. */
  readonly lowerBound: number;
}

export interface DemoReport {
  readonly users: number;
  readonly sessions: number;
  readonly turns: number;
  readonly questions: number;
  /** The recalled chunk sets read on the layout ingestion produced (write order, relocation off). */
  readonly beforeRelocation: RetrievalFigures;
  readonly statsAfterIngest: StoreStats;
  /** The recalls again, on the full history, with online co-access relocation on (each cost taken before it relocates). */
  readonly duringRelocation: RetrievalFigures;
  readonly gc: GcReport;
  /** The chunk sets of the online-relocation pass, read again after relocation and GC (compare with duringRelocation). */
  readonly afterRelocationAndGc: RetrievalFigures;
  /** The ingest-time sets read again after relocation and GC (compare with beforeRelocation). */
  readonly ingestSetsAfter: RetrievalFigures;
  readonly statsAfter: StoreStats;
  readonly verify: VerifyReport;
  readonly evidenceRecall: number;
  /** The store's own totals as `akashic inspect` reads them, from the database reopened read-only after the run. */
  readonly totals: StoreStats;
}

function figures(costs: readonly { blocks: number; chunks: number }[], capacity: number): RetrievalFigures {
  const n = costs.length;
  const mean = (f: (c: { blocks: number; chunks: number }) => number): number => (n === 0 ? 0 : costs.reduce((s, c) => s + f(c), 0) / n);
  return { requests: n, blocksPerRequest: mean((c) => c.blocks), lowerBound: mean((c) => Math.ceil(c.chunks / capacity)) };
}

/**
 * The main job on the embedded default: a built-in multi-session workload (synthetic, LoCoMo-shaped) goes through
 * MemAttention (turns → gated compaction → recall per question), then the questions are recalled again with
 * online relocation, GC runs, and the questions are recalled a last time. Prints layout figures at each step and
 * leaves the database at `path`.
 */
export async function runDemo(opts: DemoOptions, sink: LineSink): Promise<DemoReport> {
  const out = lineWriter(sink);
  const convs = opts.conversations ?? generateSynthetic({ users: opts.users ?? 3, sessionsPerUser: opts.sessionsPerUser ?? 60, seed: opts.seed ?? 7 });
  const store = await AkashicStore.open({ path: opts.path, gc: { intervalMs: 0 }, durability: 'relaxed' });
  const capacity = store.options.blockCapacity;
  try {
    const turns = convs.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
    const sessions = convs.reduce((n, c) => n + c.sessions.length, 0);
    await runMemoryDemo(store, out);
    await out.line('');
    await out.line(`How the storage holds up: ${convs.length} user${convs.length === 1 ? "" : "s"}, ${sessions} sessions, ${turns} turns of synthetic conversation, embedded model (no network)`);

    // 1. Ingest through MemAttention with questions interleaved; relocation off, so this is the write-order layout.
    const ingest = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    const progress = opts.onProgress ?? (() => undefined);
    await out.line(`1/4 ingesting every session through MemAttention (turns gather until 1,024 tokens, then compact into a chunk), asking each question as it comes up…`);
    const asked: AskedQuestion[] = [];
    for (const [i, c] of convs.entries()) {
      progress(i, convs.length);
      asked.push(...(await replayConversation(ingest, c)));
    }
    progress(convs.length, convs.length);
    await ingest.close();
    const requests = asked
      .filter((a) => a.recall.chunks.length > 0)
      .map((a) => ({ user: a.conversationId, refs: a.recall.chunks.map((ch): ChunkRef => ({ sessionId: ch.sessionId, chunkId: ch.chunkId })) }));
    const readAll = async (sets: readonly { user: string; refs: ChunkRef[] }[] = requests): Promise<RetrievalFigures> => {
      const costs: { blocks: number; chunks: number }[] = [];
      for (const r of sets) {
        const got = await store.getMany(r.user, r.refs);
        costs.push({ blocks: got.blocksTouched, chunks: r.refs.length });
      }
      return figures(costs, capacity);
    };
    // The recalled sets, read on the layout ingestion left (write order, no relocation yet).
    const before = await readAll();
    const withEvidence = asked.filter((a) => a.question.evidence.length > 0);
    const evidenceRecall = withEvidence.length === 0 ? 0 : withEvidence.filter((a) => a.evidenceFound.length === a.question.evidence.length).length / withEvidence.length;
    const statsAfterIngest = await store.stats();
    await out.line(`1. ingest + ${asked.length} recalls: ${statsAfterIngest.chunks} chunks in ${statsAfterIngest.blocks} blocks; blocks/retrieval ${before.blocksPerRequest.toFixed(2)} (lower bound ${before.lowerBound.toFixed(2)}); evidence recall@5 ${(evidenceRecall * 100).toFixed(1)}%`);
    await out.line(`   WA ${fmt(statsAfterIngest.writeAmplification)}  SA ${fmt(statsAfterIngest.spaceAmplification)}`);

    // 2. The questions again on the full history. Recall sets depend on content only, which relocation never
    //    changes, so a first pass (no relocation) fixes each request's chunk set and its cost on the current layout;
    //    a second pass asks the same questions with online relocation on (the access pattern recurs, as an
    //    agent's topics do). Costs compare the same sets, read the same way.
    await out.line(`2/4 asking the ${asked.length} questions twice more on the full history, the second time with relocation of chunks recalled together…`);
    const onlineSets: { user: string; refs: ChunkRef[] }[] = [];
    const plain = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    let step = 0;
    for (const a of asked) {
      progress(step++, 2 * asked.length);
      const r = await plain.recall({ user: a.conversationId, session: a.recall.chunks[0]?.sessionId ?? 'session_1', query: a.question.question, scope: 'user' });
      if (r.chunks.length > 0) onlineSets.push({ user: a.conversationId, refs: r.chunks.map((ch): ChunkRef => ({ sessionId: ch.sessionId, chunkId: ch.chunkId })) });
    }
    await plain.close();
    const duringFig = await readAll(onlineSets);
    const online = new AkashicMemory(store, { relocateSync: true });
    const outcomes = new Map<string, number>();
    for (const a of asked) {
      progress(step++, 2 * asked.length);
      const r = await online.recall({ user: a.conversationId, session: a.recall.chunks[0]?.sessionId ?? 'session_1', query: a.question.question, scope: 'user' });
      const o = r.relocation.status === 'skipped' ? `skipped (${r.relocation.reason})` : r.relocation.status;
      outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
    }
    await online.close();
    const mid = await store.stats();
    await out.line(`2. the questions twice more on the full history: blocks/retrieval ${duringFig.blocksPerRequest.toFixed(2)} (lower bound ${duringFig.lowerBound.toFixed(2)}); online relocation on the second pass: ${mid.relocations} relocations moved ${mid.relocatedChunks} chunks`);
    await out.line(`   relocation outcomes: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}`);

    progress(2 * asked.length, 2 * asked.length);
    // 3. A GC pass: the live chunks of blocks whose invalid ratio reached θ are rewritten into new blocks, grouped by affinity.
    await out.line(`3/4 garbage collection: a GC pass over the blocks whose share of dead slots reached ${store.options.gcThreshold}…`);
    const gc = await store.gc();
    await out.line(
      gc.victims === 0
        ? `3. GC: no block had ${store.options.gcThreshold * 100}% dead slots or more, so the pass collected nothing (inspect counts only GC passes that collected blocks)`
        : `3. GC: ${gc.victims} of ${gc.eligible} eligible blocks collected: ${gc.chunksMoved} chunks moved, ${gc.blocksReleased} blocks released, ${gc.blocksWritten} written`,
    );

    // 4. The chunk sets of step 2 read once more, after relocation and GC.
    await out.line(`4/4 reading the recalled chunk sets again on the new layout, and verifying every invariant…`);
    const afterFig = await readAll(onlineSets);
    const ingestSetsAfter = await readAll();
    const statsAfter = await store.stats();
    const verify = await store.verify();
    await out.line(`4. after relocation + GC, the step-2 sets: blocks/retrieval ${afterFig.blocksPerRequest.toFixed(2)} (was ${duringFig.blocksPerRequest.toFixed(2)} before relocation, lower bound ${afterFig.lowerBound.toFixed(2)}); the step-1 sets: ${ingestSetsAfter.blocksPerRequest.toFixed(2)} (was ${before.blocksPerRequest.toFixed(2)})`);
    await out.line(`   verify: ${verify.ok ? 'ok' : `${verify.problems.length} problems`} (${verify.checked.chunks} chunks, ${verify.checked.blocks} blocks)`);
    await store.close();
    // The totals come from the database as the next process sees it, read the way `akashic inspect` reads them.
    const reopened = await AkashicStore.open({ path: opts.path, gc: { intervalMs: 0 }, readOnly: true });
    const totals = await reopened.stats().finally(() => reopened.close());
    for (const l of explainFigures({ before: duringFig, after: afterFig, totals, capacity })) await out.line(l);
    await out.line(`database left at ${opts.path}: \`npx akashic inspect --db ${opts.path}\` shows the same totals`);
    return {
      users: convs.length,
      sessions,
      turns,
      questions: asked.length,
      beforeRelocation: before,
      statsAfterIngest,
      duringRelocation: duringFig,
      gc,
      afterRelocationAndGc: afterFig,
      ingestSetsAfter,
      statsAfter,
      verify,
      evidenceRecall,
      totals,
    };
  } finally {
    if (store.status === 'open') await store.close();
  }
}

function fmt(x: number | null): string {
  return x === null ? 'n/a' : x.toFixed(3);
}

/**
 * The closing summary: the store's totals (the figures `akashic inspect` prints, with its labels) and what each
 * figure means, in plain sentences, with a verdict.
 */
export function explainFigures(x: { before: RetrievalFigures; after: RetrievalFigures; totals: StoreStats; capacity: number }): string[] {
  const t = x.totals;
  const ratioToBound = x.after.lowerBound > 0 ? x.after.blocksPerRequest / x.after.lowerBound : null;
  const verdict =
    ratioToBound === null
      ? 'no recall returned chunks, so there is nothing to judge'
      : ratioToBound <= 1.25
        ? 'within 1.25× of the lower bound: close to the best any layout could do'
        : `${ratioToBound.toFixed(2)}× the lower bound`;
  const change =
    x.after.blocksPerRequest < x.before.blocksPerRequest - 0.005
      ? `fewer than the ${x.before.blocksPerRequest.toFixed(2)} they cost before relocation and GC`
      : x.after.blocksPerRequest > x.before.blocksPerRequest + 0.005
        ? `more than the ${x.before.blocksPerRequest.toFixed(2)} they cost before relocation and GC: relocation and GC did not pay on this workload`
        : `the same as before relocation and GC`;
  const wa = t.writeAmplification;
  const sa = t.spaceAmplification;
  return [
    '',
    'Totals of the database (what `akashic inspect` prints):',
    `  retrievals        ${t.retrievals}, ${t.blocksPerRetrieval === null ? 'n/a' : t.blocksPerRetrieval.toFixed(2)} blocks per retrieval (every read since creation, the passes above included)`,
    `  write amp.        ${formatRatio(wa)} (${formatBytes(t.engineBytesWritten)} written for ${formatBytes(t.logicalBytesIngested)} ingested)`,
    `  space amp.        ${formatRatio(sa)} raw/live`,
    `  blocks            ${t.blocks} holding data: ${t.blocksByState.open} open, ${t.blocksByState.sealed} sealed; ${t.blocksByState.released} released`,
    `  gc                ${t.gcRuns} runs, ${t.gcMovedChunks} chunks moved`,
    `  on disk           ${formatBytes(t.diskBytes)}`,
    '',
    'What the figures mean:',
    `  blocks/retrieval  A recall reads the blocks that hold the chunks it picked; each block is one read and one`,
    `                    decompression, so fewer is better. Recalled sets now cost ${x.after.blocksPerRequest.toFixed(2)} blocks,`,
    `                    ${change}.`,
    `  lower bound       The fewest blocks that could hold those chunks (${x.capacity} chunks fit in a block): ${x.after.lowerBound.toFixed(2)}.`,
    `                    At ${x.after.blocksPerRequest.toFixed(2)} the layout is ${verdict}.`,
    `  WA                Write amplification: bytes the engine wrote per byte of memory it was given. Compaction,`,
    `                    relocation and GC rewrite chunks, so it is above 1; ${wa === null ? 'n/a here' : wa <= 3 ? `${wa.toFixed(2)} is modest` : `${wa.toFixed(2)} is high: relocation or GC rewrote a lot`}.`,
    `  SA                Space amplification: bytes kept (before compression) per byte of live memory. Dead`,
    `                    copies left by updates and relocation raise it until GC reclaims them; ${sa === null ? 'n/a here' : sa <= 1.5 ? `${sa.toFixed(2)} means little dead data is kept` : `${sa.toFixed(2)} means much dead data awaits GC`}.`,
  ];
}

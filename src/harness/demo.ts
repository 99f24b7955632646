import { AkashicStore } from '../engine/akashic-store.js';
import type { GcReport } from '../gc/block-compactor.js';
import { AkashicMemory } from '../memattention/index.js';
import type { StoreStats } from '../store/stats.js';
import type { VerifyReport } from '../store/verify.js';
import { lineWriter, type LineSink } from '../tools/line-sink.js';
import type { ChunkRef } from '../store/chunk-input.js';
import { generateSynthetic } from '../workload/synthetic.js';
import type { Conversation } from '../workload/conversation.js';
import { replayConversation, type AskedQuestion } from './replay.js';

export interface DemoOptions {
  /** Database directory (classic-level). */
  readonly path: string;
  readonly users?: number;
  readonly sessionsPerUser?: number;
  readonly seed?: number;
  /** Conversations to use instead of the built-in synthetic workload. */
  readonly conversations?: readonly Conversation[];
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
    await out.line(`akashic demo: ${convs.length} users, ${sessions} sessions, ${turns} turns, embedded model (no network)`);

    // 1. Ingest through MemAttention with questions interleaved; relocation off, so this is the write-order layout.
    const ingest = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    const asked: AskedQuestion[] = [];
    for (const c of convs) asked.push(...(await replayConversation(ingest, c)));
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
    const onlineSets: { user: string; refs: ChunkRef[] }[] = [];
    const plain = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    for (const a of asked) {
      const r = await plain.recall({ user: a.conversationId, session: a.recall.chunks[0]?.sessionId ?? 'session_1', query: a.question.question, scope: 'user' });
      if (r.chunks.length > 0) onlineSets.push({ user: a.conversationId, refs: r.chunks.map((ch): ChunkRef => ({ sessionId: ch.sessionId, chunkId: ch.chunkId })) });
    }
    await plain.close();
    const duringFig = await readAll(onlineSets);
    const online = new AkashicMemory(store, { relocateSync: true });
    const outcomes = new Map<string, number>();
    for (const a of asked) {
      const r = await online.recall({ user: a.conversationId, session: a.recall.chunks[0]?.sessionId ?? 'session_1', query: a.question.question, scope: 'user' });
      const o = r.relocation.status === 'skipped' ? `skipped (${r.relocation.reason})` : r.relocation.status;
      outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
    }
    await online.close();
    const mid = await store.stats();
    await out.line(`2. the questions twice more on the full history: blocks/retrieval ${duringFig.blocksPerRequest.toFixed(2)} (lower bound ${duringFig.lowerBound.toFixed(2)}); online relocation on the second pass: ${mid.relocations} relocations moved ${mid.relocatedChunks} chunks`);
    await out.line(`   relocation outcomes: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}`);

    // 3. GC: blocks whose invalid ratio reached θ are repacked by affinity.
    const gc = await store.gc();
    await out.line(`3. GC: ${gc.candidates} candidate blocks (φ ≥ ${store.options.gcThreshold}), ${gc.chunksMoved} chunks moved, ${gc.blocksReleased} blocks released, ${gc.blocksWritten} written`);

    // 4. The chunk sets of step 2 read once more, after relocation and GC.
    const afterFig = await readAll(onlineSets);
    const ingestSetsAfter = await readAll();
    const statsAfter = await store.stats();
    const verify = await store.verify();
    await out.line(`4. after relocation + GC, the step-2 sets: blocks/retrieval ${afterFig.blocksPerRequest.toFixed(2)} (was ${duringFig.blocksPerRequest.toFixed(2)} before relocation, lower bound ${afterFig.lowerBound.toFixed(2)}); the step-1 sets: ${ingestSetsAfter.blocksPerRequest.toFixed(2)} (was ${before.blocksPerRequest.toFixed(2)})`);
    await out.line(`   WA ${fmt(statsAfter.writeAmplification)}  SA ${fmt(statsAfter.spaceAmplification)}  blocks ${statsAfter.blocks}  on disk ${statsAfter.diskBytes ?? 0} B`);
    await out.line(`   verify: ${verify.ok ? 'ok' : `${verify.problems.length} problems`} (${verify.checked.chunks} chunks, ${verify.checked.blocks} blocks)`);
    await out.line(`database left at ${opts.path}: try \`npx akashic inspect --db ${opts.path}\``);
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
    };
  } finally {
    await store.close();
  }
}

function fmt(x: number | null): string {
  return x === null ? 'n/a' : x.toFixed(3);
}

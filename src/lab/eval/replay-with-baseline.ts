/**
 * One conversation replayed for an evaluation: a fresh in-memory store (memory-level, background GC off), an
 * `AkashicMemory` with the embedded model (and the embedder of the SELECT variant) at the evaluation's settings, every question asked as
 * `replayConversation` asks it, and for each question the BM25-over-turns baseline's pick over exactly the turns
 * ingested so far, at the same budget. Shared by `eval recall` (which counts evidence) and `eval qa` (which has a
 * chat model answer from both contexts).
 * @internal
 */
import { MemoryLevel } from 'memory-level';
import { AkashicStore } from '../../engine/akashic-store.js';
import { replayConversation, type AskedQuestion } from '../harness/replay.js';
import { AkashicMemory } from '../../memattention/memory.js';
import { selectSetup } from '../../model/select-variants.js';
import { createTokenizer } from '../../model/tokenizer.js';
import type { Conversation } from '../workload/conversation.js';
import type { RecallEvalConfig } from './recall-eval.js';
import { TurnBm25Baseline, type BaselineSelection } from './turn-bm25-baseline.js';

export interface ReplayRun {
  /** Live chunks of the user once the replay ended, and their tokens. */
  readonly chunks: number;
  readonly chunkTokens: number;
  /** Errors of background work (relocation); expected 0. */
  readonly backgroundErrors: number;
}

type Settings = Pick<RecallEvalConfig, 'keywordLimit' | 'chunkGateTokens' | 'topP' | 'memoryBudgetTokens' | 'candidateKeywords' | 'recallUnit' | 'relevanceFloor' | 'select' | 'scope'> & {
  /** Baseline turns carry their day (see `TurnBm25Baseline`). Default false. */
  readonly datedBaseline?: boolean;
};

export async function replayWithBaseline(
  conv: Conversation,
  config: Settings,
  onQuestion: (asked: AskedQuestion, baseline: BaselineSelection) => void | Promise<void>,
): Promise<ReplayRun> {
  const tokenizer = createTokenizer();
  const setup = await selectSetup(config.select, { keywordLimit: config.keywordLimit });
  const store = await AkashicStore.open({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }), gc: { intervalMs: 0 } });
  let backgroundErrors = 0;
  try {
    const memory = new AkashicMemory(store, {
      // Each question is asked once every compaction before it committed: a reproducible replay.
      writeBack: 'await',
      model: setup.model,
      ...(setup.embedder === undefined ? {} : { embedder: setup.embedder }),
      tokenizer,
      chunkGateTokens: config.chunkGateTokens,
      recallTopP: config.topP,
      memoryBudgetTokens: config.memoryBudgetTokens,
      candidateKeywords: config.candidateKeywords,
      recallUnit: config.recallUnit,
      relevanceFloor: config.relevanceFloor,
      recallScope: config.scope,
      onBackgroundError: () => {
        backgroundErrors++;
      },
    });
    try {
      const baseline = new TurnBm25Baseline(tokenizer, { dated: config.datedBaseline === true });
      const sessionByIndex = new Map(conv.sessions.map((s) => [s.index, s]));
      await replayConversation(memory, conv, {
        scope: config.scope,
        topP: config.topP,
        memoryBudgetTokens: config.memoryBudgetTokens,
        // The baseline sees exactly the turns the memory has ingested when a question is asked.
        onSessionEnd: (index) => baseline.add(sessionByIndex.get(index)?.turns ?? []),
        onQuestion: (asked) => onQuestion(asked, baseline.select(asked.question.question, config.memoryBudgetTokens)),
      });
    } finally {
      await memory.close();
    }
    let chunks = 0;
    let chunkTokens = 0;
    for await (const e of store.list(conv.id)) {
      chunks++;
      chunkTokens += e.entry.tokenCount;
    }
    return { chunks, chunkTokens, backgroundErrors };
  } finally {
    await store.close();
  }
}

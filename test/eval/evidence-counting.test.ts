import { describe, expect, it } from 'vitest';
import { evaluateRecall } from '../../src/lab/eval/recall-eval.js';
import { categoryRatiosOf, ratiosOf, type QuestionOutcome } from '../../src/lab/eval/recall-metrics.js';
import { certainConversation, handBuiltConversation } from './fixtures.js';

function outcome(o: Partial<QuestionOutcome> & Pick<QuestionOutcome, 'evidence' | 'memoryFound' | 'bm25Found'>): QuestionOutcome {
  return { conversationId: 'c', category: 4, memoryFoundAnswer: o.memoryFound, memoryTokens: 0, memoryEvidenceTokens: 0, memoryPassageTokens: 0, bm25EvidenceTokens: 0, bm25Tokens: 0, chunksRecalled: 0, chunksDropped: 0, blocksTouched: 0, ...o };
}

describe('recall counting', () => {
  it('a question counts as recalled only when ALL its evidence turns are found; turn recall pools turns', () => {
    const r = ratiosOf([
      outcome({ evidence: 2, memoryFound: 2, bm25Found: 1 }),
      outcome({ evidence: 2, memoryFound: 1, bm25Found: 2 }),
      outcome({ evidence: 1, memoryFound: 0, bm25Found: 1 }),
      outcome({ evidence: 0, memoryFound: 0, bm25Found: 0 }),
      // Both evidence turns found, but one only through a sentence that is not its answer sentence.
      outcome({ evidence: 2, memoryFound: 2, memoryFoundAnswer: 1, bm25Found: 0 }),
    ]);
    expect(r).toEqual({
      questions: 5,
      questionsWithEvidence: 4,
      evidenceTurns: 7,
      evidenceRecallAt5: 2 / 4,
      turnRecall: 5 / 7,
      answerSentenceRecall: 1 / 4,
      bm25EvidenceRecall: 2 / 4,
      bm25TurnRecall: 4 / 7,
      evidenceTokenShare: null,
      bm25EvidenceTokenShare: null,
    });
  });

  it('the evidence token share pools the tokens of questions with evidence, for recall and baseline alike', () => {
    const r = ratiosOf([
      outcome({ evidence: 1, memoryFound: 1, bm25Found: 1, memoryEvidenceTokens: 30, memoryPassageTokens: 100, bm25EvidenceTokens: 10, bm25Tokens: 200 }),
      outcome({ evidence: 2, memoryFound: 0, bm25Found: 0, memoryEvidenceTokens: 0, memoryPassageTokens: 300, bm25EvidenceTokens: 0, bm25Tokens: 200 }),
      // No evidence: its tokens count in neither share.
      outcome({ evidence: 0, memoryFound: 0, bm25Found: 0, memoryEvidenceTokens: 0, memoryPassageTokens: 999, bm25Tokens: 999 }),
    ]);
    expect(r.evidenceTokenShare).toBe(30 / 400);
    expect(r.bm25EvidenceTokenShare).toBe(10 / 400);
  });

  it('ratios are null, not 0 or 1, when no question has evidence', () => {
    const r = ratiosOf([outcome({ evidence: 0, memoryFound: 0, bm25Found: 0 })]);
    expect(r.evidenceRecallAt5).toBeNull();
    expect(r.turnRecall).toBeNull();
    expect(r.answerSentenceRecall).toBeNull();
    expect(r.bm25EvidenceRecall).toBeNull();
    expect(r.bm25TurnRecall).toBeNull();
    expect(ratiosOf([]).questions).toBe(0);
  });

  it('splits by LoCoMo category, named and in category order', () => {
    const cats = categoryRatiosOf([
      outcome({ category: 4, evidence: 1, memoryFound: 1, bm25Found: 1 }),
      outcome({ category: 1, evidence: 2, memoryFound: 1, bm25Found: 2 }),
      outcome({ category: 9, evidence: 1, memoryFound: 0, bm25Found: 0 }),
    ]);
    expect(cats.map((c) => [c.category, c.name, c.evidenceRecallAt5])).toEqual([
      [1, 'multi-hop', 0],
      [4, 'single-hop', 1],
      [9, 'other', 0],
    ]);
  });
});

describe('evaluateRecall on hand-built conversations', () => {
  it('gives 1.0 when the answer is certainly recalled', async () => {
    const r = await evaluateRecall([certainConversation()]);
    expect(r.questions).toBe(1);
    expect(r.evidenceRecallAt5).toBe(1);
    expect(r.turnRecall).toBe(1);
    expect(r.bm25EvidenceRecall).toBe(1);
    expect(r.bm25TurnRecall).toBe(1);
    expect(r.chunksPerUser).toBe(1);
  });

  it('counts found, partly found and unfindable evidence, and leaves evidence-less questions out', async () => {
    const r = await evaluateRecall([handBuiltConversation()], { dataset: 'hand' });
    expect(r.dataset).toBe('hand');
    expect(r.questions).toBe(5);
    expect(r.questionsWithEvidence).toBe(4);
    expect(r.questionsWithoutEvidence).toBe(1);
    expect(r.evidenceTurns).toBe(5);
    expect(r.evidenceRecallAt5).toBe(3 / 4);
    expect(r.turnRecall).toBe(4 / 5);
    expect(r.bm25EvidenceRecall).toBe(3 / 4);
    expect(r.bm25TurnRecall).toBe(4 / 5);
    // One chunk per session: each session ends far below the gate.
    expect(r.chunksPerUser).toBe(2);
    expect(r.byConversation).toHaveLength(1);
    expect(r.byConversation[0]).toMatchObject({ id: 'hand-1', sessions: 2, turns: 4, chunks: 2, questions: 5 });
    const byCat = new Map(r.byCategory.map((c) => [c.category, c]));
    expect(byCat.get(1)?.evidenceRecallAt5).toBe(1);
    expect(byCat.get(4)?.evidenceRecallAt5).toBe(2 / 3);
    expect(byCat.get(5)).toMatchObject({ questions: 1, questionsWithEvidence: 0, evidenceRecallAt5: null });
  });

  it('holds both methods to the budget: a budget smaller than any chunk recalls nothing', async () => {
    const r = await evaluateRecall([handBuiltConversation()], { memoryBudgetTokens: 5 });
    expect(r.config.memoryBudgetTokens).toBe(5);
    expect(r.evidenceRecallAt5).toBe(0);
    expect(r.meanChunksRecalled).toBe(0);
    expect(r.meanChunksDropped).toBeGreaterThan(0);
    expect(r.meanTokensRecalled).toBe(0);
    expect(r.meanBm25Tokens).toBeLessThanOrEqual(5);
  });

  it('reports progress once per question', async () => {
    const seen: [number, number][] = [];
    await evaluateRecall([handBuiltConversation()], { onProgress: (done, total) => seen.push([done, total]) });
    expect(seen).toEqual([1, 2, 3, 4, 5].map((d) => [d, 5]));
  });

  it('rejects a bad option naming it', async () => {
    await expect(evaluateRecall([], { topP: 0 })).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT', message: expect.stringContaining('topP') });
    await expect(evaluateRecall([], { chunkGateTokens: 1.5 })).rejects.toMatchObject({ message: expect.stringContaining('chunkGateTokens') });
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateRecall, type RecallEvalReport } from '../../src/lab/eval/recall-eval.js';
import { DEFAULT_RECALL_TOP_P } from '../../src/memattention/options.js';
import { recallReportLines } from '../../src/lab/eval/recall-report-format.js';
import { generateSynthetic } from '../../src/lab/workload/synthetic.js';

const SMALL = { users: 2, sessionsPerUser: 5, turnsPerSession: 10, questionsPerUser: 8, seed: 11 } as const;

const RATIO_KEYS = ['evidenceRecallAt5', 'turnRecall', 'answerSentenceRecall', 'bm25EvidenceRecall', 'bm25TurnRecall', 'evidenceTokenShare', 'bm25EvidenceTokenShare'] as const;

describe('the recall report on a small synthetic set', () => {
  let report: RecallEvalReport;

  beforeAll(async () => {
    report = await evaluateRecall(generateSynthetic(SMALL), { dataset: 'synthetic', chunkGateTokens: 256 });
  });

  it('describes the data set', () => {
    expect(report.conversations).toBe(2);
    expect(report.sessions).toBe(10);
    expect(report.turns).toBe(100);
  });

  it('has the documented JSON keys', () => {
    const json = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
    for (const key of [
      'questions',
      'evidenceRecallAt5',
      'turnRecall',
      'answerSentenceRecall',
      'bm25EvidenceRecall',
      'bm25TurnRecall',
      'evidenceTokenShare',
      'bm25EvidenceTokenShare',
      'byCategory',
      'meanTokensRecalled',
      'meanBlocksTouched',
      'chunksPerUser',
      'config',
    ]) {
      expect(json, key).toHaveProperty(key);
    }
    expect(json['config']).toMatchObject({ model: 'embedded', topP: DEFAULT_RECALL_TOP_P, recallUnit: 'sentence', memoryBudgetTokens: 1536, chunkGateTokens: 256, scope: 'user' });
  });

  it('keeps every ratio in [0, 1], overall, per category and per conversation', () => {
    for (const x of [report, ...report.byCategory, ...report.byConversation]) {
      for (const k of RATIO_KEYS) {
        const v = x[k];
        expect(v).not.toBeNull();
        expect(v!).toBeGreaterThanOrEqual(0);
        expect(v!).toBeLessThanOrEqual(1);
      }
    }
  });

  it('adds categories and conversations up to the whole', () => {
    const sum = (xs: readonly { questions: number; questionsWithEvidence: number }[]) =>
      xs.reduce((a, x) => [a[0]! + x.questions, a[1]! + x.questionsWithEvidence], [0, 0]);
    expect(sum(report.byCategory)).toEqual([report.questions, report.questionsWithEvidence]);
    expect(sum(report.byConversation)).toEqual([report.questions, report.questionsWithEvidence]);
    expect(report.questions).toBe(16);
  });

  it('stays within the budget on average and reports costs', () => {
    expect(report.meanTokensRecalled!).toBeLessThanOrEqual(1536);
    expect(report.meanBm25Tokens!).toBeLessThanOrEqual(1536);
    expect(report.meanBlocksTouched!).toBeGreaterThanOrEqual(0);
    expect(report.chunksPerUser!).toBeGreaterThanOrEqual(5);
    expect(report.backgroundErrors).toBe(0);
  });

  it('prints a table with one row per category', () => {
    const lines = recallReportLines(report);
    expect(lines[0]).toContain('synthetic');
    expect(lines.some((l) => /^all\s+\d+\s+\d\.\d{3}/.test(l))).toBe(true);
    for (const c of report.byCategory) expect(lines.some((l) => l.startsWith(`${c.name} (${c.category})`))).toBe(true);
  });
});

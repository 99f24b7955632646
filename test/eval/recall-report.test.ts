import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateRecall, type RecallEvalReport } from '../../src/lab/eval/recall-eval.js';
import { DEFAULT_RECALL_TOP_P } from '../../src/memattention/options.js';
import { recallReportLines } from '../../src/lab/eval/recall-report-format.js';
import { generateSynthetic } from '../../src/lab/workload/synthetic.js';
import { marginSpread } from '../../src/lab/eval/margin-spread.js';

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

  it('summarises the margin of each conversation: mean, median, extremes, and how many fall below +0.10', () => {
    const margins = report.byConversation.map((c) => c.evidenceRecallAt5! - c.bm25EvidenceRecall!);
    const m = report.marginByConversation;
    expect(m.conversations).toBe(2);
    expect(m.min).toBe(Math.min(...margins));
    expect(m.max).toBe(Math.max(...margins));
    expect(m.mean).toBeCloseTo((margins[0]! + margins[1]!) / 2, 12);
    expect(m.median).toBeCloseTo((margins[0]! + margins[1]!) / 2, 12);
    expect(m.belowTarget).toBe(margins.filter((x) => x < 0.1 - 1e-9).length);
    expect(recallReportLines(report).some((l) => l.startsWith('margin per conversation') && l.includes(`of 2 below +0.10`))).toBe(true);
  });
});

describe('marginSpread', () => {
  const conv = (memory: number | null, bm25: number | null) => ({ evidenceRecallAt5: memory, bm25EvidenceRecall: bm25 }) as Parameters<typeof marginSpread>[0][number];

  it('takes the middle of an odd count and the mean of the two middles of an even one', () => {
    expect(marginSpread([conv(0.9, 0.8), conv(0.9, 0.9), conv(1, 0.7)]).median).toBeCloseTo(0.1, 12);
    const even = marginSpread([conv(0.9, 0.9), conv(0.95, 0.9), conv(1, 0.85), conv(1, 0.7)]);
    expect(even.median).toBeCloseTo(0.1, 12);
    expect(even.min).toBeCloseTo(0, 12);
    expect(even.max).toBeCloseTo(0.3, 12);
    // 0.0 and 0.05 are below the target; 0.15 and 0.3 are not.
    expect(even.belowTarget).toBe(2);
  });

  it('counts a margin of exactly +0.10 (up to rounding) as reaching the target, and skips conversations without evidence', () => {
    const m = marginSpread([conv(0.925, 0.825), conv(null, null)]);
    expect(m.conversations).toBe(1);
    expect(m.belowTarget).toBe(0);
    expect(marginSpread([]).median).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { evaluateUpdates, updateReportLines } from '../../src/lab/eval/update-eval.js';
import { generateUpdateScenarios } from '../../src/lab/workload/fact-update-scenarios.js';

describe('the update scenarios', () => {
  it('are the same for a seed and differ across seeds; each kind of each fact is there', () => {
    const a = generateUpdateScenarios({ seed: 5 });
    expect(generateUpdateScenarios({ seed: 5 })).toEqual(a);
    expect(generateUpdateScenarios({ seed: 6 })).not.toEqual(a);
    expect(a.filter((s) => s.kind === 'update')).toHaveLength(32);
    expect(a).toHaveLength(72);
    for (const s of a) {
      expect(s.sessions).toHaveLength(3);
      expect(s.sessions.flat()).toHaveLength(30);
      expect(s.sessions[0]!.some((t) => t.text.includes(s.oldValue))).toBe(true);
      if (s.kind === 'update') expect(s.currentValue).not.toBe(s.oldValue);
      else expect(s.currentValue).toBe(s.oldValue);
    }
  });
});

describe('updates without an LLM, on a seed no rule was written against', () => {
  it('recalls the new value without the old for most updates, and keeps what controls must not retire', async () => {
    const r = await evaluateUpdates({ seeds: [211] });
    expect(r.updates).toBe(32);
    expect(r.controls).toBe(40);
    expect(r.updateShare!).toBeGreaterThanOrEqual(0.6);
    expect(r.controlShare!).toBeGreaterThanOrEqual(0.95);
    expect(r.controlsRetiring).toBeLessThanOrEqual(2);
    // Every retirement is explained.
    const retiring = r.outcomes.filter((o) => o.kind === 'update' && o.reasons.length > 0);
    expect(retiring.length).toBeGreaterThan(0);
    for (const o of retiring) for (const why of o.reasons) expect(why).toMatch(/^retired ".+" — \S+ of .+: ".+" → ".+", by ".+"$/);
    expect(updateReportLines(r).join('\n')).toContain(`${r.updatesNewWithoutOld}/${r.updates}`);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { evaluateUpdates, updateReportLines } from '../../src/lab/eval/update-eval.js';
import { generateUpdateScenarios, loadScenarioPhrasings, parseScenarioPhrasings, PHRASING_LISTS } from '../../src/lab/workload/fact-update-scenarios.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A phrasing set of one fact, every list of one template. */
const homeSet = {
  home: {
    stated: ['Our place is in {v}, right by the tram stop.'],
    updated: ['We packed up and now call {v} home.'],
    otherPerson: ['My {who} rents a room in {v}.'],
    addition: ['We keep a caravan near {v} for the summer too.'],
    hedge: ['Maybe we will look at houses in {v} one day.'],
    past: ['I grew up in {v}.'],
    unrelated: ['The news from {v} was all about the floods.'],
    questions: ['Which town is {name} living in?'],
  },
};

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

describe('phrasing sets', () => {
  it('replace the built-in phrasings of the facts they give, and only those', () => {
    const set = parseScenarioPhrasings(homeSet);
    const a = generateUpdateScenarios({ seed: 5, phrasings: set });
    const b = generateUpdateScenarios({ seed: 5 });
    expect(a).toHaveLength(72);
    for (const s of a.filter((x) => x.fact === 'home')) {
      const first = s.sessions[0]!.map((t) => t.text).join(' ');
      expect(first).toContain(`Our place is in ${s.oldValue}, right by the tram stop.`);
      expect(s.question).toBe(`Which town is ${s.speaker} living in?`);
      if (s.kind === 'update') expect(s.sessions[2]!.map((t) => t.text).join(' ')).toContain(`now call ${s.currentValue} home`);
      if (s.kind === 'other-person') expect(s.sessions[2]!.map((t) => t.text).join(' ')).toMatch(/My [a-z ]+ rents a room in /);
    }
    // The other facts keep the generator's own wording, value for value.
    expect(a.filter((x) => x.fact !== 'home').map((x) => x.question)).toEqual(b.filter((x) => x.fact !== 'home').map((x) => x.question));
  });

  it('are refused with a typed error naming what is wrong, whatever the input', () => {
    const bad: [unknown, RegExp][] = [
      [null, /must be an object/],
      [[], /must be an object/],
      [{ job: homeSet.home }, /unknown fact "job"/],
      [{ home: { ...homeSet.home, extra: ['x {v}'] } }, /unknown list "extra"/],
      [{ home: { ...homeSet.home, hedge: [] } }, /home\.hedge must be an array/],
      [{ home: { ...homeSet.home, stated: ['no value here'] } }, /home\.stated\[0\] must hold \{v\} exactly once/],
      [{ home: { ...homeSet.home, updated: ['{v} and {v}'] } }, /at most once|exactly once/],
      [{ home: { ...homeSet.home, past: ['I was in {x}'] } }, /unknown placeholder \{x\}/],
      [{ home: { ...homeSet.home, questions: ['Where is she?'] } }, /\{name\} exactly once/],
      [{ home: { ...homeSet.home, unrelated: [42] } }, /must be a non-empty string/],
      [{ home: { ...homeSet.home, unrelated: ['x'.repeat(1001)] } }, /at most 1000 characters/],
    ];
    for (const [value, message] of bad) {
      let error: unknown;
      try {
        parseScenarioPhrasings(value);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(value)?.slice(0, 80)).toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
      expect(String((error as Error).message)).toMatch(message);
    }
    expect(PHRASING_LISTS).toHaveLength(8);
  });

  it('are read from a file, and a file that is missing or not JSON is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-phrasings-'));
    try {
      await writeFile(join(dir, 'ok.json'), JSON.stringify(homeSet));
      await writeFile(join(dir, 'bad.json'), '{ not json');
      expect(await loadScenarioPhrasings(join(dir, 'ok.json'))).toEqual(homeSet);
      await expect(loadScenarioPhrasings(join(dir, 'bad.json'))).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT', message: /not valid JSON/ });
      await expect(loadScenarioPhrasings(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT', message: /cannot read/ });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('are reported as given; an unknown option is refused', async () => {
    const r = await evaluateUpdates({ seeds: [3], updatesPerFact: 1, controlsPerKind: 0, phrasings: parseScenarioPhrasings(homeSet) });
    expect(r.phrasings).toEqual({ given: ['home'] });
    expect(r.updates).toBe(4);
    expect(updateReportLines(r)[0]).toContain('given phrasings (home)');
    await expect(evaluateUpdates({ seeds: [3], phrasing: {} } as never)).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT', message: /unknown evaluateUpdates option "phrasing"/ });
  }, 60_000);
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

describe('updates on phrasings written apart from the built-in ones', () => {
  it('reads most updates of the development phrasing set and retires nothing for its controls', async () => {
    const phrasings = await loadScenarioPhrasings(join(import.meta.dirname, '../fixtures/phrasings/dev-1.json'));
    const r = await evaluateUpdates({ seeds: [211], phrasings });
    expect(r.phrasings).toEqual({ given: ['employer', 'home', 'car', 'partner'] });
    expect(r.updateShare!).toBeGreaterThanOrEqual(0.6);
    expect(r.controlShare!).toBeGreaterThanOrEqual(0.95);
    expect(r.controlsRetiring).toBe(0);
  }, 120_000);
});

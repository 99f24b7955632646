import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PATTERNS } from '../../src/model/fact-patterns.js';
import { PatternDispatch, leadingWords, wordsOf } from '../../src/model/pattern-dispatch.js';
import { generateUpdateScenarios } from '../../src/lab/workload/fact-update-scenarios.js';

/** Every sentence the phrasing sets and the generator can write, with made-up values filled in. */
function sentences(): string[] {
  const out: string[] = [];
  const dir = join(import.meta.dirname, '../fixtures/phrasings');
  const values = ['Quorvex', 'Dalbrook', 'Subaru Outback', 'Kaia', 'Tesla Model 3', 'Jo'];
  for (const file of readdirSync(dir)) {
    const set = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, Record<string, string[]>>;
    for (const lists of Object.values(set))
      for (const templates of Object.values(lists))
        for (const t of templates) for (const v of values) out.push(t.split('{v}').join(v).split('{who}').join('older sister').split('{name}').join('Kaia'));
  }
  for (const seed of [1, 2, 3]) for (const s of generateUpdateScenarios({ seed })) for (const turn of s.sessions.flat()) out.push(turn.text);
  return out;
}

describe('the fact pattern dispatch', () => {
  it('reads the leading words a match must begin with, and none where it cannot tell', () => {
    expect(leadingWords(String.raw`\b(?:moved|relocated)\s+to\s+`)).toEqual(['moved', 'relocated']);
    expect(leadingWords(String.raw`\b(?:first\s+)?day\s+at\s+`)).toEqual(['first', 'day']);
    expect(leadingWords(String.raw`\b[Ii]t's\s+now`)).toEqual(["it's"]);
    expect(leadingWords(String.raw`\bpay\s?(?:check|slip)`)).toBeNull(); // "paycheck" is one word
    expect(leadingWords(String.raw`\b(?:car|ride)(?:'s|\s+is)\s+a`)).toEqual(['car', 'ride']);
    expect(leadingWords(String.raw`(?=[A-Z])`)).toBeNull();
    expect([...wordsOf("My co-worker's Kia — it’s new")]).toEqual(expect.arrayContaining(['my', "co-worker's", 'co', "worker's", 'worker', 'kia', "it's", 'it', 'new']));
  });

  it('never leaves out a pattern that matches: the same patterns, in order, as trying every one', () => {
    const all = new PatternDispatch(PATTERNS);
    const bySlot = [...new Set(PATTERNS.map((p) => p.slot))].map((slot) => PATTERNS.filter((p) => p.slot === slot));
    const texts = sentences();
    expect(texts.length).toBeGreaterThan(5000);
    let matched = 0;
    for (const s of texts) {
      const tried = new Set(all.candidates(s));
      for (const p of PATTERNS) {
        if (p.re.exec(s) === null) continue;
        matched++;
        expect(tried.has(p), `${p.re.source.slice(0, 60)} on "${s}"`).toBe(true);
      }
    }
    expect(matched).toBeGreaterThan(1000);
    // Order is the list's, and a dispatch over one kind's patterns offers only those.
    for (const patterns of bySlot) {
      const d = new PatternDispatch(patterns);
      for (const s of texts.slice(0, 500)) {
        const c = d.candidates(s);
        expect(c.every((p) => patterns.includes(p))).toBe(true);
        expect(c.map((p) => patterns.indexOf(p))).toEqual([...c.map((p) => patterns.indexOf(p))].sort((a, b) => a - b));
      }
    }
    // Most patterns are tried only on sentences holding their leading words.
    expect(all.alwaysTried).toBeLessThan(PATTERNS.length / 4);
  });
});

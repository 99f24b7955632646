import { describe, expect, it } from 'vitest';
import { findUpdates, withoutStatements } from '../../src/model/fact-updates.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';

describe('statement-level updates', () => {
  const old = '[2024-01-01]\nBob: I work at Acme as an engineer. I love my dog Rex.\nassistant: Nice!\nBob: My brother works at Initech.';

  it('retires only the statement a new one updates, and says what matched', async () => {
    const r = await findUpdates('Bob: I started at Globex last week. The weather was fine.', [{ id: 'a', text: old }]);
    expect(r).toEqual([
      {
        id: 'a',
        statement: 'Bob: I work at Acme as an engineer.',
        by: 'Bob: I started at Globex last week.',
        slot: 'employer',
        subject: 'Bob (self)',
        oldValue: 'Acme',
        newValue: 'Globex',
        reason: 'employer of Bob (self): "Acme" → "Globex"',
      },
    ]);
    expect(withoutStatements(old, r.map((x) => x.statement))).toBe('[2024-01-01]\nBob: I love my dog Rex.\nassistant: Nice!\nBob: My brother works at Initech.');
  });

  it("never retires for another person's fact, an addition, another speaker, the same value or an unrelated sentence", async () => {
    for (const fresh of [
      'Bob: My sister works at Globex.',
      'Bob: I also work at Globex on weekends.',
      'Alice: I work at Globex.',
      'Bob: I work at Acme Corp, still.',
      'Bob: My daughter also started violin.',
      'Bob: We had lunch near the Globex offices.',
      'Bob: I might join Globex next year.',
    ]) {
      expect(await findUpdates(fresh, [{ id: 'a', text: old }]), fresh).toEqual([]);
    }
    // The brother's own fact is updated by a statement about the brother.
    expect((await findUpdates('Bob: My brother works at Hooli now.', [{ id: 'a', text: old }])).map((x) => x.statement)).toEqual(['Bob: My brother works at Initech.']);
  });

  it('a chunk left with nothing but emptied turns is retired whole', () => {
    expect(withoutStatements('[2024-01-01]\nBob: I live in Boston.', ['Bob: I live in Boston.'])).toBeNull();
    expect(withoutStatements('Bob: I live in Boston.\nassistant: Nice!', ['Bob: I live in Boston.'])).toBe('Bob: …\nassistant: Nice!');
  });

  it("the embedded model's JOINT-COMPACT rewrites the stale chunk and gives its reason", async () => {
    const m = new EmbeddedModel({ denseSignal: false });
    const related = [
      { id: 'a', sessionId: 's1', createdAt: 1, tokenCount: 30, keywords: ['acme'], text: old },
      { id: 'b', sessionId: 's1', createdAt: 2, tokenCount: 5, keywords: ['boston'], text: 'Bob: I live in Boston.' },
    ];
    const r = await m.jointCompact({ text: 'Bob: Home is Seattle now. I started at Globex.', keywords: ['seattle', 'globex'] }, related);
    expect(r.text).toBe('Bob: Home is Seattle now. I started at Globex.');
    expect(r.updates).toEqual([{ id: 'a', text: '[2024-01-01]\nBob: I love my dog Rex.\nassistant: Nice!\nBob: My brother works at Initech.' }]);
    expect(r.deletions).toEqual(['b']);
    expect(r.reasons?.['a']).toContain('employer of Bob (self): "Acme" → "Globex"');
    expect(r.reasons?.['b']).toContain('home of Bob (self): "Boston" → "Seattle"');
  });
});

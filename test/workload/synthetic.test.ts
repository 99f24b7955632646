import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAkashicError } from '../../src/errors.js';
import { QUESTION_CATEGORY, type Conversation, type Session } from '../../src/lab/workload/conversation.js';
import { SYNTHETIC_DEFAULTS, generateSynthetic, iterateSynthetic, resolveSyntheticOptions, syntheticConversation, type SyntheticOptions } from '../../src/lab/workload/synthetic.js';

const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0).length;
const turnsOf = (c: Conversation) => c.sessions.flatMap((s) => s.turns);
const defaults = generateSynthetic({ seed: 11 });

/** The session holding each turn id. */
function sessionIndex(c: Conversation): Map<string, Session> {
  return new Map(c.sessions.flatMap((s) => s.turns.map((t) => [t.turnId, s] as const)));
}

describe('generateSynthetic: determinism', () => {
  it('gives identical conversations for the same seed', () => {
    expect(generateSynthetic({ seed: 11 })).toEqual(defaults);
  });

  it('gives different conversations for another seed', () => {
    const other = generateSynthetic({ seed: 12 });
    expect(other).not.toEqual(defaults);
    expect(turnsOf(other[0] as Conversation).map((t) => t.text)).not.toEqual(
      turnsOf(defaults[0] as Conversation).map((t) => t.text),
    );
  });

  it('makes user i the same however it is reached', () => {
    const lazy = [...iterateSynthetic({ seed: 11 })];
    expect(lazy).toEqual(defaults);
    expect(syntheticConversation(2, { seed: 11 })).toEqual(defaults[2]);
    // Asking for more users leaves the first ones unchanged.
    expect(generateSynthetic({ seed: 11, users: 6 }).slice(0, 4)).toEqual(defaults);
  });
});

describe('generateSynthetic: shape', () => {
  it('uses the documented defaults', () => {
    expect(SYNTHETIC_DEFAULTS).toEqual({
      users: 4,
      sessionsPerUser: 20,
      turnsPerSession: 24,
      questionsPerUser: 40,
      seed: 1,
      topicSkew: 0,
      followUpChance: 0,
      style: 'chat',
    });
    expect(defaults).toHaveLength(4);
    for (const c of defaults) {
      expect(c.sessions).toHaveLength(20);
      for (const s of c.sessions) expect(s.turns).toHaveLength(24);
      expect(c.questions).toHaveLength(40);
    }
  });

  it('has unique conversation ids and two distinct speakers who take turns', () => {
    expect(new Set(defaults.map((c) => c.id)).size).toBe(defaults.length);
    for (const c of defaults) {
      expect(c.speakers[0]).not.toBe(c.speakers[1]);
      for (const s of c.sessions) {
        s.turns.forEach((t, i) => {
          expect(c.speakers).toContain(t.speaker);
          if (i > 0) expect(t.speaker).not.toBe(s.turns[i - 1]?.speaker);
        });
      }
    }
  });

  it('numbers sessions and turns the LoCoMo way and keeps time strictly increasing', () => {
    for (const c of defaults) {
      c.sessions.forEach((s, i) => {
        expect(s.index).toBe(i + 1);
        expect(s.id).toBe(`session_${i + 1}`);
        expect(s.turns[0]?.at).toBe(s.startedAt);
        s.turns.forEach((t, j) => expect(t.turnId).toBe(`D${i + 1}:${j + 1}`));
      });
      const times = turnsOf(c).map((t) => t.at);
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1] ?? 0);
    }
  });

  it('writes turns of 10 to 40 words with no template placeholders left', () => {
    for (const t of defaults.flatMap(turnsOf)) {
      expect(words(t.text)).toBeGreaterThanOrEqual(10);
      expect(words(t.text)).toBeLessThanOrEqual(40);
      expect(t.text).not.toMatch(/[{}]/);
    }
  });

  it('averages a LoCoMo-like session length (words x 1.3 as a rough token count)', () => {
    const sessions = defaults.flatMap((c) => c.sessions);
    const tokenish = sessions.reduce((n, s) => n + s.turns.reduce((m, t) => m + words(t.text), 0), 0) * 1.3;
    const perSession = tokenish / sessions.length;
    expect(perSession).toBeGreaterThan(500);
    expect(perSession).toBeLessThan(800);
  });
});

describe('generateSynthetic: questions', () => {
  const all = defaults.flatMap((c) => c.questions.map((q) => ({ c, q })));

  it('cites 1 to 4 existing turns per question, multi-hop ones at least 2', () => {
    for (const { c, q } of all) {
      const sessions = sessionIndex(c);
      expect(q.evidence.length).toBeGreaterThanOrEqual(1);
      expect(q.evidence.length).toBeLessThanOrEqual(4);
      expect(new Set(q.evidence).size).toBe(q.evidence.length);
      for (const id of q.evidence) expect(sessions.has(id)).toBe(true);
      if (q.category === QUESTION_CATEGORY.multiHop) expect(q.evidence.length).toBeGreaterThanOrEqual(2);
      expect(q.missingEvidence).toBeUndefined();
    }
  });

  it("uses LoCoMo's categories in its proportions (single-hop 58%, temporal 22%, multi-hop 20%)", () => {
    for (const c of defaults) {
      const count = (category: number) => c.questions.filter((q) => q.category === category).length;
      expect(count(QUESTION_CATEGORY.singleHop)).toBe(23);
      expect(count(QUESTION_CATEGORY.temporal)).toBe(9);
      expect(count(QUESTION_CATEGORY.multiHop)).toBe(8);
      expect(new Set(c.questions.map((q) => q.question)).size).toBe(c.questions.length);
    }
  });

  it('has answers that the evidence turns actually state', () => {
    for (const { c, q } of all) {
      const sessions = sessionIndex(c);
      const turns = new Map(turnsOf(c).map((t) => [t.turnId, t.text]));
      const evidenceText = q.evidence.map((id) => turns.get(id) ?? '').join('\n');
      if (q.category === QUESTION_CATEGORY.temporal) {
        const start = new Date(sessions.get(q.evidence[0] ?? '')?.startedAt ?? 0);
        const month = start.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
        expect(q.answer).toBe(`${start.getUTCDate()} ${month} ${start.getUTCFullYear()}`);
      } else {
        for (const part of q.answer.split(', ')) expect(evidenceText).toContain(part);
      }
    }
  });

  it('spreads multi-hop evidence over sessions and mentions facts again in later sessions', () => {
    for (const c of defaults) {
      const sessions = sessionIndex(c);
      const spans = c.questions
        .filter((q) => q.category === QUESTION_CATEGORY.multiHop)
        .map((q) => new Set(q.evidence.map((id) => sessions.get(id)?.index)).size);
      expect(Math.max(...spans)).toBeGreaterThanOrEqual(2);

      // Single-hop answers that are names (capitalised) come up again outside the session that stated them.
      const names = c.questions
        .filter((q) => q.category === QUESTION_CATEGORY.singleHop && /^[A-Z]/.test(q.answer))
        .map((q) => q.answer);
      const recurring = names.filter(
        (name) => c.sessions.filter((s) => s.turns.some((t) => t.text.includes(name))).length >= 2,
      );
      expect(recurring.length).toBeGreaterThan(0);
    }
  });

  it('gives each user its own made-up entities', () => {
    const answersOf = (c: Conversation) =>
      new Set(c.questions.filter((q) => q.category === QUESTION_CATEGORY.singleHop).map((q) => q.answer));
    const [a, b] = [answersOf(defaults[0] as Conversation), answersOf(defaults[1] as Conversation)];
    const shared = [...a].filter((x) => b.has(x) && /^[A-Z]/.test(x));
    expect(shared).toEqual([]);
  });
});

describe('generateSynthetic: scale and edge sizes', () => {
  it('iterates lazily: a billion users cost nothing until asked for', () => {
    const it = iterateSynthetic({ users: 1_000_000_000, sessionsPerUser: 1 });
    const first = it.next();
    const second = it.next();
    expect(first.done).toBe(false);
    expect(second.done).toBe(false);
    if (!first.done && !second.done) expect(first.value.id).not.toBe(second.value.id);
  });

  it('generates 1000 users one at a time', () => {
    let users = 0;
    let turns = 0;
    const ids = new Set<string>();
    for (const c of iterateSynthetic({ users: 1000, sessionsPerUser: 3, questionsPerUser: 5 })) {
      users++;
      ids.add(c.id);
      turns += turnsOf(c).length;
    }
    expect(users).toBe(1000);
    expect(ids.size).toBe(1000);
    expect(turns).toBe(1000 * 3 * 24);
  });

  it('handles the smallest sizes and long histories', () => {
    const [tiny] = generateSynthetic({ users: 1, sessionsPerUser: 1, turnsPerSession: 4, questionsPerUser: 0 });
    expect(tiny?.sessions[0]?.turns).toHaveLength(4);
    expect(tiny?.questions).toEqual([]);

    const [long] = generateSynthetic({ users: 1, sessionsPerUser: 200, questionsPerUser: 300 });
    expect(long?.sessions).toHaveLength(200);
    expect(long?.questions.length).toBe(300);
    for (const q of long?.questions ?? []) expect(q.evidence.length).toBeLessThanOrEqual(4);
  });

  it('returns fewer questions than asked when a short conversation states too few facts', () => {
    const [c] = generateSynthetic({ users: 1, sessionsPerUser: 2, turnsPerSession: 6, questionsPerUser: 500 });
    expect(c?.questions.length).toBeGreaterThan(0);
    expect(c?.questions.length).toBeLessThan(500);
    expect(new Set(c?.questions.map((q) => q.question)).size).toBe(c?.questions.length);
  });
});

describe('synthetic options', () => {
  it.each<[SyntheticOptions, string]>([
    [{ users: 0 }, 'users'],
    [{ sessionsPerUser: -1 }, 'sessionsPerUser'],
    [{ turnsPerSession: 3 }, 'turnsPerSession'],
    [{ questionsPerUser: 1.5 }, 'questionsPerUser'],
    [{ seed: Number.NaN }, 'seed'],
    [{ users: '3' as unknown as number }, 'users'],
  ])('rejects %j naming %s', (options, name) => {
    for (const call of [() => generateSynthetic(options), () => iterateSynthetic(options)]) {
      let err: unknown;
      try {
        call();
      } catch (e) {
        err = e;
      }
      expect(isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT')).toBe(true);
      expect((err as Error).message).toContain(name);
    }
  });

  it('fills defaults and accepts any safe-integer seed', () => {
    expect(resolveSyntheticOptions({ seed: -5, users: 2 })).toEqual({ ...SYNTHETIC_DEFAULTS, seed: -5, users: 2 });
    expect(() => syntheticConversation(-1)).toThrow(/user index/);
  });
});

describe('synthetic topic realism', () => {
  /** Mean Jaccard similarity of the word sets of consecutive sessions. */
  const consecutiveOverlap = (c: Conversation): number => {
    const sets = c.sessions.map((s) => new Set(s.turns.flatMap((t) => t.text.toLowerCase().split(/\W+/)).filter((w) => w.length > 3)));
    let sum = 0;
    for (let i = 1; i < sets.length; i++) {
      const a = sets[i - 1]!;
      const b = sets[i]!;
      const inter = [...b].filter((w) => a.has(w)).length;
      sum += inter / (a.size + b.size - inter);
    }
    return sum / (sets.length - 1);
  };
  const shape = { seed: 5, users: 3, sessionsPerUser: 60, turnsPerSession: 12, questionsPerUser: 0 };

  it('leaves the original generator unchanged, draw for draw, when the knobs are 0', () => {
    const digest = createHash('sha256').update(JSON.stringify(generateSynthetic({ seed: 11, users: 2, sessionsPerUser: 30 }))).digest('hex');
    // The digest of the generator before the knobs existed.
    expect(digest).toBe('f57bbe4ed1e0a7389f4444815e893a0087c7a9207d0b6afb2c693e6a4bf3d063');
    expect(generateSynthetic({ ...shape, topicSkew: 0, followUpChance: 0 })).toEqual(generateSynthetic(shape));
  });

  it('follow-ups make consecutive sessions share more of their words', () => {
    const independent = generateSynthetic(shape).map(consecutiveOverlap);
    const followed = generateSynthetic({ ...shape, followUpChance: 1 }).map(consecutiveOverlap);
    for (let u = 0; u < independent.length; u++) expect(followed[u]!).toBeGreaterThan(independent[u]! * 1.1);
  });

  it('topic skew makes a few topics fill most sessions', () => {
    // A session's most distinctive words are its topics' prompts; count the distinct opening owner sentences of
    // topic blocks through the vocabulary they share across the conversation: with skew, fewer distinct words.
    const vocabulary = (c: Conversation) => new Set(turnsOf(c).flatMap((t) => t.text.toLowerCase().split(/\W+/))).size;
    const even = generateSynthetic(shape).map(vocabulary);
    const skewed = generateSynthetic({ ...shape, topicSkew: 2 }).map(vocabulary);
    for (let u = 0; u < even.length; u++) expect(skewed[u]!).toBeLessThan(even[u]!);
  });

  it('rejects knobs out of range with AKASHIC_INVALID_ARGUMENT', () => {
    for (const bad of [{ topicSkew: -1 }, { topicSkew: Number.NaN }, { followUpChance: 1.5 }, { followUpChance: -0.1 }] as SyntheticOptions[]) {
      let caught: unknown;
      try {
        resolveSyntheticOptions(bad);
      } catch (err) {
        caught = err;
      }
      expect(isAkashicError(caught) && caught.code === 'AKASHIC_INVALID_ARGUMENT').toBe(true);
    }
  });
});

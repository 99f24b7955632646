import { describe, expect, it } from 'vitest';
import { isAkashicError } from '../../src/errors.js';
import type { Conversation } from '../../src/lab/workload/conversation.js';
import { generateSynthetic, resolveSyntheticOptions, type SyntheticOptions } from '../../src/lab/workload/synthetic.js';
import { QUESTION_CATEGORY } from '../../src/lab/workload/conversation.js';
import { formatDay } from '../../src/lab/workload/synthetic-questions.js';
import { ASSISTANT_NAME, DIARY_NAME, GROUP_MAX_MEMBERS, GROUP_MIN_MEMBERS } from '../../src/lab/workload/synthetic-styles.js';

const turnsOf = (c: Conversation) => c.sessions.flatMap((s) => s.turns);
const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0).length;
const shape = { seed: 3, users: 2, sessionsPerUser: 12 };

/** Every question's evidence names a turn of the conversation, spoken by the person the question is about. */
function expectExactEvidence(c: Conversation): void {
  const byId = new Map(turnsOf(c).map((t) => [t.turnId, t]));
  expect(c.questions.length).toBeGreaterThan(10);
  for (const q of c.questions) {
    expect(q.evidence.length).toBeGreaterThan(0);
    for (const id of q.evidence) {
      const turn = byId.get(id);
      expect(turn, `${q.question} → ${id}`).toBeDefined();
      expect(turn!.speaker).toBe(c.speakers[0]);
    }
  }
}

describe('synthetic styles', () => {
  it('assistant: the person and a tool-using assistant alternate; the assistant states no fact', () => {
    const conversations = generateSynthetic({ ...shape, style: 'assistant' });
    for (const c of conversations) {
      expect(c.speakers[1]).toBe(ASSISTANT_NAME);
      for (const s of c.sessions) {
        s.turns.forEach((t, i) => expect(t.speaker).toBe(c.speakers[i % 2]));
      }
      const replies = turnsOf(c).filter((t) => t.speaker === ASSISTANT_NAME);
      // Most replies carry a tool output line: `[tool] field=...`.
      const withTool = replies.filter((t) => /\n\[[a-z.]+\] \w+=/.test(t.text));
      expect(withTool.length / replies.length).toBeGreaterThan(0.7);
      expectExactEvidence(c);
      // No answer is ever found in the assistant's words.
      const assistantText = replies.map((t) => t.text).join('\n');
      for (const q of c.questions) for (const part of q.answer.split(', ')) if (part.length > 5 && !/\d/.test(part)) expect(assistantText).not.toContain(part);
    }
  });

  it('diary: one voice, a few long paragraphs per session', () => {
    const conversations = generateSynthetic({ ...shape, style: 'diary' });
    const chat = generateSynthetic(shape);
    for (const [u, c] of conversations.entries()) {
      expect(c.speakers[1]).toBe(DIARY_NAME);
      for (const s of c.sessions) {
        expect(s.turns.length).toBeGreaterThanOrEqual(1);
        expect(s.turns.length).toBeLessThanOrEqual(5);
        for (const t of s.turns) expect(t.speaker).toBe(c.speakers[0]);
      }
      const mean = (cs: Conversation) => turnsOf(cs).reduce((n, t) => n + words(t.text), 0) / turnsOf(cs).length;
      expect(mean(c)).toBeGreaterThan(2 * mean(chat[u]!));
      expectExactEvidence(c);
    }
  });

  describe('group: three to five friends, interleaved threads, questions about who said what', () => {
    const conversations = generateSynthetic({ ...shape, style: 'group' });

    it('has three to five distinct members, each of whom speaks and states facts of their own', () => {
      for (const c of conversations) {
        expect(c.speakers.length).toBeGreaterThanOrEqual(GROUP_MIN_MEMBERS);
        expect(c.speakers.length).toBeLessThanOrEqual(GROUP_MAX_MEMBERS);
        expect(new Set(c.speakers).size).toBe(c.speakers.length);
        const speaking = new Set(turnsOf(c).map((t) => t.speaker));
        for (const name of c.speakers) expect(speaking.has(name)).toBe(true);
        for (const t of turnsOf(c)) expect(c.speakers).toContain(t.speaker);
        const byId = new Map(turnsOf(c).map((t) => [t.turnId, t]));
        const factOwners = new Set(c.questions.flatMap((q) => q.evidence.map((id) => byId.get(id)?.speaker)));
        expect(factOwners.size).toBeGreaterThanOrEqual(3);
        for (const s of c.sessions) expect(s.turns).toHaveLength(24);
      }
    });

    it('interleaves threads: replies address their owner by name, and members chime in across threads', () => {
      for (const c of conversations) {
        const addressed = turnsOf(c).filter((t) => c.speakers.some((name) => t.text.includes(`@${name}`)));
        expect(addressed.length / turnsOf(c).length).toBeGreaterThan(0.15);
        // Nobody addresses themselves.
        for (const t of addressed) expect(t.text.includes(`@${t.speaker} `)).toBe(false);
      }
    });

    it("every question's evidence is a turn of the person it is about, and that turn states the answer", () => {
      let who = 0;
      for (const c of conversations) {
        const sessions = new Map(c.sessions.flatMap((s) => s.turns.map((t) => [t.turnId, s] as const)));
        const byId = new Map(turnsOf(c).map((t) => [t.turnId, t]));
        expect(c.questions.length).toBe(40);
        for (const q of c.questions) {
          expect(q.evidence.length).toBeGreaterThan(0);
          const turns = q.evidence.map((id) => byId.get(id)!);
          for (const t of turns) expect(t, `${q.question} → ${q.evidence.join(',')}`).toBeDefined();
          const owner = turns[0]!.speaker;
          for (const t of turns) expect(t.speaker).toBe(owner);
          if (q.answer === owner) {
            // "Who moved to X?": the answer is the speaker, the question names the fact's value, not the person.
            who++;
            expect(q.question.startsWith('Who')).toBe(true);
            for (const name of c.speakers) expect(q.question).not.toContain(name);
            // …and the turn states what it names: every capitalised word after the first is in the turn.
            for (const word of q.question.split(/\s+/).slice(1).filter((w) => /^\p{Lu}/u.test(w))) {
              expect(turns[0]!.text, q.question).toContain(word.replace(/[?,.]+$/, ''));
            }
          } else {
            expect(q.question).toContain(owner);
            if (q.category === QUESTION_CATEGORY.temporal) expect(q.answer).toBe(formatDay(sessions.get(q.evidence[0]!)!.startedAt));
            else for (const part of q.answer.split(', ')) expect(turns.map((t) => t.text).join('\n')).toContain(part);
          }
        }
      }
      expect(who).toBeGreaterThan(0);
    });

    it('gives a kind of topic to two members, so a question has to name its person', () => {
      for (const c of conversations) {
        const byId = new Map(turnsOf(c).map((t) => [t.turnId, t]));
        // The same question template asked about two different people: "Which trail did A hike…" / "…did B hike…".
        const shapes = new Map<string, Set<string>>();
        for (const q of c.questions) {
          const owner = byId.get(q.evidence[0]!)!.speaker;
          if (q.answer === owner) continue;
          const template = q.question.replace(owner, '{o}').replace(/[A-Z][\w'-]*/g, 'X');
          shapes.set(template, (shapes.get(template) ?? new Set()).add(owner));
        }
        expect([...shapes.values()].some((owners) => owners.size > 1)).toBe(true);
      }
    });
  });

  it('is deterministic per seed and leaves the chat style unchanged', () => {
    for (const style of ['assistant', 'diary', 'group'] as const) {
      expect(generateSynthetic({ ...shape, style })).toEqual(generateSynthetic({ ...shape, style }));
      expect(generateSynthetic({ ...shape, style })).not.toEqual(generateSynthetic({ ...shape, style, seed: 4 }));
    }
    expect(generateSynthetic({ ...shape, style: 'chat' })).toEqual(generateSynthetic(shape));
  });

  it('rejects an unknown style with AKASHIC_INVALID_ARGUMENT', () => {
    let caught: unknown;
    try {
      resolveSyntheticOptions({ style: 'sonnet' } as unknown as SyntheticOptions);
    } catch (err) {
      caught = err;
    }
    expect(isAkashicError(caught) && caught.code === 'AKASHIC_INVALID_ARGUMENT').toBe(true);
  });
});

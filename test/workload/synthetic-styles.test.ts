import { describe, expect, it } from 'vitest';
import { isAkashicError } from '../../src/errors.js';
import type { Conversation } from '../../src/lab/workload/conversation.js';
import { generateSynthetic, resolveSyntheticOptions, type SyntheticOptions } from '../../src/lab/workload/synthetic.js';
import { ASSISTANT_NAME, DIARY_NAME } from '../../src/lab/workload/synthetic-styles.js';

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

  it('is deterministic per seed and leaves the chat style unchanged', () => {
    for (const style of ['assistant', 'diary'] as const) {
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

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/lab/workload/conversation.js';
import { loadLocomo } from '../../src/lab/workload/locomo-loader.js';

/** The shared LoCoMo copy sits next to the repository; it is never part of it. */
const LOCOMO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/data/locomo');
const present = existsSync(LOCOMO_DIR);
if (!present) {
  console.warn(`LoCoMo data not found at ${LOCOMO_DIR}: skipping the LoCoMo loader tests`);
}

describe.skipIf(!present)('loadLocomo on the released LoCoMo files (../shared/data/locomo)', () => {
  let conversations: Conversation[] = [];
  beforeAll(async () => {
    conversations = await loadLocomo(LOCOMO_DIR);
  });
  const turnsOf = (c: Conversation) => c.sessions.flatMap((s) => s.turns);

  it('reads the README totals: 7 conversations, 4,124 turns, 1,347 questions', () => {
    expect(conversations).toHaveLength(7);
    expect(conversations.reduce((n, c) => n + turnsOf(c).length, 0)).toBe(4124);
    expect(conversations.reduce((n, c) => n + c.questions.length, 0)).toBe(1347);
  });

  it('names conversations after their files and keeps the speakers', () => {
    expect(conversations.map((c) => c.id)).toEqual(['26', '30', '41', '42', '43', '44', '47']);
    for (const c of conversations) {
      expect(c.speakers[0]).not.toBe(c.speakers[1]);
      const others = turnsOf(c).filter((t) => !c.speakers.includes(t.speaker));
      expect(others).toEqual([]);
    }
  });

  it('orders sessions by index and turns strictly by time, across sessions too', () => {
    for (const c of conversations) {
      c.sessions.forEach((s, i) => {
        expect(s.id).toBe(`session_${s.index}`);
        if (i > 0) expect(s.index).toBeGreaterThan(c.sessions[i - 1]?.index ?? 0);
        expect(s.turns[0]?.at).toBe(s.startedAt);
      });
      const times = turnsOf(c).map((t) => t.at);
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1] ?? 0);
    }
  });

  it('parses session dates (first session of conversation 26: 1:56 pm on 8 May, 2023)', () => {
    expect(conversations[0]?.sessions[0]?.startedAt).toBe(Date.UTC(2023, 4, 8, 13, 56));
  });

  it('appends image captions to the turn text', () => {
    const all = conversations.flatMap(turnsOf);
    const withPhoto = all.filter((t) => t.text.includes('[shares a photo: '));
    expect(withPhoto.length).toBeGreaterThan(0);
    for (const t of withPhoto) expect(t.text).toMatch(/\[shares a photo: [^\]]+\]$/);
  });

  it('keeps only evidence that names a turn, and lists the rest as missing', () => {
    let missing = 0;
    for (const c of conversations) {
      const ids = new Set(turnsOf(c).map((t) => t.turnId));
      for (const q of c.questions) {
        for (const id of q.evidence) expect(ids.has(id)).toBe(true);
        for (const id of q.missingEvidence ?? []) expect(ids.has(id)).toBe(false);
        if (q.missingEvidence !== undefined) expect(q.missingEvidence.length).toBeGreaterThan(0);
        missing += q.missingEvidence?.length ?? 0;
      }
    }
    // Annotation slips in the release: "D10:19" (session 10 has 16 turns), "D", "D4:36" (past the session's end).
    expect(missing).toBe(3);
  });

  it('repairs evidence ids whose intent is certain ("D8:6; D9:17", "D:11:26")', () => {
    const byId = new Map(conversations.map((c) => [c.id, c]));
    // Located by ids only, so that no LoCoMo text is copied into this repository.
    const split = byId.get('26')?.questions.filter((q) => q.evidence.join(' ') === 'D8:6 D9:17');
    expect(split?.length).toBeGreaterThan(0);
    for (const q of split ?? []) expect(q.missingEvidence).toBeUndefined();
    const repaired = byId.get('43')?.questions.filter((q) => q.evidence.includes('D11:26'));
    expect(repaired?.length).toBeGreaterThan(0);
  });

  it('turns numeric answers into text and keeps adversarial answers apart', () => {
    const questions = conversations.flatMap((c) => c.questions);
    for (const q of questions) expect(typeof q.answer).toBe('string');
    expect(questions.some((q) => q.answer === '2022')).toBe(true);
    const adversarial = questions.filter((q) => q.category === 5);
    expect(adversarial).toHaveLength(312);
    for (const q of adversarial) expect(q.adversarialAnswer).toBeTypeOf('string');
    expect(adversarial.filter((q) => q.answer === '')).toHaveLength(310);
  });

  it('loads a single file as well as a folder', async () => {
    const one = await loadLocomo(resolve(LOCOMO_DIR, '30.json'));
    expect(one).toHaveLength(1);
    expect(one[0]).toEqual(conversations.find((c) => c.id === '30'));
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import type { CompactionResult } from '../../src/memattention/compactor.js';
import { memoryStore } from './fixtures.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 8);
const CHAT = ['The bus was late again.', 'I tried a new soup recipe.', 'We watched a comedy on Friday.', 'My cat knocked over a glass.'];

/** Five exchanges (ten turns) of one person with the assistant; `fact` goes into the third of the person's turns. */
function sessionTurns(person: string, fact: string | null): { role: string; text: string }[] {
  const out: { role: string; text: string }[] = [];
  for (let i = 0; i < 5; i++) {
    const talk = CHAT[i % CHAT.length]!;
    out.push({ role: person, text: i === 2 && fact !== null ? `${talk} ${fact}` : talk }, { role: 'assistant', text: 'That sounds nice.' });
  }
  return out;
}

describe('a memory that knows what is current (the embedded model, offline, library defaults)', () => {
  let store: AkashicStore;
  let memory: AkashicMemory;
  beforeEach(async () => {
    ({ store } = await memoryStore());
    memory = new AkashicMemory(store, { relocateEveryRecalls: 0 });
  });
  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  async function session(user: string, person: string, index: number, fact: string | null): Promise<CompactionResult> {
    const s = `session_${index}`;
    for (const [k, t] of sessionTurns(person, fact).entries()) await memory.appendTurn({ user, session: s, role: t.role, text: t.text, at: T0 + index * 7 * DAY + k * 60_000 });
    const { compacted } = await memory.endSession({ user, session: s });
    expect(compacted).toHaveLength(1);
    return compacted[0]!;
  }

  it('30 turns, 3 sessions, 2 users: "Where does Bob work now?" answers the new employer, and says why', async () => {
    const first = await session('bob', 'Bob', 1, 'I work at Acme in the sales team.');
    await session('carol', 'Carol', 1, 'I work at Initech as a nurse.');
    await session('bob', 'Bob', 2, null);
    const third = await session('bob', 'Bob', 3, 'I started at Globex last week.');

    // Reconciliation (user scope, the default) retired the one stale statement of the first session's chunk.
    expect(third.updated).toEqual([first.chunk]);
    expect(third.reasons).toHaveLength(1);
    expect(third.reasons[0]!.reason).toContain('employer of Bob (self): "Acme" → "Globex"');
    const current = (await store.get('bob', first.chunk!.sessionId, first.chunk!.chunkId))!;
    expect(current.text).not.toContain('Acme');
    expect(current.text).toContain('The bus was late again.');
    const h = await memory.history({ user: 'bob', session: first.chunk!.sessionId, chunkId: first.chunk!.chunkId });
    expect(h.map((v) => [v.version, v.cause])).toEqual([[2, null], [1, 'update']]);
    expect(h[1]!.record.text).toContain('I work at Acme');
    expect(h[1]!.reason).toContain('"Acme" → "Globex"');
    expect(h[1]!.supersededBy).toEqual({ userId: 'bob', ...third.chunk! });

    const r = await memory.recall({ user: 'bob', session: 'session_4', query: 'Where does Bob work now?' });
    expect(r.text).toContain('Globex');
    expect(r.text).not.toContain('Acme');
    expect(r.text).not.toContain('Initech');
    // Carol's fact is hers alone.
    const c = await memory.recall({ user: 'carol', session: 'session_2', query: 'Where does Carol work?' });
    expect(c.text).toContain('Initech');
  });

  it("another person's fact, an addition and an unrelated sentence retire nothing", async () => {
    await session('bob', 'Bob', 1, 'I work at Acme in the sales team.');
    for (const [i, fact] of ['My brother works at Globex.', 'My daughter also started violin.', 'We had lunch near the Globex offices.'].entries()) {
      const c = await session('bob', 'Bob', i + 2, fact);
      expect(c.updated, fact).toEqual([]);
      expect(c.deleted, fact).toEqual([]);
      expect(c.reasons, fact).toEqual([]);
    }
    const r = await memory.recall({ user: 'bob', session: 'q', query: 'Where does Bob work now?' });
    expect(r.text).toContain('Acme');
  });
});

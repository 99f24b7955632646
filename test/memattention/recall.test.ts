import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { isAkashicError } from '../../src/errors.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { refString } from '../../src/store/kv/keys.js';
import { activeTurnLog } from '../../src/engine/internal-seams.js';
import { memoryStore, ScriptedModel, tokenizer } from './fixtures.js';

const U = 'alice';
const S = 's1';

describe('recall', () => {
  let store: AkashicStore;
  let model: ScriptedModel;
  let memory: AkashicMemory;

  beforeEach(async () => {
    ({ store } = await memoryStore());
    model = new ScriptedModel();
    memory = new AkashicMemory(store, { model, chunkGateTokens: 10_000, relocateEveryRecalls: 0 });
  });

  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  async function seed(session: string, texts: string[]): Promise<string[]> {
    const rs = await store.write(
      U,
      texts.map((text, i) => ({ op: 'put' as const, sessionId: session, kind: 'memory' as const, text, keywords: ['tea'], tokenCount: tokenizer.count(text), createdAt: 1_000 * (i + 1) })),
    );
    return rs.map((r) => r.chunkId);
  }

  it('reads the pending turns alongside retrieval; a failed read of them fails the recall (AKASHIC_IO) once retrieval has settled', async () => {
    const [c1] = await seed(S, ['green tea in the morning']);
    const pending = await memory.appendTurn({ user: U, session: S, role: 'user', text: 'pending tea note' });
    model.selectHook = async () => [refString(S, c1!)];
    const ok = await memory.recall({ user: U, session: S, query: 'tea' });
    expect(ok.chunks.map((c) => c.chunkId)).toEqual([c1]);
    expect(ok.activeTurns.map((t) => t.turnId)).toEqual([pending.turnId]);
    // The turn being answered is left out of the pending turns, as before.
    expect((await memory.recall({ user: U, session: S, query: 'tea', turnId: pending.turnId })).activeTurns).toEqual([]);

    const log = store[activeTurnLog];
    let retrievalDone = false;
    model.selectHook = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      retrievalDone = true;
      return [refString(S, c1!)];
    };
    Object.defineProperty(store, activeTurnLog, { configurable: true, get: () => ({ ...log, read: async () => Promise.reject(new Error('active log unreadable')) }) });
    try {
      const err = await memory.recall({ user: U, session: S, query: 'tea' }).catch((e: unknown) => e);
      expect(isAkashicError(err) && err.code).toBe('AKASHIC_IO');
      expect(retrievalDone).toBe(true);
    } finally {
      delete (store as unknown as Record<symbol, unknown>)[activeTurnLog];
    }
    // The next recall reads both again.
    expect((await memory.recall({ user: U, session: S, query: 'tea' })).activeTurns.map((t) => t.turnId)).toEqual([pending.turnId]);
  });

  it('returns the selected chunks in chronological order, cut to the budget from the lowest rank (equal scores: the oldest)', async () => {
    const texts = ['first: green tea in the morning', 'second: no tea after six pm', 'third: oolong is the favourite tea'];
    const [c1, c2, c3] = await seed(S, texts);
    model.selectHook = async () => [refString(S, c3!), refString(S, c1!), refString(S, c2!)];

    const all = await memory.recall({ user: U, session: S, query: 'tea' });
    expect(all.chunks.map((c) => c.chunkId)).toEqual([c1, c2, c3]);
    expect(all.text).toBe(texts.join('\n\n'));
    expect(all.tokenCount).toBe(tokenizer.count(all.text));
    expect(all.dropped).toBe(0);
    expect(all.blocksTouched).toBe(1);

    // The three score alike for 'tea'; among equally good statements the newer ranks first, so the oldest goes.
    const budget = tokenizer.count(`${texts[1]}\n\n${texts[2]}`);
    const cut = await memory.recall({ user: U, session: S, query: 'tea', memoryBudgetTokens: budget });
    expect(new Set(cut.passages.map((p) => p.score)).size).toBe(1);
    expect(cut.chunks.map((c) => c.chunkId)).toEqual([c2, c3]);
    expect(cut.text).toBe(`${texts[1]}\n\n${texts[2]}`);
    expect(cut.tokenCount).toBeLessThanOrEqual(budget);
    expect(cut.dropped).toBe(1);

    const none = await memory.recall({ user: U, session: S, query: 'tea', memoryBudgetTokens: 0 });
    expect(none.chunks).toEqual([]);
    expect(none.text).toBe('');
  });

  it('passes SELECT the query keywords and topP, and metadata only', async () => {
    await seed(S, ['green tea', 'black tea']);
    await memory.recall({ user: U, session: S, query: 'Which teas do I like?', topP: 1 });
    const call = model.calls.select.at(-1)!;
    expect(call.topP).toBe(1);
    expect(call.query.text).toBe('Which teas do I like?');
    expect(call.query.keywords).toContain('teas');
    expect(call.candidates.every((c) => !('text' in c))).toBe(true);
  });

  it("returns the session's active turns, without the request's own turn", async () => {
    const a = await memory.appendTurn({ user: U, session: S, role: 'user', text: 'I am in Lisbon this week' });
    const b = await memory.appendTurn({ user: U, session: S, role: 'user', text: 'what should I eat?' });
    await memory.appendTurn({ user: U, session: 'other', role: 'user', text: 'unrelated' });
    const r = await memory.recall({ user: U, session: S, query: 'what should I eat?', turnId: b.turnId });
    expect(r.activeTurns.map((t) => t.turnId)).toEqual([a.turnId]);
    expect(r.activeTurns[0]).toMatchObject({ role: 'user', text: 'I am in Lisbon this week', tokenCount: tokenizer.count('I am in Lisbon this week') });
  });

  it('with enableRetrieval false only returns the active turns and asks the model nothing', async () => {
    await seed(S, ['green tea']);
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'tea?' });
    const r = await memory.recall({ user: U, session: S, query: 'tea', enableRetrieval: false });
    expect(r.chunks).toEqual([]);
    expect(r.activeTurns).toHaveLength(1);
    expect(model.calls.select).toHaveLength(0);
    expect(r.relocation).toEqual({ status: 'skipped', reason: 'retrieval-disabled' });
  });

  it("searches all the user's sessions by default and only the calling session with scope 'session'", async () => {
    const [other] = await seed('s-old', ['my favourite tea is oolong']);
    const wide = await memory.recall({ user: U, session: S, query: 'favourite tea' });
    expect(wide.chunks.map((c) => [c.sessionId, c.chunkId])).toEqual([['s-old', other]]);
    expect((await memory.recall({ user: U, session: S, query: 'favourite tea', scope: 'session' })).chunks).toEqual([]);
    const sessionOnly = new AkashicMemory(store, { model, recallScope: 'session' });
    expect((await sessionOnly.recall({ user: U, session: S, query: 'favourite tea' })).chunks).toEqual([]);
    expect((await sessionOnly.recall({ user: U, session: S, query: 'favourite tea', scope: 'user' })).chunks).toHaveLength(1);
    await sessionOnly.close();
  });

  it('records co-access of the materialized set', async () => {
    const [c1, c2] = await seed(S, ['green tea', 'black tea']);
    await memory.recall({ user: U, session: S, query: 'tea' });
    await memory.recall({ user: U, session: S, query: 'tea' });
    const stats = await store.coAccess(U);
    expect(stats.accesses.get(refString(S, c1!))).toBe(2);
    expect(stats.accesses.get(refString(S, c2!))).toBe(2);
    expect([...stats.pairs.values()]).toEqual([2]);
  });

  it('rejects bad arguments', async () => {
    const bad = [
      () => memory.recall({ user: U, session: S, query: 1 as unknown as string }),
      () => memory.recall({ user: U, session: S, query: 'q', topP: 0 }),
      () => memory.recall({ user: U, session: S, query: 'q', memoryBudgetTokens: -1 }),
      () => memory.recall({ user: U, session: S, query: 'q', scope: 'all' as 'user' }),
    ];
    for (const f of bad) await expect(f()).rejects.toSatisfy((e: unknown) => isAkashicError(e, 'AKASHIC_INVALID_ARGUMENT'));
  });
});

describe('end to end with the embedded model', () => {
  it('compacts at the gate and recalls the memory by a later query', async () => {
    const { store } = await memoryStore();
    const memory = new AkashicMemory(store, { chunkGateTokens: 24 });
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'My sister Ingrid lives in Trondheim and teaches violin.' });
    const r = await memory.appendTurn({ user: U, session: S, role: 'assistant', text: 'Noted: Ingrid, Trondheim, violin teacher. Anything else about her?' });
    // The gate fired: the compaction runs in the write-back queue; flush waits for it.
    expect(r.compactionScheduled).toBe(true);
    await memory.flush();
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'Not now.' });
    const got = await memory.recall({ user: U, session: S, query: 'Where does Ingrid live?' });
    expect(got.chunks).toHaveLength(1);
    expect(got.text).toContain('Trondheim');
    expect(got.activeTurns.map((t) => t.text)).toEqual(['Not now.']);
    await memory.close();
    await store.close();
  });

  it('recalls compacted memory only, not application notes sharing the namespace, unless asked', async () => {
    const { store } = await memoryStore();
    await store.put(U, { sessionId: 'app.notes', kind: 'note', text: '{"city":"Trondheim","sister":"Ingrid"}', keywords: ['trondheim', 'ingrid'] });
    const memory = new AkashicMemory(store, { chunkGateTokens: 24 });
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'My sister Ingrid lives in Trondheim and teaches violin.' });
    await memory.endSession({ user: U, session: S });
    const got = await memory.recall({ user: U, session: S, query: 'Where does Ingrid live?', scope: 'user' });
    expect(got.chunks.map((c) => c.kind)).toEqual(['memory']);
    const withNotes = new AkashicMemory(store, { recallKinds: ['memory', 'note'] });
    const both = await withNotes.recall({ user: U, session: S, query: 'Where does Ingrid live?', scope: 'user' });
    expect(both.chunks.map((c) => c.kind).sort()).toEqual(['memory', 'note']);
    await memory.close();
    await withNotes.close();
    await store.close();
  });
});

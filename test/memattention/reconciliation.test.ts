import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import type { MemoryOptions } from '../../src/memattention/options.js';
import { listAll, memoryStore, ScriptedModel, tokenizer } from './fixtures.js';

const U = 'alice';

/** Compacts one chunk from the given turns through endSession. */
async function chunkOf(memory: AkashicMemory, session: string, turns: [string, string][]) {
  for (const [turnId, text] of turns) await memory.appendTurn({ user: U, session, role: 'user', text, turnId });
  const { compacted } = await memory.endSession({ user: U, session });
  expect(compacted).toHaveLength(1);
  return compacted[0]!;
}

describe('joint compaction', () => {
  let store: AkashicStore;
  let model: ScriptedModel;
  let memory: AkashicMemory;
  const open = (o: MemoryOptions = {}): AkashicMemory => new AkashicMemory(store, { model, chunkGateTokens: 10_000, ...o });

  beforeEach(async () => {
    ({ store } = await memoryStore());
    model = new ScriptedModel();
    memory = open();
  });

  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  it('updates and deletes prior chunks, carrying provenance over, in one batch', async () => {
    const a = await chunkOf(memory, 's1', [['t1', 'I live in Paris'], ['t2', 'my flat is small']]);
    const b = await chunkOf(memory, 's1', [['t3', 'I work in Paris as a baker']]);
    model.selectHook = async (_q, candidates) => candidates.map((c) => c.id);
    model.jointHook = async (fresh, related) => {
      expect(related.map((r) => r.text)).toEqual(['user: I live in Paris\nuser: my flat is small', 'user: I work in Paris as a baker']);
      return {
        text: fresh.text + ' (moved from Paris)',
        updates: [{ id: related[1]!.id, text: 'user: I work in Berlin as a baker' }],
        deletions: [related[0]!.id],
      };
    };
    const c = await chunkOf(memory, 's1', [['t4', 'I moved to Berlin last week']]);

    expect(c.related).toEqual([a.chunk, b.chunk]);
    expect(c.updated).toEqual([b.chunk]);
    expect(c.deleted).toEqual([a.chunk]);
    expect(c.recordsRead).toBe(2);

    const fresh = (await store.get(U, 's1', c.chunk!.chunkId))!;
    expect(fresh.text).toBe('user: I moved to Berlin last week (moved from Paris)');
    expect(fresh.provenance).toEqual(['t4']);
    expect(fresh.supersedes).toEqual([{ userId: U, sessionId: a.chunk!.sessionId, chunkId: a.chunk!.chunkId }]);
    expect(fresh.keywords).toContain('berlin');
    expect(fresh.tokenCount).toBe(tokenizer.count(fresh.text));

    const updated = (await store.get(U, 's1', b.chunk!.chunkId))!;
    expect(updated.version).toBe(2);
    expect(updated.text).toBe('user: I work in Berlin as a baker');
    expect(updated.provenance).toEqual(['t3', 't4']);
    expect(updated.keywords).toContain('berlin');
    expect(updated.tokenCount).toBe(tokenizer.count(updated.text));

    expect(await store.get(U, 's1', a.chunk!.chunkId)).toBeNull();
    const tomb = (await listAll(store, U, { includeDeleted: true })).find((e) => e.chunkId === a.chunk!.chunkId)!;
    expect(tomb.entry.state).toBe('deleted');
    expect(tomb.entry.supersededBy).toEqual({ sessionId: 's1', chunkId: c.chunk!.chunkId });
    // History: the update and the delete kept what they ended, naming the chunk that superseded it.
    const hb = await store.history(U, 's1', b.chunk!.chunkId);
    expect(hb.map((v) => [v.version, v.cause])).toEqual([[2, null], [1, 'update']]);
    expect(hb[1]!.supersededBy).toEqual({ userId: U, sessionId: 's1', chunkId: c.chunk!.chunkId });
    expect(hb[1]!.record.text).not.toBe(updated.text);
    const ha = await store.history(U, 's1', a.chunk!.chunkId);
    expect(ha.map((v) => [v.version, v.cause])).toEqual([[1, 'delete']]);
    expect(ha[0]!.supersededBy).toEqual({ userId: U, sessionId: 's1', chunkId: c.chunk!.chunkId });
    expect(await memory.activeTurns({ user: U, session: 's1' })).toEqual([]);
  });

  it('shows SELECT only metadata and JOINT-COMPACT at most p bodies', async () => {
    memory = open({ topP: 2 });
    for (let i = 0; i < 4; i++) await chunkOf(memory, 's1', [[`t${i}`, `tea fact number ${i}`]]);
    model.selectHook = async (_q, candidates, topP) => candidates.slice(0, topP + 3).map((c) => c.id);
    await chunkOf(memory, 's1', [['t9', 'more tea facts']]);
    const sel = model.calls.select.at(-1)!;
    expect(sel.topP).toBe(2);
    expect(sel.candidates).toHaveLength(4);
    // Metadata only: the directory's fields, the matching terms stored with the keywords among them, and no text.
    for (const m of sel.candidates) expect(Object.keys(m).sort()).toEqual(['createdAt', 'id', 'keywordTerms', 'keywords', 'sessionId', 'tokenCount']);
    expect(model.calls.jointCompact.at(-1)!.related).toHaveLength(2);
  });

  it("reconciles across the user's sessions by default and only within the session with reconcileScope 'session'", async () => {
    await memory.close();
    memory = open({ reconcileScope: 'session' });
    const other = await chunkOf(memory, 's-old', [['o1', 'my favourite tea is oolong']]);
    await chunkOf(memory, 's-new', [['n1', 'tea tea tea']]);
    // Session scope: s-new has no prior chunk, so SELECT is not even asked.
    expect(model.calls.select).toHaveLength(0);

    await memory.close();
    memory = open();
    model.selectHook = async (_q, candidates) => candidates.filter((c) => c.sessionId === 's-old').map((c) => c.id);
    model.jointHook = async (fresh, related) => ({ text: fresh.text, updates: [], deletions: related.map((r) => r.id) });
    const c = await chunkOf(memory, 's-new', [['n2', 'my favourite tea is now sencha']]);
    expect(c.deleted).toEqual([other.chunk]);
    expect(await store.get(U, 's-old', other.chunk!.chunkId)).toBeNull();
  });

  it('never offers chunks it did not write (kind other than memory) for reconciliation', async () => {
    await store.put(U, { sessionId: 's1', kind: 'note', text: 'tea note', keywords: ['tea'] });
    await chunkOf(memory, 's1', [['t1', 'tea again']]);
    expect(model.calls.select).toHaveLength(0);
    await chunkOf(memory, 's1', [['t2', 'tea once more']]);
    expect(model.calls.select.at(-1)!.candidates).toHaveLength(1);
  });

  it('writes no new chunk when joint compaction folds everything into an update', async () => {
    const a = await chunkOf(memory, 's1', [['t1', 'the dog is called Rex']]);
    model.selectHook = async (_q, candidates) => candidates.map((c) => c.id);
    model.jointHook = async (_fresh, related) => ({ text: '', updates: [{ id: related[0]!.id, text: 'the dog is called Rex and is 3' }], deletions: [] });
    const c = await chunkOf(memory, 's1', [['t2', 'Rex is 3 years old']]);
    expect(c.chunk).toBeNull();
    expect(await listAll(store, U)).toHaveLength(1);
    expect((await store.get(U, 's1', a.chunk!.chunkId))!.provenance).toEqual(['t1', 't2']);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { memoryStore, ScriptedModel } from './fixtures.js';

const U = 'bob';

async function listed(store: AkashicStore, opts: { includeSuperseded?: boolean } = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.list(U, opts)) out.push(`${e.chunkId}${e.superseded === undefined ? '' : `~${e.superseded.cause}`}`);
  return out;
}

describe('supersession by a reconciliation', () => {
  let store: AkashicStore;
  let model: ScriptedModel;
  let memory: AkashicMemory;

  beforeEach(async () => {
    ({ store } = await memoryStore());
    model = new ScriptedModel();
    memory = new AkashicMemory(store, { model, chunkGateTokens: 10_000, reconcileScope: 'user', recallScope: 'user' });
  });
  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  it('a chunk the reconciliation supersedes is gone from recall and list, kept in history and includeSuperseded', async () => {
    await memory.appendTurn({ user: U, session: 's1', role: 'user', text: 'I work at Acme in the sales team.' });
    const first = (await memory.endSession({ user: U, session: 's1' })).compacted[0]!.chunk!;
    model.selectHook = async (_q, candidates) => candidates.map((c) => c.id);
    model.jointHook = async (fresh, related) => ({ text: fresh.text, updates: [], deletions: related.map((r) => r.id) });
    await memory.appendTurn({ user: U, session: 's2', role: 'user', text: 'I started at Globex in the sales team.' });
    const second = (await memory.endSession({ user: U, session: 's2' })).compacted[0]!;
    expect(second.deleted).toEqual([first]);

    const r = await memory.recall({ user: U, session: 's3', query: 'Where do I work in the sales team?' });
    expect(r.text).toContain('Globex');
    expect(r.text).not.toContain('Acme');
    expect(await listed(store)).toEqual([second.chunk!.chunkId]);
    expect(await listed(store, { includeSuperseded: true })).toEqual([`${first.chunkId}~delete`, second.chunk!.chunkId]);
    const h = await store.history(U, 's1', first.chunkId);
    expect(h.map((v) => [v.cause, v.supersededBy?.chunkId, v.record.text])).toEqual([['delete', second.chunk!.chunkId, 'user: I work at Acme in the sales team.']]);
    // The superseding chunk names what it superseded.
    expect((await store.get(U, 's2', second.chunk!.chunkId))!.supersedes).toEqual([{ userId: U, ...first }]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicError } from '../../src/errors.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { durableStores, listAll, ScriptedModel } from './fixtures.js';

const U = 'team';
const S = 'job-1';

describe.each(durableStores())('AkashicMemory agent and run scopes (%s)', (_name, open) => {
  let store: AkashicStore;
  let reopen: () => Promise<AkashicStore>;
  let cleanup: () => Promise<void>;
  let model: ScriptedModel;
  let memory: AkashicMemory;

  beforeEach(async () => {
    ({ store, reopen, cleanup } = await open());
    model = new ScriptedModel();
    memory = new AkashicMemory(store, { model, chunkGateTokens: 10_000, relocateEveryRecalls: 0 });
  });
  afterEach(async () => {
    await memory.close();
    await store.close();
    await cleanup();
  });

  it('compacts each scope of a session on its own, and the chunk carries the scope of its turns', async () => {
    await memory.appendTurn({ user: U, session: S, role: 'planner', text: 'plan: ship the parser on friday', agentId: 'planner', runId: 'r1' });
    await memory.appendTurn({ user: U, session: S, role: 'coder', text: 'code: the parser tests are green', agentId: 'coder', runId: 'r1' });
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'remember that I prefer tabs' });
    await memory.appendTurn({ user: U, session: S, role: 'planner', text: 'plan: then write the docs', agentId: 'planner', runId: 'r1' });
    const { compacted } = await memory.endSession({ user: U, session: S });
    expect(compacted).toHaveLength(3);
    const chunks = (await store.getMany(U, compacted.map((c) => c.chunk!))).chunks;
    const byText = chunks.map((r) => ({ text: r!.text, agentId: r!.agentId, runId: r!.runId }));
    expect(byText).toEqual([
      { text: 'planner: plan: ship the parser on friday\nplanner: plan: then write the docs', agentId: 'planner', runId: 'r1' },
      { text: 'coder: code: the parser tests are green', agentId: 'coder', runId: 'r1' },
      { text: 'user: remember that I prefer tabs', agentId: undefined, runId: undefined },
    ]);
    expect(await memory.activeTurns({ user: U, session: S })).toEqual([]);
  });

  it('fires the gate per scope: another agent\'s turns do not count toward it', async () => {
    // Asserts which append's gate fired, so each append awaits its compaction.
    const small = new AkashicMemory(store, { model, chunkGateTokens: 12, relocateEveryRecalls: 0, writeBack: 'await' });
    try {
      const a = await small.appendTurn({ user: U, session: S, role: 'a', text: 'alpha beta gamma delta epsilon', agentId: 'one' });
      expect(a.compacted).toBeUndefined();
      const b = await small.appendTurn({ user: U, session: S, role: 'b', text: 'zeta eta theta iota kappa', agentId: 'two' });
      expect(b.compacted).toBeUndefined();
      const c = await small.appendTurn({ user: U, session: S, role: 'a', text: 'lambda mu nu xi omicron pi', agentId: 'one' });
      expect(c.compacted?.turnIds).toEqual([a.turnId, c.turnId]);
      expect((await small.activeTurns({ user: U, session: S })).map((t) => [t.turnId, t.agentId])).toEqual([[b.turnId, 'two']]);
    } finally {
      await small.close();
    }
  });

  it('recalls by agent and run, active turns included, and never returns a chunk outside the scope', async () => {
    await memory.completeRequest({ user: U, session: S, agentId: 'planner', runId: 'r1', turns: [{ role: 'user', text: 'the launch is on friday' }] });
    await memory.completeRequest({ user: U, session: S, agentId: 'coder', runId: 'r2', turns: [{ role: 'user', text: 'the launch build is broken' }] });
    await memory.endSession({ user: U, session: S });
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'pending launch note', agentId: 'coder', runId: 'r2' });
    const recall = (sel: { agentId?: string | string[]; runId?: string }) => memory.recall({ user: U, session: S, query: 'launch', ...sel });
    const planner = await recall({ agentId: 'planner' });
    expect(planner.chunks.map((c) => c.agentId)).toEqual(['planner']);
    expect(planner.activeTurns).toEqual([]);
    const coder = await recall({ runId: 'r2' });
    expect(coder.chunks.map((c) => c.text)).toEqual(['user: the launch build is broken']);
    expect(coder.activeTurns.map((t) => t.text)).toEqual(['pending launch note']);
    const team = await recall({ agentId: ['planner', 'coder'] });
    expect(team.chunks.map((c) => c.agentId).sort()).toEqual(['coder', 'planner']);
  });

  it('reconciles only chunks of the compaction\'s own scope', async () => {
    await memory.completeRequest({ user: U, session: S, agentId: 'planner', turns: [{ role: 'user', text: 'deadline friday for the parser' }] });
    await memory.endSession({ user: U, session: S });
    await memory.completeRequest({ user: U, session: S, turns: [{ role: 'user', text: 'deadline friday for the parser, says the lead' }] });
    await memory.endSession({ user: U, session: S });
    model.selectHook = async (_q, candidates) => candidates.map((c) => c.id);
    model.jointHook = async (fresh, related) => ({ text: fresh.text, updates: [], deletions: related.map((r) => r.id) });
    const { compacted } = await memory.completeRequest({ user: U, session: S, agentId: 'planner', turns: [{ role: 'user', text: 'deadline moved: parser on monday' }] }).then(() => memory.endSession({ user: U, session: S }));
    // Only the planner's earlier chunk was a candidate, and only it was replaced; the unscoped one stays.
    expect(model.calls.select.at(-1)!.candidates).toHaveLength(1);
    expect(compacted[0]!.deleted).toHaveLength(1);
    const live = await listAll(store, U);
    expect(live.map((e) => e.entry.agentId ?? null).sort()).toEqual(['planner', null].sort());
  });

  it('keeps the turns\' scope across a reopen', async () => {
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'durable scoped turn', agentId: 'planner', runId: 'r9' });
    await memory.close();
    await store.close();
    store = await reopen();
    memory = new AkashicMemory(store, { model, chunkGateTokens: 10_000, relocateEveryRecalls: 0 });
    expect((await memory.activeTurns({ user: U, session: S })).map((t) => [t.agentId, t.runId])).toEqual([['planner', 'r9']]);
    const { compacted } = await memory.endSession({ user: U, session: S });
    expect((await store.get(U, S, compacted[0]!.chunk!.chunkId))?.agentId).toBe('planner');
  });

  it('rejects a bad agent or run id with AKASHIC_INVALID_ARGUMENT and changes nothing', async () => {
    const bad = (p: Promise<unknown>) => expect(p).rejects.toSatisfy((e) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
    await bad(memory.appendTurn({ user: U, session: S, role: 'user', text: 'x', agentId: 'a\u0000b' }));
    await bad(memory.appendTurn({ user: U, session: S, role: 'user', text: 'x', runId: '' }));
    await bad(memory.completeRequest({ user: U, session: S, agentId: 7 as unknown as string, turns: [{ role: 'user', text: 'x' }] }));
    await bad(memory.completeRequest({ user: U, session: S, turns: [{ role: 'user', text: 'ok' }, { role: 'user', text: 'x', agentId: 'x'.repeat(300) }] }));
    expect(await memory.activeTurns({ user: U, session: S })).toEqual([]);
  });
});

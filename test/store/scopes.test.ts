import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicError, AkashicMemory, type AkashicStore } from '../../src/index.js';
import { BACKENDS, type Backend } from '../support/backends.js';

const USERS = ['u1', 'u2'] as const;
const SESSIONS = ['s1', 's2'] as const;
const AGENTS = ['planner', 'coder', 'critic'] as const;
const RUNS = ['r1', 'r2'] as const;

interface Written {
  user: string;
  session: string;
  agent: string | undefined;
  run: string | undefined;
  chunkId: string;
}

const putArb = fc.record({
  user: fc.constantFrom(...USERS),
  session: fc.constantFrom(...SESSIONS),
  agent: fc.option(fc.constantFrom(...AGENTS), { nil: undefined }),
  run: fc.option(fc.constantFrom(...RUNS), { nil: undefined }),
});

const queryArb = fc.record({
  user: fc.constantFrom(...USERS),
  session: fc.option(fc.constantFrom(...SESSIONS), { nil: undefined }),
  // One agent, or a shared scope of several (a team's memory).
  agents: fc.option(fc.subarray([...AGENTS], { minLength: 1 }), { nil: undefined }),
  runs: fc.option(fc.subarray([...RUNS], { minLength: 1 }), { nil: undefined }),
});

describe.each(BACKENDS)('agent and run scopes on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  beforeAll(async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
  });
  afterAll(async () => {
    await store.close();
    await be.cleanup();
  });

  it('a scoped list or recall never returns a chunk outside its scope, and returns every chunk inside it (property)', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(putArb, { minLength: 1, maxLength: 16 }), fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (puts, queries) => {
        round++;
        const written: Written[] = [];
        // Each round writes under fresh sessions, so rounds do not see each other's chunks.
        const sess = (s: string): string => `${s}.${round}`;
        for (const p of puts) {
          const r = await store.put(p.user, {
            sessionId: sess(p.session),
            text: `fact about tea from ${p.agent ?? 'nobody'} in ${p.run ?? 'no run'}`,
            keywords: ['tea'],
            ...(p.agent === undefined ? {} : { agentId: p.agent }),
            ...(p.run === undefined ? {} : { runId: p.run }),
          });
          written.push({ user: p.user, session: sess(p.session), agent: p.agent, run: p.run, chunkId: r.chunkId });
        }
        const memory = new AkashicMemory(store, { chunkGateTokens: 100_000, relocateEveryRecalls: 0 });
        try {
          for (const q of queries) {
            const inScope = written.filter(
              (w) =>
                w.user === q.user &&
                (q.session === undefined || w.session === sess(q.session)) &&
                (q.agents === undefined || (w.agent !== undefined && (q.agents as readonly string[]).includes(w.agent))) &&
                (q.runs === undefined || (w.run !== undefined && (q.runs as readonly string[]).includes(w.run))),
            );
            const selector = { ...(q.agents === undefined ? {} : { agentId: q.agents }), ...(q.runs === undefined ? {} : { runId: q.runs }) };
            const got: string[] = [];
            for await (const e of store.list(q.user, { ...selector, ...(q.session === undefined ? {} : { sessionId: sess(q.session) }) })) {
              if (e.sessionId.endsWith(`.${round}`)) got.push(e.chunkId);
            }
            expect(got.sort()).toEqual(inScope.map((w) => w.chunkId).sort());
            // Recall at user scope: everything recalled is inside the scope (the budget may leave some out).
            const r = await memory.recall({ user: q.user, session: sess('s1'), query: 'tea', scope: 'user', topP: 64, memoryBudgetTokens: 100_000, ...selector });
            const allowed = new Set(
              written
                .filter((w) => w.user === q.user && (q.agents === undefined || (w.agent !== undefined && (q.agents as readonly string[]).includes(w.agent))) && (q.runs === undefined || (w.run !== undefined && (q.runs as readonly string[]).includes(w.run))))
                .map((w) => w.chunkId),
            );
            for (const c of r.chunks.filter((x) => x.sessionId.endsWith(`.${round}`))) expect(allowed.has(c.chunkId)).toBe(true);
            for (const c of r.chunks) expect(c.userId).toBe(q.user);
          }
        } finally {
          await memory.close();
        }
      }),
      { numRuns: 6 },
    );
    // A block never mixes tenants (users): verify checks every block's records against its user.
    const report = await store.verify();
    expect(report.problems.filter((p) => p.kind === 'block-mixes-users')).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('a team: each agent writes its own, the team reads all of them, an outsider none', async () => {
    const team = ['planner', 'coder'];
    await store.put('team', { sessionId: 'job', text: 'plan: ship on friday', agentId: 'planner', runId: 'run-7' });
    await store.put('team', { sessionId: 'job', text: 'code: tests are green', agentId: 'coder', runId: 'run-7' });
    await store.put('team', { sessionId: 'job', text: 'critic: risky rollout', agentId: 'critic', runId: 'run-8' });
    const texts = async (o: Parameters<AkashicStore['list']>[1]): Promise<string[]> => {
      const out: string[] = [];
      for await (const e of store.list('team', o)) out.push((await store.get('team', e.sessionId, e.chunkId))!.text);
      return out.sort();
    };
    expect(await texts({ agentId: team })).toEqual(['code: tests are green', 'plan: ship on friday']);
    expect(await texts({ agentId: 'critic' })).toEqual(['critic: risky rollout']);
    expect(await texts({ agentId: 'nobody' })).toEqual([]);
    expect(await texts({ runId: 'run-7', agentId: ['critic', 'coder'] })).toEqual(['code: tests are green']);
    expect(await texts({ agentId: 'planner' })).toEqual(['plan: ship on friday']);
    for (const bad of [{ agentId: [] }, { agentId: [''] }, { runId: 42 }, { agentId: 'a\u0000b' }]) {
      await expect(store.list('team', bad as never).next()).rejects.toSatisfy((e: unknown) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
    }
    await expect(store.put('team', { sessionId: 'job', text: 'x', agentId: '' })).rejects.toSatisfy((e: unknown) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
  });

  it('a default TTL per scope applies to puts of that scope only', async () => {
    let clock = 5_000_000;
    await store.close();
    store = await be.reopen({ blockCapacity: 4, now: () => clock, defaultTtlMs: 0, scopeTtl: [{ agent: 'scratch', ttlMs: 1000 }, { user: 'tmp', session: 'x', ttlMs: 500 }] });
    const a = await store.put('ttl', { sessionId: 's', text: 'scratch note', agentId: 'scratch' });
    const b = await store.put('ttl', { sessionId: 's', text: 'kept note', agentId: 'planner' });
    const c = await store.put('tmp', { sessionId: 'x', text: 'tmp x' });
    const d = await store.put('ttl', { sessionId: 's', text: 'own ttl wins', agentId: 'scratch', expiresAt: clock + 10_000 });
    expect((await store.get('ttl', 's', a.chunkId))!.expiresAt).toBe(5_001_000);
    expect((await store.get('ttl', 's', b.chunkId))!.expiresAt).toBeUndefined();
    expect((await store.get('tmp', 'x', c.chunkId))!.expiresAt).toBe(5_000_500);
    expect((await store.get('ttl', 's', d.chunkId))!.expiresAt).toBe(5_010_000);
    clock += 1000;
    expect(await store.get('ttl', 's', a.chunkId)).toBeNull();
    expect(await store.get('ttl', 's', b.chunkId)).not.toBeNull();
    await expect(be.reopen({ scopeTtl: [{ ttlMs: 5 }] })).rejects.toSatisfy((e: unknown) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
  });
});

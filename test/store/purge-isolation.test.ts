import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';

type Op = { user: number; session: number; kind: 'put' | 'update' | 'delete'; n: number };

/** Everything readable of one (user, session): ids, versions and texts, in key order. */
async function snapshotOf(store: AkashicStore, user: string, session: string): Promise<string[]> {
  const out: string[] = [];
  const refs = [];
  for await (const e of store.list(user, { sessionId: session, includeDeleted: true })) {
    out.push(`${e.chunkId}:${e.entry.state}:${e.entry.version}`);
    if (e.entry.state === 'live') refs.push({ sessionId: session, chunkId: e.chunkId });
  }
  for (const c of (await store.getMany(user, refs)).chunks) out.push(c!.text);
  return out;
}

describe('purge isolation (property)', () => {
  it('a purge of one user or session leaves every other scope byte-for-byte readable as before', async () => {
    const users = ['u0', 'u1', 'u2'];
    const sessions = ['s0', 's1', 's2'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ user: fc.nat(2), session: fc.nat(2), kind: fc.constantFrom<'put' | 'update' | 'delete'>('put', 'put', 'update', 'delete'), n: fc.nat(50) }), { minLength: 5, maxLength: 40 }),
        fc.nat(2),
        fc.option(fc.nat(2), { nil: null }),
        fc.boolean(),
        async (ops: Op[], victim, victimSession, cross) => {
          const store = await AkashicStore.open({ db: new MemoryLevel(), gc: { intervalMs: 0 }, blockCapacity: 3, crossSessionBlocks: cross });
          try {
            for (const op of ops) {
              const user = users[op.user]!;
              const session = sessions[op.session]!;
              const live = [];
              for await (const e of store.list(user, { sessionId: session })) live.push(e.chunkId);
              if (op.kind === 'put' || live.length === 0) await store.put(user, { sessionId: session, text: `${user}/${session} #${op.n}`, keywords: [`k${op.n}`] });
              else if (op.kind === 'update') await store.write(user, [{ op: 'update', sessionId: session, chunkId: live[op.n % live.length]!, text: `${user}/${session} upd ${op.n}` }]);
              else await store.write(user, [{ op: 'delete', sessionId: session, chunkId: live[op.n % live.length]! }]);
            }
            const user = users[victim]!;
            const session = victimSession === null ? null : sessions[victimSession]!;
            const before = new Map<string, string[]>();
            for (const u of users) for (const s of sessions) if (!(u === user && (session === null || s === session))) before.set(`${u}/${s}`, await snapshotOf(store, u, s));
            await store.purge(session === null ? { user } : { user, session });
            for (const [k, v] of before) {
              const [u, s] = k.split('/') as [string, string];
              expect(await snapshotOf(store, u, s)).toEqual(v);
            }
            if (session === null) expect(await store.sessions(user)).toEqual([]);
            else expect(await snapshotOf(store, user, session)).toEqual([]);
            expect((await store.verify()).problems).toEqual([]);
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { AkashicStore, type BlockInfo, type ChunkRef } from '../../src/index.js';
import { readOnlyScans } from '../../src/engine/internal-seams.js';
import { costBenefit } from '../../src/gc/victim-selection.js';
import { totalSlots } from '../../src/record/block-info.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

/**
 * GC keeps the blocks that can be victims in memory (store/reclaimable-blocks.ts) instead of scanning every block
 * info on every pass. These tests hold the pass to the rule it had when it scanned: the victims it takes are those
 * a full scan of the block infos picks, after any history of writes, relocations, passes and reopens.
 */

async function allInfos(store: AkashicStore): Promise<BlockInfo[]> {
  const view = store[readOnlyScans].snapshot();
  try {
    const out: BlockInfo[] = [];
    for await (const i of view.blockInfos()) out.push(i);
    return out;
  } finally {
    await view.close();
  }
}

/** The victim rule applied to a full scan of the block infos (the oracle). */
function scanVictims(infos: readonly BlockInfo[], threshold: number, maxBlocks: number, now: number, merge: { fill: number; capacity: number; maxBytes: number }): number[] {
  const sealed = infos.filter((i) => i.state === 'sealed');
  const phi = (i: BlockInfo): number => (totalSlots(i) === 0 ? 0 : (totalSlots(i) - i.liveSlots) / totalSlots(i));
  const byScore = sealed.filter((i) => phi(i) >= threshold).sort((a, b) => costBenefit(b, now) - costBenefit(a, now) || a.blockId - b.blockId);
  const under = sealed.filter((i) => phi(i) < threshold && i.liveSlots < merge.fill * merge.capacity && i.liveBytes < merge.fill * merge.maxBytes);
  const perUser = new Map<string, number>();
  for (const i of under) perUser.set(i.userId, (perUser.get(i.userId) ?? 0) + 1);
  const merges = under.filter((i) => perUser.get(i.userId)! >= 2).sort((a, b) => a.liveSlots - b.liveSlots || a.blockId - b.blockId);
  return [...byScore, ...merges].slice(0, maxBlocks).map((i) => i.blockId);
}

type Step =
  | { kind: 'put'; user: number; session: number; n: number }
  | { kind: 'update'; pick: number }
  | { kind: 'delete'; pick: number; n: number }
  | { kind: 'relocate'; pick: number; n: number }
  | { kind: 'gc'; threshold: number; maxBlocks: number }
  | { kind: 'purge'; user: number; session: number | null }
  | { kind: 'reopen' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('put' as const), user: fc.nat(2), session: fc.nat(1), n: fc.integer({ min: 1, max: 9 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(), n: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('relocate' as const), pick: fc.nat(), n: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('gc' as const), threshold: fc.constantFrom(0.05, 0.25, 0.5, 1), maxBlocks: fc.constantFrom(1, 2, 1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purge' as const), user: fc.nat(2), session: fc.option(fc.nat(1)) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
);

describe.each(BACKENDS)('GC victims without a scan on $name', ({ make }) => {
  let be: Backend | null = null;
  let store: AkashicStore | null = null;
  afterEach(async () => {
    await store?.close();
    await be?.cleanup();
    store = null;
    be = null;
  });

  it('takes the victims a full scan of the block infos picks, after any history of changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), fc.constantFrom(0, 0.5), async (steps, mergeBelowFill) => {
        be = await make();
        let clock = 1_000;
        const opts = { blockCapacity: 4, now: () => clock, gc: { intervalMs: 0, mergeBelowFill } };
        store = await be.open(opts);
        const live: { user: string; ref: ChunkRef }[] = [];
        // Chunks still live (purge and delete take them out), so updates and relocations name existing ones.
        let seq = 0;
        for (const s of steps) {
          clock += 7;
          const st: AkashicStore = store;
          if (s.kind === 'put') {
            for (let i = 0; i < s.n; i++) {
              const user = `u${s.user}`;
              const r = await st.put(user, { sessionId: `s${s.session}`, text: text(seq++, 12), keywords: [`k${seq % 5}`] });
              live.push({ user, ref: { sessionId: r.sessionId, chunkId: r.chunkId } });
            }
          } else if (s.kind === 'update' && live.length > 0) {
            const c = live[s.pick % live.length]!;
            await st.write(c.user, [{ op: 'update', ...c.ref, text: text(seq++, 14) }]);
          } else if (s.kind === 'delete' && live.length > 0) {
            for (let i = 0; i < s.n && live.length > 0; i++) {
              const [c] = live.splice((s.pick + i) % live.length, 1);
              await st.write(c!.user, [{ op: 'delete', ...c!.ref }]);
            }
          } else if (s.kind === 'relocate' && live.length > 0) {
            const user = live[s.pick % live.length]!.user;
            const mine = live.filter((c) => c.user === user).slice(0, s.n).map((c) => c.ref);
            await st.relocate(user, mine);
          } else if (s.kind === 'gc') {
            const infos = await allInfos(st);
            const expected = scanVictims(infos, s.threshold, s.maxBlocks, clock, { fill: mergeBelowFill, capacity: 4, maxBytes: st.options.blockMaxBytes });
            expect(await st[readOnlyScans].gcVictims(s.threshold, s.maxBlocks)).toBe(expected.length);
            const report = await st.gc({ threshold: s.threshold, maxBlocks: s.maxBlocks });
            expect(report.victims).toBe(expected.length);
            // The blocks the pass took are the ones it released (nothing races it here): compare them by id.
            const after = new Map((await allInfos(st)).map((i) => [i.blockId, i.state]));
            const taken = infos.filter((i) => i.state === 'sealed' && after.get(i.blockId) !== 'sealed').map((i) => i.blockId);
            expect(taken.sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
          } else if (s.kind === 'purge') {
            const user = `u${s.user}`;
            await st.purge(s.session === null ? { user } : { user, session: `s${s.session}` });
            for (let i = live.length - 1; i >= 0; i--) {
              const c = live[i]!;
              if (c.user === user && (s.session === null || c.ref.sessionId === `s${s.session}`)) live.splice(i, 1);
            }
          } else if (s.kind === 'reopen') {
            await st.close();
            store = await be.reopen(opts);
          }
        }
        expect((await store.verify()).ok).toBe(true);
        await store.close();
        store = null;
        await be.cleanup();
        be = null;
      }),
      { numRuns: 12 },
    );
  });
});

describe('a GC pass over clean blocks', () => {
  let dir: string | null = null;
  afterEach(async () => {
    if (dir !== null) await rm(dir, { recursive: true, force: true });
    dir = null;
  });

  it('reads no block info once the store knows which blocks GC can take', async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-gc-reads-'));
    const db = new ClassicLevel<string, Buffer>(join(dir, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    // Count every read of the block-info family at the root handle, which the engine's sublevels read through.
    let infoReads = 0;
    const isInfo = (k: unknown): boolean => typeof k === 'string' && k.startsWith('!binfo!');
    const iterator = db.iterator.bind(db);
    const get = db.get.bind(db);
    const getMany = db.getMany.bind(db);
    Object.assign(db, {
      iterator: (o: { gte?: unknown; gt?: unknown } = {}) => {
        if (isInfo(o.gte) || isInfo(o.gt)) infoReads++;
        return iterator(o as never);
      },
      get: (k: unknown, o?: unknown) => {
        if (isInfo(k)) infoReads++;
        return get(k as never, o as never);
      },
      getMany: (ks: unknown[], o?: unknown) => {
        infoReads += ks.filter(isInfo).length;
        return getMany(ks as never, o as never);
      },
    });
    const store = await AkashicStore.open({ db, blockCapacity: 4, durability: 'relaxed', gc: { intervalMs: 0 } });
    try {
      const refs: ChunkRef[] = [];
      for (let i = 0; i < 200; i++) {
        const r = await store.put('u', { sessionId: `s${i % 3}`, text: text(i, 10) });
        refs.push({ sessionId: r.sessionId, chunkId: r.chunkId });
      }
      // The first pass learns the reclaimable blocks with one scan of the block infos.
      const before = infoReads;
      expect((await store.gc()).victims).toBe(0);
      expect(infoReads).toBeGreaterThan(before);
      // Every later pass over these 50 clean sealed blocks reads none, with writes landing in between.
      for (let pass = 0; pass < 3; pass++) {
        await store.put('u', { sessionId: 's0', text: text(1000 + pass, 10) });
        const at = infoReads;
        const report = await store.gc();
        expect(report.victims).toBe(0);
        expect(report.eligible).toBe(0);
        expect(infoReads).toBe(at);
      }
      // A block with a dead slot is found without a scan too.
      await store.write('u', [{ op: 'delete', ...refs[0]! }, { op: 'delete', ...refs[1]! }]);
      const at = infoReads;
      expect(await store[readOnlyScans].gcVictims(0.3, 10)).toBe(1);
      expect(infoReads).toBe(at);
      expect((await store.gc({ threshold: 0.3 })).blocksReleased).toBe(1);
    } finally {
      await store.close();
    }
  });
});

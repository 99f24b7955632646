/**
 * Isolation under randomized multi-user workloads (fast-check): no API call or tool returns or moves another
 * user's chunk, and GC and relocation never mix users in a block — checked by verify()'s 'block-mixes-users' and by
 * a direct scan of every frame and record. User ids are chosen to stress prefixes and separators ('a', 'ab', 'a!',
 * 'a😀', ...), so that a key-range mistake would show.
 */
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeFrame } from '../../src/block/frame-codec.js';
import { AkashicStore, type ChunkRef } from '../../src/index.js';
import { AkashicMemory } from '../../src/memattention/index.js';
import { decodeBlockInfo } from '../../src/record/block-info.js';
import { decodeChunkRecord } from '../../src/record/chunk-record.js';
import { frameStoreKey } from '../../src/store/kv/keys.js';
import { dumpStore } from '../../src/admin/dump.js';
import { rawFamilies } from '../support/raw-families.js';

const USERS = ['a', 'ab', 'a!', 'a\uffff', 'a😀', '😀', 'b'] as const;
const SESSIONS = ['s', 's!', '😀'] as const;
const RUNS = 100;
const tried: Record<string, number> = {};
afterAll(() => {
  console.log(`isolation cases tried: ${JSON.stringify(tried)}`);
});

type Op =
  | { t: 'put'; u: number; s: number; words: number }
  | { t: 'update'; u: number; k: number }
  | { t: 'delete'; u: number; k: number }
  | { t: 'relocate'; u: number; from: number; ks: number[] }
  | { t: 'read'; u: number; from: number; ks: number[] }
  | { t: 'gc'; threshold: number; user: number | null }
  | { t: 'turn'; u: number; s: number }
  | { t: 'recall'; u: number; s: number; scope: 'session' | 'user' };

const user = fc.nat(USERS.length - 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('put' as const), u: user, s: fc.nat(SESSIONS.length - 1), words: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('update' as const), u: user, k: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), u: user, k: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('relocate' as const), u: user, from: user, ks: fc.array(fc.nat(), { minLength: 2, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('read' as const), u: user, from: user, ks: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('gc' as const), threshold: fc.constantFrom(0.05, 0.25, 0.5), user: fc.option(user, { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('turn' as const), u: user, s: fc.nat(SESSIONS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('recall' as const), u: user, s: fc.nat(SESSIONS.length - 1), scope: fc.constantFrom('session' as const, 'user' as const) }) },
);

/** Every frame and record of every non-released block belongs to the block's user (and session, when blocks are per session). */
async function scanBlocks(db: MemoryLevel<string, Buffer>, perSession: boolean): Promise<string[]> {
  const bad: string[] = [];
  const cf = rawFamilies(db);
  for await (const [k, v] of cf.blockInfo.iterator()) {
    const info = decodeBlockInfo(v, k);
    if (info.state === 'released') continue;
    const sessions = new Set<string>();
    for (let f = 0; f < info.frameSlots.length; f++) {
      const fk = frameStoreKey(info.userId, info.blockId, f);
      const frame = await decodeFrame((await cf.blocks.get(fk))!, fk);
      if (frame.userId !== info.userId) bad.push(`${fk} is framed for ${frame.userId}, block of ${info.userId}`);
      for (const bytes of frame.records) {
        const r = decodeChunkRecord(bytes, fk);
        if (r.userId !== info.userId) bad.push(`${fk} holds a record of ${r.userId} in a block of ${info.userId}`);
        sessions.add(r.sessionId);
      }
    }
    if (perSession && sessions.size > 1) bad.push(`block ${info.blockId} mixes sessions ${[...sessions].join(', ')}`);
  }
  return bad;
}

describe('isolation', () => {
  it('relocation keeps sessions apart when blocks are per session (crossSessionBlocks: false)', async () => {
    const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const store = await AkashicStore.open({ db, blockCapacity: 4, crossSessionBlocks: false, gc: { intervalMs: 0 } });
    try {
      // Two sessions of eight chunks: each session fills two blocks of its own.
      const refs: ChunkRef[] = [];
      for (let i = 0; i < 16; i++) {
        const r = await store.put('a', { sessionId: `s${i % 2}`, text: `chunk ${i}` });
        refs.push({ sessionId: r.sessionId, chunkId: r.chunkId });
      }
      // Chunks from four blocks, two per session: relocation writes one block per session, never one for both.
      const r = await store.relocate('a', [refs[0]!, refs[8]!, refs[1]!, refs[9]!]);
      expect(r).toMatchObject({ moved: 4, blocksBefore: 4, blocksAfter: 2, skipped: false });
      expect(await scanBlocks(db, true)).toEqual([]);
      expect((await store.verify()).ok).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('isolation (property-based)', () => {
  it('randomized multi-user workloads never cross users, in any call, tool, GC pass or relocation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 60 }), fc.boolean(), async (ops, crossSession) => {
        tried['workloads'] = (tried['workloads'] ?? 0) + 1;
        const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
        const store = await AkashicStore.open({ db, blockCapacity: 4, crossSessionBlocks: crossSession, gc: { intervalMs: 0 } });
        const memory = new AkashicMemory(store, { chunkGateTokens: 40, relocateSync: true, relocateEveryRecalls: 1 });
        try {
          // The model: each user's chunks (text names the owner, so a leak is visible in the content too).
          const chunks = USERS.map(() => [] as { ref: ChunkRef; text: string; live: boolean }[]);
          const pick = (u: number, ks: readonly number[]): ChunkRef[] => {
            const mine = chunks[u]!;
            return mine.length === 0 ? [] : [...new Set(ks.map((k) => k % mine.length))].map((k) => mine[k]!.ref);
          };
          let turn = 0;
          for (const op of ops) {
            tried['ops'] = (tried['ops'] ?? 0) + 1;
            switch (op.t) {
              case 'put': {
                const text = `owner ${USERS[op.u]} ${'word '.repeat(op.words)}`;
                const r = await store.put(USERS[op.u]!, { sessionId: SESSIONS[op.s]!, text, kind: 'note', keywords: ['shared'] });
                chunks[op.u]!.push({ ref: { sessionId: r.sessionId, chunkId: r.chunkId }, text, live: true });
                break;
              }
              case 'update':
              case 'delete': {
                const live = chunks[op.u]!.filter((c) => c.live);
                if (live.length === 0) break;
                const c = live[op.k % live.length]!;
                if (op.t === 'delete') {
                  await store.write(USERS[op.u]!, [{ op: 'delete', ...c.ref }]);
                  c.live = false;
                } else {
                  c.text = `owner ${USERS[op.u]} updated ${op.k}`;
                  await store.write(USERS[op.u]!, [{ op: 'update', ...c.ref, text: c.text }]);
                }
                break;
              }
              case 'relocate': {
                // Relocating with another user's refs moves nothing of theirs.
                const refs = pick(op.from, op.ks);
                if (refs.length < 2) break;
                const r = await store.relocate(USERS[op.u]!, refs);
                if (op.u !== op.from) expect(r.moved).toBe(0);
                break;
              }
              case 'read': {
                const refs = pick(op.from, op.ks);
                const r = await store.getMany(USERS[op.u]!, refs);
                for (const c of r.chunks) if (c !== null) expect(c.userId).toBe(USERS[op.u]);
                if (op.u !== op.from) expect(r.chunks.every((c) => c === null)).toBe(true);
                break;
              }
              case 'gc':
                await store.gc(op.user === null ? { threshold: op.threshold } : { threshold: op.threshold, userId: USERS[op.user]! });
                break;
              case 'turn':
                await memory.appendTurn({ user: USERS[op.u]!, session: SESSIONS[op.s]!, role: 'user', text: `owner ${USERS[op.u]} turn ${turn++} shared words here` });
                break;
              case 'recall': {
                const r = await memory.recall({ user: USERS[op.u]!, session: SESSIONS[op.s]!, query: 'shared owner words', scope: op.scope });
                for (const c of r.chunks) {
                  expect(c.userId).toBe(USERS[op.u]);
                  if (op.scope === 'session') expect(c.sessionId).toBe(SESSIONS[op.s]);
                }
                for (const t of r.activeTurns) expect(t.text).toContain(`owner ${USERS[op.u]} `);
                break;
              }
            }
          }

          // Block-level: no block, frame or record mixes users; verify agrees.
          expect(await scanBlocks(db, !crossSession)).toEqual([]);
          const v = await store.verify();
          expect(v.problems).toEqual([]);
          // Call-level: every listing, read and dump of a user holds that user's chunks only, all of them.
          const all = chunks.flatMap((cs, u) => cs.map((c) => ({ ...c, u })));
          for (let u = 0; u < USERS.length; u++) {
            const listed = [];
            for await (const e of store.list(USERS[u]!)) listed.push(e);
            expect(listed.every((e) => e.userId === USERS[u])).toBe(true);
            const read = await store.getMany(USERS[u]!, all.map((c) => c.ref));
            read.chunks.forEach((c, i) => {
              const want = all[i]!;
              if (want.u === u && want.live) expect(c?.text).toBe(want.text);
              else if (c !== null) expect(c.userId).toBe(USERS[u]); // a memory chunk of this user may share no ref; others must be null
              if (want.u !== u) expect(c).toBeNull();
            });
            const memoryChunks = listed.filter((e) => e.entry.kind === 'memory').length;
            expect(listed.length - memoryChunks).toBe(chunks[u]!.filter((c) => c.live).length);
            const lines: string[] = [];
            await dumpStore(store, (l) => lines.push(l), { userId: USERS[u]! });
            for (const l of lines.slice(1)) expect((JSON.parse(l) as { userId: string }).userId).toBe(USERS[u]);
            // The dump holds the user's chunk lines, then the user's active turns (turn lines).
            expect(lines.slice(1).filter((l) => (JSON.parse(l) as { type: string }).type === 'chunk').length).toBe(listed.length);
            expect((await store.sessions(USERS[u]!)).every((s) => (SESSIONS as readonly string[]).includes(s))).toBe(true);
          }
          const users = await store.users();
          expect(new Set(users).size).toBe(users.length);
        } finally {
          await memory.close();
          await store.close();
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});

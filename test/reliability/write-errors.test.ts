/**
 * The write-error latch: after any storage write error (disk full, I/O error) the store refuses every later write
 * with AKASHIC_READ_ONLY — chunk writes, active turns, co-access, relocation, GC, counter flushes — until it is
 * closed and reopened; reads keep working; nothing acknowledged is lost after the reopen. Errors are injected
 * through the abstract-level seam on both backends (disk-full.test.ts does the same on a real full tmpfs).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { CO_ACCESS_FLUSH_EVERY } from '../../src/store/write/co-access-buffer.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { afterEach, describe, expect, it } from 'vitest';
import { AkashicMemory, AkashicStore, EmbeddedModel } from '../../src/index.js';
import type { AnyLevel } from '../../src/api/store-options.js';
import { injectWriteFaults, type WriteFaults } from '../support/failing-writes.js';

interface Rig {
  store: AkashicStore;
  faults: WriteFaults;
  reopen(): Promise<AkashicStore>;
  cleanup(): Promise<void>;
}

const quiet = { gc: { intervalMs: 0 }, durability: 'sync' as const, blockCapacity: 4 };

const RIGS: readonly { name: string; make(): Promise<Rig> }[] = [
  {
    name: 'classic-level',
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'akashic-write-errors-'));
      const path = join(dir, 'db');
      const db = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
      const faults = injectWriteFaults(db as unknown as AnyLevel);
      const store = await AkashicStore.open({ ...quiet, db: db as unknown as AnyLevel });
      // Reopening means a fresh LevelDB handle on the directory, as a restarted process would have.
      return { store, faults, reopen: () => AkashicStore.open({ ...quiet, path }), cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'memory-level',
    async make() {
      const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
      const faults = injectWriteFaults(db as unknown as AnyLevel);
      const store = await AkashicStore.open({ ...quiet, db: db as unknown as AnyLevel });
      return { store, faults, reopen: () => AkashicStore.open({ ...quiet, db: db as unknown as AnyLevel }), cleanup: async () => undefined };
    },
  },
];

const refused = { name: 'AkashicError', code: 'AKASHIC_READ_ONLY' };

/** Every write path of the public API, each expected to be refused once the latch is closed. */
async function expectEveryWriteRefused(store: AkashicStore, memory: AkashicMemory, live: { sessionId: string; chunkId: string }[]): Promise<void> {
  const [a, b] = live;
  await expect(store.put('u', { sessionId: 's', text: 'after the failure' })).rejects.toMatchObject(refused);
  await expect(store.write('u', [{ op: 'update', sessionId: a!.sessionId, chunkId: a!.chunkId, text: 'changed' }])).rejects.toMatchObject(refused);
  await expect(store.write('u', [{ op: 'delete', sessionId: b!.sessionId, chunkId: b!.chunkId }])).rejects.toMatchObject(refused);
  const record = (await store.get('u', a!.sessionId, a!.chunkId))!;
  await expect(store.restore('u', [{ ...record, version: record.version + 1 }])).rejects.toMatchObject(refused);
  await expect(store.relocate('u', live)).rejects.toMatchObject(refused);
  await expect(store.recordCoAccess('u', live)).rejects.toMatchObject(refused);
  await expect(store.gc({ threshold: 0.01 })).rejects.toMatchObject(refused);
  await expect(memory.appendTurn({ user: 'u', session: 's', role: 'user', text: 'one more turn' })).rejects.toMatchObject(refused);
  await expect(memory.endSession({ user: 'u', session: 's' })).rejects.toMatchObject(refused);
}

describe.each(RIGS)('write-error latch on $name', ({ make }) => {
  let rig: Rig;
  let stores: AkashicStore[] = [];
  afterEach(async () => {
    for (const s of stores) await s.close();
    stores = [];
    await rig.cleanup();
  });

  /** Acknowledged state: 6 chunks (some updated and deleted, so GC has victims) and one active turn. */
  async function seed(store: AkashicStore, memory: AkashicMemory): Promise<{ live: { sessionId: string; chunkId: string; text: string }[] }> {
    const live: { sessionId: string; chunkId: string; text: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const t = `chunk ${i} about tea and travel`;
      const r = await store.put('u', { sessionId: 's', text: t, keywords: ['tea'] });
      live.push({ sessionId: 's', chunkId: r.chunkId, text: t });
    }
    await store.write('u', [{ op: 'delete', sessionId: 's', chunkId: live[6]!.chunkId }, { op: 'delete', sessionId: 's', chunkId: live[7]!.chunkId }]);
    live.length = 6;
    await memory.appendTurn({ user: 'u', session: 's', role: 'user', text: 'an acknowledged turn' });
    return { live };
  }

  async function expectAcknowledged(store: AkashicStore, live: { sessionId: string; chunkId: string; text: string }[]): Promise<void> {
    const got = await store.getMany('u', live);
    expect(got.chunks.map((c) => c?.text)).toEqual(live.map((l) => l.text));
    const memory = new AkashicMemory(store, { model: new EmbeddedModel() });
    expect((await memory.activeTurns({ user: 'u', session: 's' })).map((t) => t.text)).toContain('an acknowledged turn');
    await memory.close();
    expect((await store.verify()).ok).toBe(true);
  }

  const firstFailures: { what: string; fail(store: AkashicStore, memory: AkashicMemory, live: { sessionId: string; chunkId: string }[]): Promise<unknown> }[] = [
    { what: 'a chunk put', fail: (s) => s.put('u', { sessionId: 's', text: 'lost to the disk' }) },
    { what: 'an active-turn append', fail: (_s, m) => m.appendTurn({ user: 'u', session: 's', role: 'user', text: 'lost turn' }) },
    {
      // Co-access is counted in memory and persisted every CO_ACCESS_FLUSH_EVERY observations: that write fails.
      what: 'co-access recording',
      fail: async (s, _m, live) => {
        for (let i = 0; i < CO_ACCESS_FLUSH_EVERY; i++) await s.recordCoAccess('u', live);
      },
    },
    { what: 'a relocation commit', fail: (s, _m, live) => s.relocate('u', [live[0]!, live[5]!]) },
    { what: 'a GC commit', fail: (s) => s.gc({ threshold: 0.01 }) },
  ];

  for (const { what, fail } of firstFailures) {
    it(`after ${what} fails, every write is refused until reopen; reads work; nothing acknowledged is lost`, async () => {
      rig = await make();
      stores.push(rig.store);
      const memory = new AkashicMemory(rig.store, { model: new EmbeddedModel() });
      const { live } = await seed(rig.store, memory);
      rig.faults.failAt(1);
      await expect(fail(rig.store, memory, live)).rejects.toMatchObject({ name: 'AkashicError', code: 'AKASHIC_IO' });
      expect(rig.store.writeError?.code).toBe('AKASHIC_IO');
      const writesAtLatch = rig.faults.writes;
      await expectEveryWriteRefused(rig.store, memory, live);
      // Refused writes never reach the database (the injected failure was one-shot: they would have succeeded).
      expect(rig.faults.writes).toBe(writesAtLatch);
      // Reads keep working, recall included (it just records no co-access).
      expect((await rig.store.get('u', live[0]!.sessionId, live[0]!.chunkId))?.text).toBe(live[0]!.text);
      await memory.recall({ user: 'u', session: 's', query: 'tea travel' });
      expect(rig.faults.writes).toBe(writesAtLatch);
      await memory.close();
      await rig.store.close();
      stores = [];
      const reopened = await rig.reopen();
      stores.push(reopened);
      expect(reopened.writeError).toBeNull();
      await expectAcknowledged(reopened, live);
      const after = await reopened.put('u', { sessionId: 's', text: 'writes work again' });
      expect((await reopened.get('u', 's', after.chunkId))?.text).toBe('writes work again');
    });
  }

  it('a counter flush that fails at close latches too and close still completes', async () => {
    rig = await make();
    stores.push(rig.store);
    const memory = new AkashicMemory(rig.store, { model: new EmbeddedModel() });
    const { live } = await seed(rig.store, memory);
    await memory.close();
    await rig.store.getMany('u', live); // bumps the retrieval counters, so close has something to flush
    rig.faults.failAt(1);
    await rig.store.close();
    expect(rig.store.status).toBe('closed');
    stores = [];
    const reopened = await rig.reopen();
    stores.push(reopened);
    await expectAcknowledged(reopened, live);
  });
});

/**
 * Under `durability: 'sync'` a commit's frames are made durable (fdatasync of every frame file it wrote) before the
 * LevelDB batch that references them. A failed sync — an I/O error reported by the disk — must fail every write of
 * the group commit, leave nothing of it in the store, and latch the store read-only like any other storage error.
 * The error is injected at the file-system boundary: `FileHandle.datasync`, on a real database on disk.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { BLOCKS_PER_SEGMENT } from '../../src/store/file-frame-store.js';

type DatasyncFn = () => Promise<void>;

/** FileHandle's prototype, patched for the test and restored after it. */
async function fileHandlePrototype(dir: string): Promise<{ datasync: DatasyncFn }> {
  const h = await open(join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(h) as { datasync: DatasyncFn };
  await h.close();
  return proto;
}

describe('a failed fdatasync of a frame file under sync durability', () => {
  let dir: string;
  let proto: { datasync: DatasyncFn };
  let original: DatasyncFn;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-frame-sync-'));
    proto = await fileHandlePrototype(dir);
    original = proto.datasync;
  });
  afterEach(async () => {
    proto.datasync = original;
    await rm(dir, { recursive: true, force: true });
  });

  it('fails the whole group commit, lands none of it, and refuses writes until a reopen', async () => {
    const path = join(dir, 'db');
    const opts = { path, durability: 'sync' as const, gc: { intervalMs: 0 } };
    // More users than a segment file holds blocks: their open blocks span at least two segment files.
    const users = Array.from({ length: BLOCKS_PER_SEGMENT + 4 }, (_, i) => `user${i}`);
    let store = await AkashicStore.open(opts);
    const before = new Map<string, string>();
    for (const u of users) before.set(u, (await store.put(u, { sessionId: 's', text: `first note of ${u}` })).chunkId);

    // Armed: record which files the group syncs, and fail one of the syncs with EIO.
    const synced = new Set<number>();
    let calls = 0;
    proto.datasync = function (this: { fd: number }): Promise<void> {
      synced.add(this.fd);
      calls++;
      if (calls === 2) return Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      return original.call(this);
    };
    // All queued in one tick: one group commit, one batch for all of them.
    const outcomes = await Promise.allSettled(users.map((u) => store.put(u, { sessionId: 's', text: `second note of ${u}` })));
    proto.datasync = original;

    expect(synced.size).toBeGreaterThanOrEqual(2); // the group wrote frames into two segment files or more
    // Every write of the group is rejected, each with a typed error naming the failed sync: the store latched on it,
    // so the group's writes are not retried one by one (AKASHIC_READ_ONLY, caused by the AKASHIC_IO of the sync).
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      const err = (o as PromiseRejectedResult).reason as { name: string; code: string; message: string };
      expect(err.name).toBe('AkashicError');
      expect(['AKASHIC_IO', 'AKASHIC_READ_ONLY']).toContain(err.code);
      expect(err.message).toContain('EIO');
    }
    expect(store.writeError?.code).toBe('AKASHIC_IO');
    expect(store.writeError?.message).toContain('EIO');
    await expect(store.put(users[0]!, { sessionId: 's', text: 'after the failure' })).rejects.toMatchObject({ code: 'AKASHIC_READ_ONLY' });
    // Reads keep working.
    expect((await store.get(users[0]!, 's', before.get(users[0]!)!))?.text).toBe(`first note of ${users[0]}`);
    await store.close();

    store = await AkashicStore.open(opts);
    try {
      for (const u of users) {
        const listed = [];
        for await (const e of store.list(u)) listed.push(e);
        expect(listed.map((e) => e.chunkId)).toEqual([before.get(u)]);
        expect((await store.get(u, 's', before.get(u)!))?.text).toBe(`first note of ${u}`);
      }
      expect((await store.verify()).ok).toBe(true);
      // Writable again after the reopen, and the new write lands where the failed group's frames were left.
      const r = await store.put(users[0]!, { sessionId: 's', text: 'after the reopen' });
      expect((await store.get(users[0]!, 's', r.chunkId))?.text).toBe('after the reopen');
      expect((await store.verify()).ok).toBe(true);
    } finally {
      await store.close();
    }
  });
});

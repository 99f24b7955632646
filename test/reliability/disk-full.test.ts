/**
 * A real full disk: the store lives on an 8 MiB tmpfs. A put fails with ENOSPC; space is freed; the store refuses
 * every later write (AKASHIC_READ_ONLY) instead of acknowledging writes LevelDB would drop at recovery; reopening
 * with the disk still full fails with AKASHIC_IO (not "not found"); after space is freed and the store reopened,
 * every acknowledged chunk is there and new writes are durable. Needs root (mount); skipped with the reason
 * otherwise.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';

let mountPoint = '';
let mountError: string | null = null;

beforeAll(async () => {
  mountPoint = await mkdtemp(join(tmpdir(), 'akashic-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (err) {
    mountError = `cannot mount a tmpfs (needs root): ${(err as Error).message.split('\n')[0]}`;
  }
});

afterAll(async () => {
  if (mountError === null) {
    // A failed test can leave a store open on the mount (EBUSY): detach it lazily rather than leak the mount.
    try {
      execFileSync('umount', [mountPoint], { stdio: 'pipe' });
    } catch {
      execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
    }
  }
  await rm(mountPoint, { recursive: true, force: true });
});

describe('a full disk (8 MiB tmpfs, 5 MiB of it taken by a ballast file)', () => {
  // Relaxed durability writes frames with a direct pwrite, sync durability through the thread pool: a write cut short
  // by the full disk must fail the put in both, never leave an acknowledged chunk with a torn frame.
  for (const durability of ['sync', 'relaxed'] as const) {
    it(`refuses writes after ENOSPC until reopened, and loses nothing acknowledged (${durability})`, async (ctx) => {
      if (mountError !== null) {
        ctx.skip(mountError);
        return;
      }
      const path = join(mountPoint, `db-${durability}`);
      const ballast = join(mountPoint, 'ballast');
      await writeFile(ballast, Buffer.alloc(5 * 1024 * 1024, 7));
      const opts = { path, durability, gc: { intervalMs: 0 } };
      let store = await AkashicStore.open(opts);
      const acked: { chunkId: string; text: string }[] = [];
      let failure: unknown = null;
      // Incompressible text, so the disk fills in a bounded number of puts.
      let x = 12345;
      const noise = (n: number): string => {
        let s = '';
        for (let i = 0; i < n; i++) {
          x = (x * 1103515245 + 12345) >>> 0;
          s += String.fromCharCode(33 + (x % 90));
        }
        return s;
      };
      for (let i = 0; i < 2000 && failure === null; i++) {
        const text = `#${i} ${noise(8 * 1024)}`;
        try {
          const r = await store.put('u', { sessionId: 's', text });
          acked.push({ chunkId: r.chunkId, text });
        } catch (err) {
          failure = err;
        }
      }
      expect(failure).toMatchObject({ name: 'AkashicError', code: 'AKASHIC_IO' });
      expect(String((failure as Error).message)).toMatch(/space/i);
      expect(acked.length).toBeGreaterThan(10);

      // Space comes back; the store still refuses: LevelDB's log may hold a torn record, and anything written after
      // it would be dropped at the next recovery.
      await rm(ballast);
      for (let i = 0; i < 20; i++) {
        await expect(store.put('u', { sessionId: 's', text: `after #${i}` })).rejects.toMatchObject({ name: 'AkashicError', code: 'AKASHIC_READ_ONLY' });
      }
      const first = acked[0]!;
      expect((await store.get('u', 's', first.chunkId))?.text).toBe(first.text);
      await store.close();

      // Fill the disk again: reopening (LevelDB recovery writes the log into a table) fails as an I/O error. Recovery
      // needs about as much free space as the log holds, which is why the ballast was large.
      await writeFile(ballast, Buffer.alloc(0));
      let filler = 0;
      try {
        for (;;) {
          await writeFile(join(mountPoint, `fill-${filler++}`), Buffer.alloc(64 * 1024, 1));
        }
      } catch {
        // the disk is full
      }
      try {
        await AkashicStore.open(opts).then(
          async (s) => {
            // Recovery happened to fit; that is fine too, as long as nothing was lost.
            expect((await s.get('u', 's', first.chunkId))?.text).toBe(first.text);
            await s.close();
          },
          (err: unknown) => expect(err).toMatchObject({ name: 'AkashicError', code: 'AKASHIC_IO' }),
        );
      } finally {
        for (let i = 0; i < filler; i++) await rm(join(mountPoint, `fill-${i}`), { force: true });
        await rm(ballast, { force: true });
      }

      store = await AkashicStore.open(opts);
      const got = await store.getMany('u', acked.map((a) => ({ sessionId: 's', chunkId: a.chunkId })));
      expect(got.chunks.map((c) => c?.text)).toEqual(acked.map((a) => a.text));
      expect((await store.verify()).ok).toBe(true);
      const later: { chunkId: string; text: string }[] = [];
      for (let i = 0; i < 20; i++) {
        const text = `later #${i}`;
        later.push({ chunkId: (await store.put('u', { sessionId: 's', text })).chunkId, text });
      }
      await store.close();
      store = await AkashicStore.open(opts);
      const again = await store.getMany('u', [...acked, ...later].map((a) => ({ sessionId: 's', chunkId: a.chunkId })));
      expect(again.chunks.map((c) => c?.text)).toEqual([...acked, ...later].map((a) => a.text));
      await store.close();
      await rm(path, { recursive: true, force: true });
    }, 60_000);
  }
});

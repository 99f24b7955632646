/**
 * Opening by URL: bad combinations and bad URLs are refused with AKASHIC_INVALID_ARGUMENT before anything connects
 * (no Redis needed), and the 'replicated' durability is refused where no backend honours it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';

describe('AkashicStore.open with url', () => {
  it('refuses url together with path or db, and URLs that are not Redis URLs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-url-'));
    try {
      const cases: object[] = [
        { url: 'redis://127.0.0.1:1', path: join(dir, 'db') },
        { url: 'redis://127.0.0.1:1', db: new MemoryLevel() },
        { url: 'http://127.0.0.1:1' },
        { url: '' },
        { url: 42 },
        { url: 'redis://a:1,b:2' },
        { url: 'redis://127.0.0.1:1?prefix=a}b' },
      ];
      for (const o of cases) await expect(AkashicStore.open(o as never), JSON.stringify(o)).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses durability 'replicated' on a directory or an in-memory database", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-url-'));
    try {
      await expect(AkashicStore.open({ path: join(dir, 'db'), durability: 'replicated' })).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
      await expect(AkashicStore.open({ db: new MemoryLevel(), durability: 'replicated' })).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
      await expect(AkashicStore.open({ db: new MemoryLevel(), durability: 'fsync' as never })).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails with AKASHIC_IO, not a hang, when nothing answers at the URL', async () => {
    await expect(AkashicStore.open({ url: 'redis://127.0.0.1:1', gc: { intervalMs: 0 } })).rejects.toMatchObject({ code: 'AKASHIC_IO' });
  }, 30_000);
});

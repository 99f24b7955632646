import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { AkashicError, AkashicStore, isAkashicError } from '../../src/index.js';

describe('error codes', () => {
  it('AKASHIC_LOCKED names the lock when another process holds the database', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-lock-'));
    const path = join(dir, 'db');
    const store = await AkashicStore.open({ path, gc: { intervalMs: 0 } });
    try {
      // A second process: the real cross-process case.
      const script = `import('${new URL('../../dist/src/index.js', import.meta.url).href}').then(async ({ AkashicStore }) => {
        try { await AkashicStore.open({ path: ${JSON.stringify(path)} }); console.log('opened'); }
        catch (e) { console.log(e.code + ' ' + e.message); }
      })`;
      const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(out.stdout).toMatch(/^AKASHIC_LOCKED .*LOCK/);
      // And within this process too.
      const err = await AkashicStore.open({ path }).catch((e: unknown) => e);
      expect(isAkashicError(err, 'AKASHIC_LOCKED')).toBe(true);
      expect((err as AkashicError).cause).toBeDefined();
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('AKASHIC_NOT_OPEN after close, and close is idempotent', async () => {
    const store = await AkashicStore.open({ db: new MemoryLevel(), gc: { intervalMs: 0 } });
    await store.close();
    await store.close();
    await expect(store.stats()).rejects.toMatchObject({ code: 'AKASHIC_NOT_OPEN' });
    await expect(store.write('u', [{ op: 'put', sessionId: 's', text: 'x' }])).rejects.toBeInstanceOf(AkashicError);
  });

  it('AKASHIC_INVALID_ARGUMENT for bad options, naming the option', async () => {
    await expect(AkashicStore.open({ db: new MemoryLevel(), blockCapacity: 0 })).rejects.toThrow(/blockCapacity/);
    await expect(AkashicStore.open({ db: new MemoryLevel(), gc: { threshold: 2 } })).rejects.toThrow(/gc.threshold/);
    await expect(AkashicStore.open({})).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
  });

  it('AKASHIC_CONFLICT when a put reuses an existing id', async () => {
    const store = await AkashicStore.open({ db: new MemoryLevel(), gc: { intervalMs: 0 } });
    const r = await store.put('u', { sessionId: 's', text: 'x' });
    await expect(store.put('u', { sessionId: 's', chunkId: r.chunkId, text: 'y' })).rejects.toMatchObject({ code: 'AKASHIC_CONFLICT' });
    await store.close();
  });

  it('AKASHIC_NOT_FOUND opening a missing database read-only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-missing-'));
    await expect(AkashicStore.open({ path: join(dir, 'nope'), readOnly: true })).rejects.toMatchObject({ code: 'AKASHIC_NOT_FOUND' });
    await rm(dir, { recursive: true, force: true });
  });

  it('AKASHIC_FORMAT_VERSION for a database of another format', async () => {
    const db = new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const store = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    await store.close();
    await db.open();
    const meta = db.sublevel<string, Buffer>('meta', { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const v = Buffer.from((await meta.get('engine'))!);
    v[4] = 99;
    await meta.put('engine', v);
    await db.close();
    await expect(AkashicStore.open({ db })).rejects.toMatchObject({ code: 'AKASHIC_FORMAT_VERSION' });
  });
});

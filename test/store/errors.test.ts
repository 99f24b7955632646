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

  describe('meta/format: the database format and the oldest engine format that may open it', () => {
    const formatRecord = (format: number, readableFrom: number): Buffer => {
      const v = Buffer.alloc(8);
      v.writeUInt32LE(format, 0);
      v.writeUInt32LE(readableFrom, 4);
      return v;
    };
    const snapshot = async (db: MemoryLevel<string, Buffer>): Promise<string[]> => {
      await db.open();
      const out: string[] = [];
      for await (const [k, v] of db.iterator()) out.push(`${k}=${v.toString('hex')}`);
      await db.close();
      return out;
    };
    const ids: string[] = [];
    const created = async () => {
      const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
      const store = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
      const { chunkId } = await store.put('u', { sessionId: 's', text: 'kept', keywords: ['kept'] });
      await store.close();
      ids.push(chunkId);
      const meta = async () => {
        await db.open();
        return db.sublevel<string, Buffer>('meta', { keyEncoding: 'utf8', valueEncoding: 'buffer' });
      };
      return { db, meta };
    };

    it('a new database records its format', async () => {
      const { db, meta } = await created();
      const v = await (await meta()).get('format');
      expect(v?.length).toBe(8);
      expect(v!.readUInt32LE(0)).toBe(v!.readUInt32LE(4));
      expect(v!.readUInt32LE(0)).toBeGreaterThanOrEqual(5);
      await db.close();
    });

    it('a database that needs a newer engine is refused, writable or read-only, and left unchanged', async () => {
      const { db, meta } = await created();
      await (await meta()).put('format', formatRecord(1000, 999));
      await db.close();
      const before = await snapshot(db);
      for (const readOnly of [false, true]) {
        const err = await AkashicStore.open({ db, readOnly, gc: { intervalMs: 0 } }).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'AKASHIC_FORMAT_VERSION' });
        expect(String((err as Error).message)).toContain('999');
        if (db.status === 'open') await db.close();
      }
      expect(await snapshot(db)).toEqual(before);
    });

    it('a newer format that this engine may still open is opened and its record kept', async () => {
      const { db, meta } = await created();
      const current = (await (await meta()).get('format'))!;
      const newer = formatRecord(current.readUInt32LE(0) + 1, current.readUInt32LE(4));
      await (await meta()).put('format', newer);
      await db.close();
      const store = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
      expect((await store.get('u', 's', ids[ids.length - 1]!))?.text).toBe('kept');
      await store.close();
      expect((await (await meta()).get('format'))!.equals(newer)).toBe(true);
      await db.close();
    });

    it('a database written before the record gets it at a writable open; a read-only open refuses it', async () => {
      const { db, meta } = await created();
      await (await meta()).del('format');
      await db.close();
      // Such a database needs the format upgrade, which a read-only open refuses (and writes nothing).
      await expect(AkashicStore.open({ db, readOnly: true, gc: { intervalMs: 0 } })).rejects.toMatchObject({ code: 'AKASHIC_FORMAT_VERSION' });
      if (db.status === 'open') await db.close();
      expect(await (await meta()).get('format')).toBeUndefined();
      await db.close();
      const rw = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
      await rw.close();
      expect((await (await meta()).get('format'))?.length).toBe(8);
      await db.close();
    });

    it('a record of the wrong size is corruption', async () => {
      const { db, meta } = await created();
      await (await meta()).put('format', Buffer.from([5]));
      await db.close();
      await expect(AkashicStore.open({ db, gc: { intervalMs: 0 } })).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    });
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

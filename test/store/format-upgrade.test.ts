/**
 * A database written by the format-5 engine (test/fixtures/format5: two users, updates, a delete, expiring chunks,
 * a relocation, co-access counts and active turns, frames in frame files) opens and upgrades to format 6: every
 * chunk, kept version, expiry and active turn reads back as the format-5 engine read it, the accounting keeps its
 * figures, verify() is clean, and the upgraded database keeps working.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicStore, type StoreStats } from '../../src/index.js';
import { dumpStore } from '../../src/admin/dump.js';
import { DATABASE_FORMAT } from '../../src/store/kv/database-format.js';
import { SEP } from '../../src/store/kv/keys.js';
import { rawFamilies } from '../support/raw-families.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/format5/', import.meta.url));

async function dumpText(store: AkashicStore, path: string): Promise<string> {
  const out = createWriteStream(path);
  await dumpStore(store, out);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return readFile(path, 'utf8');
}

/** The texts of a user's live chunks (of one session), in key order. */
async function texts(store: AkashicStore, userId: string, sessionId?: string): Promise<{ chunkId: string; version: number; text: string }[]> {
  const out: { chunkId: string; version: number; text: string }[] = [];
  for await (const e of store.list(userId, sessionId === undefined ? {} : { sessionId })) {
    const r = await store.get(userId, e.sessionId, e.chunkId);
    if (r !== null) out.push({ chunkId: e.chunkId, version: r.version, text: r.text });
  }
  return out;
}

/** The figures of `stats()` that describe the data (not the process or the directory). */
function figures(s: StoreStats | Record<string, unknown>): Record<string, unknown> {
  // The format-5 engine recorded no model usage; conflicts retried are counted per process since open.
  const { diskBytes: _d, postingMerge: _p, modelUsage: _m, conflictsRetried: _c, ...rest } = s as StoreStats;
  return rest;
}

describe('format-5 database upgrade', () => {
  let dir: string;
  let db: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-upgrade-'));
    db = join(dir, 'db');
    await cp(join(FIXTURE, 'db'), db, { recursive: true });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back every chunk, version, expiry and active turn, keeps the accounting, and verifies clean', async () => {
    const store = await AkashicStore.open({ path: db });
    try {
      expect((await store.verify()).problems).toEqual([]);
      // The whole logical content, byte for byte as the format-5 engine dumped it.
      expect(await dumpText(store, join(dir, 'after.jsonl'))).toBe(await readFile(join(FIXTURE, 'expected-dump.jsonl'), 'utf8'));
      // The accounting: the same figures the format-5 engine reported (totals are now sums over users).
      const before = JSON.parse(await readFile(join(FIXTURE, 'expected-stats.json'), 'utf8')) as Record<string, unknown>;
      expect(figures(await store.stats())).toEqual(figures(before));
      // Kept versions, newest first.
      const revised = (await texts(store, 'alice', 's1')).find((e) => e.version === 3)!;
      const versions = await store.history('alice', 's1', revised.chunkId);
      expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
    } finally {
      await store.close();
    }

    // Every key of every per-user family now starts with its user; the format record says 6.
    const level = new ClassicLevel<string, Buffer>(db, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await level.open();
    try {
      const cf = rawFamilies(level);
      for (const family of [cf.blockInfo, cf.expiry, cf.dir, cf.active]) {
        for await (const k of family.keys()) expect(['alice', 'bób']).toContain(k.slice(0, k.indexOf(SEP)));
      }
      for await (const k of cf.history.keys()) expect(['alice', 'bób']).toContain(k.split(SEP)[1]);
      const format = (await cf.meta.get('format'))!;
      expect(format.readUInt32LE(0)).toBe(DATABASE_FORMAT);
    } finally {
      await level.close();
    }
  });

  it('sweeps what expired through the rebuilt expiry index, and keeps working after the upgrade', async () => {
    // A clock past the fixture's short-lived chunk and before the long-lived one.
    const store = await AkashicStore.open({ path: db, now: () => Date.UTC(2027, 0, 1) });
    try {
      expect(await store.sweepExpired()).toMatchObject({ expired: 1, stale: 0, more: false });
      expect((await texts(store, 'bób')).some((e) => e.text === 'bob short lived')).toBe(false);
      expect((await texts(store, 'alice', 's3')).map((e) => e.text)).toEqual(['alice temporary plan']);
      const put = await store.put('alice', { sessionId: 's1', text: 'written after the upgrade' });
      await store.write('bób', [{ op: 'update', sessionId: 'chat', chunkId: (await texts(store, 'bób'))[0]!.chunkId, text: 'bob updated after the upgrade' }]);
      expect((await store.get('alice', 's1', put.chunkId))?.text).toBe('written after the upgrade');
      expect((await store.gc({ threshold: 0.1 })).blocksReleased).toBeGreaterThanOrEqual(0);
      expect((await store.verify()).problems).toEqual([]);
    } finally {
      await store.close();
    }
    // Reopened: nothing to upgrade, everything still there.
    const again = await AkashicStore.open({ path: db, readOnly: true });
    try {
      expect((await again.verify()).problems).toEqual([]);
      expect((await again.stats()).chunks).toBe(15);
    } finally {
      await again.close();
    }
  });

  it('refuses a read-only open of a format-5 database, naming the upgrade, and changes nothing', async () => {
    await expect(AkashicStore.open({ path: db, readOnly: true })).rejects.toMatchObject({ code: 'AKASHIC_FORMAT_VERSION' });
    const level = new ClassicLevel<string, Buffer>(db, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await level.open();
    try {
      const format = (await rawFamilies(level).meta.get('format'))!;
      expect(format.readUInt32LE(0)).toBe(5);
    } finally {
      await level.close();
    }
  });
});

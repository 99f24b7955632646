/**
 * The table check before LevelDB opens a directory: a damaged table is refused with AKASHIC_CORRUPTION and nothing
 * is changed; tables that passed are listed in AKASHIC-VERIFIED-TABLES and not read again while their size and
 * modification time stay the same; a read-only open writes nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicStore, isAkashicError } from '../../src/index.js';
import { checkTables, VERIFIED_TABLES_FILE } from '../../src/store/leveldb/table-check.js';
import { salvage } from '../../src/engine/salvage.js';
import { seedStore } from './helpers.js';

async function digest(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name === 'LOCK') continue;
    // The engine's frame files live in a subdirectory.
    if (e.isDirectory()) for (const [k, v] of Object.entries(await digest(join(dir, e.name)))) out[`${e.name}/${k}`] = v;
    else out[e.name] = createHash('sha256').update(await readFile(join(dir, e.name))).digest('hex');
  }
  return out;
}

describe('table check at open', () => {
  let dir: string;
  let db: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-tablecheck-'));
    db = join(dir, 'db');
    const store = await AkashicStore.open({ path: db, gc: { intervalMs: 0 }, durability: 'relaxed' });
    await seedStore(store, ['u1', 'u2'], 60, 20);
    await store.close();
    // The reopen replays the log into a table; the open after it checks that table and records it.
    await (await AkashicStore.open({ path: db, gc: { intervalMs: 0 } })).close();
    await (await AkashicStore.open({ path: db, gc: { intervalMs: 0 } })).close();
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records checked tables and skips them while size and time are unchanged', async () => {
    const tables = (await readdir(db)).filter((n) => n.endsWith('.ldb'));
    expect(tables.length).toBeGreaterThan(0);
    const listed = await readFile(join(db, VERIFIED_TABLES_FILE), 'utf8');
    for (const t of tables) expect(listed).toContain(`${t} `);
    expect((await checkTables(db, { trustVerified: true })).checked).toBe(0);
    expect((await checkTables(db, { trustVerified: false })).checked).toBe(tables.length);
  });

  it('a flipped byte in a table is refused with AKASHIC_CORRUPTION naming salvage, and nothing is changed', async () => {
    const table = (await readdir(db)).find((n) => n.endsWith('.ldb'))!;
    const bytes = await readFile(join(db, table));
    const at = Math.floor(bytes.length / 3);
    bytes[at] = bytes[at]! ^ 0x01;
    await writeFile(join(db, table), bytes);
    const before = await digest(db);
    for (const readOnly of [false, true]) {
      const err = await AkashicStore.open({ path: db, gc: { intervalMs: 0 }, readOnly }).then(
        async (s) => {
          await s.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(isAkashicError(err) && err.code).toBe('AKASHIC_CORRUPTION');
      expect((err as Error).message).toContain(table);
      expect((err as Error).message).toContain('akashic salvage');
    }
    expect(await digest(db)).toEqual(before);
  });

  it('a listed table damaged in place (its time changes) is checked again and refused', async () => {
    const table = (await readdir(db)).find((n) => n.endsWith('.ldb'))!;
    const bytes = await readFile(join(db, table));
    bytes[10] = bytes[10]! ^ 0x80;
    await writeFile(join(db, table), bytes);
    await expect(AkashicStore.open({ path: db, gc: { intervalMs: 0 } })).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
  });

  it('a partial table no MANIFEST names (a compaction killed mid-write) is not damage: the open succeeds', async () => {
    const table = (await readdir(db)).find((n) => n.endsWith('.ldb'))!;
    const bytes = await readFile(join(db, table));
    // The crash test found this: a table cut short by a kill, numbered above every live file.
    await writeFile(join(db, '999999.ldb'), bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect((await checkTables(db, { trustVerified: false })).damage).toEqual([]);
    const s = await AkashicStore.open({ path: db, gc: { intervalMs: 0 } });
    expect((await s.verify()).ok).toBe(true);
    await s.close();
  });

  it('salvage leaves a partial table no MANIFEST names alone: no loss reported, no LevelDB repair, every chunk copied', async () => {
    const table = (await readdir(db)).find((n) => n.endsWith('.ldb'))!;
    const bytes = await readFile(join(db, table));
    await writeFile(join(db, '999999.ldb'), bytes.subarray(0, Math.floor(bytes.length / 2)));
    const report = await salvage(db, join(dir, 'salvaged'));
    expect(report.storageErrors).toEqual([]);
    expect(report.repairedLevelDb).toBe(false);
    expect(report.complete).toBe(true);
    expect(report.copied).toBe(120);
  });

  it('a read-only open checks but writes no list', async () => {
    await rm(join(db, VERIFIED_TABLES_FILE));
    const before = await digest(db);
    const s = await AkashicStore.open({ path: db, readOnly: true });
    await s.close();
    expect(await digest(db)).toEqual(before);
  });
});

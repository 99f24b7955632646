/**
 * A damaged write-ahead log: opening refuses with AKASHIC_CORRUPTION pointing at salvage, before LevelDB replays
 * (and deletes) the log, so no stale or deleted chunk is ever served and the evidence stays on disk; a torn tail
 * (a crash mid-write) opens normally. Read-only commands never change a byte of the source directory.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AkashicStore, salvage } from '../../src/index.js';
import { buildSample, runMain, tempDir } from '../cli/fixtures.js';

/** Name → SHA-256 of every file in the directory. */
async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // The engine's frame files live in a subdirectory.
    if (e.isDirectory()) for (const [k, v] of Object.entries(await hashes(join(dir, e.name)))) out[`${e.name}/${k}`] = v;
    else out[e.name] = createHash('sha256').update(await readFile(join(dir, e.name))).digest('hex');
  }
  return out;
}

async function logFile(dir: string): Promise<string> {
  const logs = (await readdir(dir)).filter((n) => n.endsWith('.log'));
  expect(logs.length).toBe(1);
  return join(dir, logs[0]!);
}

let dispose: () => Promise<void> = async () => undefined;
afterEach(async () => dispose());

async function sampleDb(): Promise<string> {
  const t = await tempDir();
  dispose = t.dispose;
  const path = join(t.dir, 'db');
  await buildSample(path); // closed: LevelDB leaves every write in its log until the next open replays it
  return path;
}

describe('a damaged write-ahead log', () => {
  it('single-byte flips anywhere in the log: open refuses with AKASHIC_CORRUPTION naming salvage, and changes nothing', async () => {
    const path = await sampleDb();
    const log = await logFile(path);
    const good = await readFile(log);
    expect(good.length).toBeGreaterThan(4096);
    let refused = 0;
    for (const at of [3, 7 + 20, Math.floor(good.length / 3), Math.floor(good.length / 2), good.length - 200, good.length - 2]) {
      const bad = Buffer.from(good);
      bad[at] = bad[at]! ^ 0x10;
      await writeFile(log, bad);
      const before = await hashes(path);
      const opened = await AkashicStore.open({ path, gc: { intervalMs: 0 } }).then(
        async (s) => {
          await s.close();
          return null;
        },
        (err: unknown) => err,
      );
      expect(opened, `flip at ${at}`).toMatchObject({ name: 'AkashicError', code: 'AKASHIC_CORRUPTION' });
      expect(String((opened as Error).message)).toMatch(/akashic salvage/);
      refused++;
      expect(await hashes(path)).toEqual(before);
    }
    expect(refused).toBe(6);
    await writeFile(log, good);
    const store = await AkashicStore.open({ path, gc: { intervalMs: 0 } });
    expect((await store.verify()).ok).toBe(true);
    await store.close();
  });

  it('a torn tail (a crash mid-write) opens normally', async () => {
    const path = await sampleDb();
    const log = await logFile(path);
    const size = (await readFile(log)).length;
    await truncate(log, size - 5);
    const store = await AkashicStore.open({ path, gc: { intervalMs: 0 } });
    expect((await store.users()).length).toBeGreaterThan(0);
    await store.close();
  });

  it('salvage --from a damaged log copies what is readable, reports the damage, and leaves the source byte-identical', async () => {
    const path = await sampleDb();
    const log = await logFile(path);
    const bad = await readFile(log);
    const mid = Math.floor(bad.length / 2);
    bad[mid] = bad[mid]! ^ 0x10;
    await writeFile(log, bad);
    const before = await hashes(path);
    const report = await salvage(path, join(path, '..', 'salvaged'));
    expect(report.complete).toBe(false);
    expect(report.storageErrors.join('\n')).toMatch(/write-ahead log .* checksum mismatch/);
    expect(await hashes(path)).toEqual(before);
    const target = await AkashicStore.open({ path: join(path, '..', 'salvaged'), gc: { intervalMs: 0 } });
    expect((await target.verify()).ok).toBe(true);
    await target.close();
  });
});

describe('read-only commands never write the source', () => {
  it('verify, dump, inspect, stats, blocks and report leave every file byte-identical (a log pending replay included)', async () => {
    const path = await sampleDb();
    const before = await hashes(path);
    expect(Object.keys(before).some((n) => n.endsWith('.log'))).toBe(true);
    for (const args of [['verify'], ['dump'], ['inspect'], ['stats'], ['stats', '--json'], ['blocks'], ['report', '--out', join(path, '..', 'r.html')]]) {
      const r = await runMain([...args, '--db', path]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(await hashes(path), args.join(' ')).toEqual(before);
    }
    // The working copies are gone too.
    expect((await readdir(join(path, '..'))).filter((n) => n.startsWith('.akashic-readonly-'))).toEqual([]);
  });

  it('a read-only open of a database held open elsewhere is refused as locked', async () => {
    const path = await sampleDb();
    const writer = await AkashicStore.open({ path, gc: { intervalMs: 0 } });
    try {
      await expect(AkashicStore.open({ path, readOnly: true })).rejects.toMatchObject({ code: 'AKASHIC_LOCKED' });
    } finally {
      await writer.close();
    }
  });
});

/**
 * A damaged LevelDB table file (.ldb), flipped after the database was closed. classic-level 3 opens LevelDB with
 * paranoid_checks off and reads with verify_checksums off, so LevelDB notices only damage that breaks a block's
 * snappy compression or structure (LEVEL_CORRUPTION); anything else reaches Akashic, whose own checksummed
 * envelope on every value catches it. The contract either way: a typed AkashicError or the right data, never a
 * crash and never wrong data; verify() reports the damage; salvage copies what is readable into a clean database.
 *
 * Each damaged copy is probed in a child process (fixtures/damaged-db-probe.ts), so that a native crash would
 * show up as a dead child instead of a dead test runner.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import type { ProbeOutcome } from './fixtures/damaged-db-probe.js';
import { planUlid } from '../../tools/crash-test/content.js';
import { text } from '../helpers/backends.js';
import type { Seeded } from './helpers.js';

const probe = fileURLToPath(new URL('../../dist/test/reliability/fixtures/damaged-db-probe.js', import.meta.url));

/** Where in the table file the bytes are flipped (fractions of its length). */
const POSITIONS = [0.02, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95, 0.98, 0.99, 0.995, 0.999];

describe('a damaged LevelDB table file', () => {
  let dir: string;
  let pristine: string;
  let expectedPath: string;
  let table = '';
  const outcomes: { at: number; o: ProbeOutcome }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-ldb-'));
    pristine = join(dir, 'pristine');
    // Deterministic contents (ids, clock), so every run damages the same table structures at each position.
    const store = await AkashicStore.open({ path: pristine, gc: { intervalMs: 0 }, durability: 'relaxed', blockCapacity: 8, now: () => 1_700_000_000_000 });
    const seeded: Seeded[] = [];
    for (const userId of ['alice', 'bob', 'carol']) {
      for (let i = 0; i < 200; i += 20) {
        const ops = Array.from({ length: 20 }, (_, j) => ({
          op: 'put' as const,
          sessionId: `s${(i + j) % 2}`,
          chunkId: planUlid(0, seeded.length + j, 7 * (seeded.length + j)),
          text: `${userId} #${i + j} ${text(i + j, 12)}`,
        }));
        await store.write(userId, ops);
        for (const o of ops) seeded.push({ userId, sessionId: o.sessionId, chunkId: o.chunkId, text: o.text });
      }
    }
    await store.close();
    // Reopening replays the log into a level-0 table: afterwards everything lives in .ldb files.
    await (await AkashicStore.open({ path: pristine, gc: { intervalMs: 0 } })).close();
    table = (await readdir(pristine)).find((f) => f.endsWith('.ldb')) ?? '';
    const expected = Object.fromEntries(seeded.map((s) => [`${s.userId}/${s.sessionId}/${s.chunkId}`, s]));
    expectedPath = join(dir, 'expected.json');
    await writeFile(expectedPath, JSON.stringify(expected));
  }, 60_000);

  afterAll(async () => {
    // What LevelDB noticed, position by position (kept in the test log; docs/reliability.md summarizes it).
    console.log(
      outcomes
        .map(({ at, o }) => `${at}: open ${o.openError ?? 'ok'}, reads ok ${o.readOk} typed ${JSON.stringify(o.typed)} missing ${o.missing}, verify ${o.verify === null ? '-' : o.verify.ok ? 'ok' : o.verify.kinds.join('+')}, salvage ${'error' in o.salvage ? o.salvage.error : `${o.salvage.copied} copied/${o.salvage.skipped} skipped/${o.salvage.storageErrors} unreadable regions${o.salvage.repaired ? ' (repaired copy)' : ''}`}`)
        .join('\n'),
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('the fixture holds its data in one table file and the probe is built', () => {
    expect(table).toMatch(/\.ldb$/);
    expect(existsSync(probe)).toBe(true);
  });

  it.each(POSITIONS)('flipped bytes at %s of the table: typed errors or correct data, verify reports, salvage is clean', async (at) => {
    const db = join(dir, `damaged-${at}`);
    await cp(pristine, db, { recursive: true });
    const file = join(db, table);
    const bytes = await readFile(file);
    const start = Math.min(bytes.length - 16, Math.floor(bytes.length * at));
    for (let i = start; i < start + 16; i++) bytes[i] = bytes[i]! ^ 0xa5;
    await writeFile(file, bytes);

    const run = spawnSync(process.execPath, [probe, db, expectedPath, join(dir, `salvaged-${at}`)], { encoding: 'utf8', timeout: 60_000 });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    const o = JSON.parse(run.stdout.trim().split('\n').pop()!) as ProbeOutcome;
    outcomes.push({ at, o });

    expect(o.untyped).toEqual([]);
    expect(o.wrong).toEqual([]);
    if (o.openError !== null) {
      expect(['AKASHIC_CORRUPTION', 'AKASHIC_IO']).toContain(o.openError);
    } else {
      // A chunk that exists is never reported missing (a damaged filter block would do that to point lookups).
      expect(o.missing).toBe(0);
      // Whatever a read could not deliver, verify() reports.
      if (Object.values(o.typed).reduce((a, b) => a + b, 0) > 0) expect(o.verify?.ok).toBe(false);
    }
    if ('error' in o.salvage) {
      // LevelDB could not be opened even after repairing a copy: a typed refusal.
      expect(o.salvage.error).toMatch(/^AKASHIC_/);
    } else {
      expect(o.salvagedVerifyOk).toBe(true);
      expect(o.salvagedWrong).toEqual([]);
      expect(o.salvagedChunks).toBe(o.salvage.copied);
    }
  });
});

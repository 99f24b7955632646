import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { buildProgram } from '../../src/cli/main.js';
import { LIVE_DATABASE_HINT } from '../../src/cli/cli-context.js';
import { buildSample, openStore, runCli, runMain, tempDir } from './fixtures.js';

describe('exit statuses', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let db: string;
  beforeAll(async () => {
    tmp = await tempDir();
    db = join(tmp.dir, 'db');
    await buildSample(db);
  });
  afterAll(async () => tmp.dispose());

  it('a db held by another process: exit 3 and one line naming the holder, the LOCK file, the code and what to do', async () => {
    const holder = await openStore(db);
    try {
      const emptyDump = '{"type":"header","format":1,"engineVersion":"0.1.0","user":null,"session":null,"chunks":0}\n';
      for (const cmd of [['stats', '--db', db], ['dump', '--db', db], ['gc', '--db', db], ['load', '--db', db]]) {
        const r = await runCli(cmd, emptyDump);
        expect(r.code).toBe(3);
        expect(r.stdout).toBe('');
        // The holder is this test process; the CLI runs in a child.
        expect(r.stderr).toBe(`akashic: database is locked by process ${process.pid} (lock file ${join(db, 'LOCK')}) [AKASHIC_LOCKED]. ${LIVE_DATABASE_HINT}\n`);
      }
    } finally {
      await holder.close();
    }
  });

  it('usage errors exit 2; a missing database exits 1', async () => {
    expect((await runMain(['stats'])).code).toBe(2);
    expect((await runMain(['stats'])).stderr).toContain("required option '--db <dir|url>' not specified");
    expect((await runMain(['frobnicate'])).code).toBe(2);
    expect((await runMain([])).code).toBe(2);
    expect((await runMain(['gc', '--db', db, '--threshold', '1.5'])).stderr).toContain('expected a number in (0, 1]');
    expect((await runMain(['gc', '--db', db, '--max-blocks', '0'])).code).toBe(2);
    expect((await runMain(['dump', '--db', db, '--user', 'a\tb'])).code).toBe(2);
    const missing = await runMain(['stats', '--db', join(tmp.dir, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`akashic: no database at ${join(tmp.dir, "nope")}: the directory does not exist [AKASHIC_NOT_FOUND]\n`);
  });

  it('every registered command has --help with an example, exit 0', async () => {
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), stderrIsTTY: false, stdoutIsTTY: false };
    const registered = buildProgram(io).commands.map((c) => c.name());
    for (const mine of ['inspect', 'stats', 'dump', 'load', 'blocks', 'verify', 'gc', 'report']) expect(registered).toContain(mine);
    expect(registered.length).toBeGreaterThanOrEqual(COMMANDS.length);
    for (const name of registered) {
      const r = await runMain([name, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: akashic ${name}`);
      expect(r.stdout).toMatch(new RegExp(`Example:\\n {2}\\$ akashic ${name} `));
    }
    const top = await runMain(['--help']);
    expect(top.code).toBe(0);
    for (const name of registered) expect(top.stdout).toContain(`  ${name} `);
  });

  it('gc runs a pass and prints the GcReport', async () => {
    const r = await runCli(['gc', '--db', db, '--threshold', '0.2', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, number>;
    expect(Object.keys(report)).toEqual(['eligible', 'victims', 'blocksReleased', 'blocksWritten', 'chunksMoved', 'conflicts', 'affinityFallbacks', 'damagedBlocks']);
    expect(report['victims']).toBeGreaterThan(0);
    expect((await runCli(['verify', '--db', db])).code).toBe(0);
    const text = await runMain(['gc', '--db', db]);
    expect(text.stdout).toMatch(/^eligible: \d+\nvictims: \d+\n/);
  });
});

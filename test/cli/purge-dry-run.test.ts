import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSample, runMain, tempDir } from './fixtures.js';

describe('akashic purge: unknown scope and --dry-run', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let db: string;
  beforeAll(async () => {
    tmp = await tempDir();
    db = join(tmp.dir, 'db');
    await buildSample(db);
  }, 60_000);
  afterAll(async () => tmp.dispose());

  it('a user or session the database does not hold: exit 1, AKASHIC_NOT_FOUND named, nothing changed', async () => {
    const before = (await runMain(['dump', '--db', db])).stdout;
    const user = await runMain(['purge', '--db', db, '--user', 'Bob']);
    expect(user.code).toBe(1);
    expect(user.stdout).toBe('');
    expect(user.stderr).toBe('akashic: the database holds nothing of user "Bob": nothing to purge [AKASHIC_NOT_FOUND]\n');
    const session = await runMain(['purge', '--db', db, '--user', 'alice', '--session', 'no-such-session', '--dry-run']);
    expect(session.code).toBe(1);
    expect(session.stderr).toContain('session "no-such-session" of user "alice"');
    expect((await runMain(['dump', '--db', db])).stdout).toBe(before);
  }, 60_000);

  it('--dry-run lists every chunk that would go and changes nothing; the real purge then erases that many', async () => {
    const before = (await runMain(['dump', '--db', db])).stdout;
    const dry = await runMain(['purge', '--db', db, '--user', 'alice', '--dry-run']);
    expect(dry.code).toBe(0);
    const listed = dry.stdout.split('\n').filter((l) => l.startsWith('would erase chunk '));
    expect(listed.length).toBeGreaterThan(0);
    expect(dry.stdout).toMatch(/nothing was changed\n$/);
    expect((await runMain(['dump', '--db', db])).stdout).toBe(before);

    const json = await runMain(['purge', '--db', db, '--user', 'alice', '--dry-run', '--json']);
    const plan = JSON.parse(json.stdout) as { dryRun: boolean; chunks: { state: string }[] };
    expect(plan.dryRun).toBe(true);
    expect(plan.chunks).toHaveLength(listed.length);

    const real = await runMain(['purge', '--db', db, '--user', 'alice', '--json']);
    expect(real.code).toBe(0);
    const report = JSON.parse(real.stdout) as { purge: { chunks: number; tombstones: number } };
    expect(report.purge.chunks + report.purge.tombstones).toBe(listed.length);
    expect((await runMain(['purge', '--db', db, '--user', 'alice'])).code).toBe(1);
  }, 60_000);
});

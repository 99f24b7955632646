import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSample, openStore, runCli, runMain, tempDir } from './fixtures.js';

/** Files under `dir` (the frame files' subdirectory included) whose bytes hold `marker`. */
async function filesHolding(dir: string, marker: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesHolding(path, marker)).map((n) => `${e.name}/${n}`));
    else if ((await readFile(path)).includes(Buffer.from(marker))) out.push(e.name);
  }
  return out;
}

describe('akashic purge', () => {
  let t: { dir: string; dispose: () => Promise<void> };
  let path: string;
  beforeEach(async () => {
    t = await tempDir();
    path = join(t.dir, 'db');
    await buildSample(path);
  });
  afterEach(() => t.dispose());

  it('erases a user: exit 0, dump shows nothing of it, no file holds its unique bytes', async () => {
    const marker = `alice-secret-${randomBytes(16).toString('hex')}`;
    const store = await openStore(path);
    await store.put('alice', { sessionId: 's9', text: `the code is ${marker}`, keywords: [marker] });
    await store.close();
    expect((await filesHolding(path, marker)).length).toBeGreaterThan(0);

    const r = await runCli(['purge', '--db', path, '--user', 'alice']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^chunks: 7$/m);
    expect(r.stdout).toMatch(/^compacted: true$/m);
    expect(r.stdout).toMatch(/^verified: ok$/m);

    const dump = await runMain(['dump', '--db', path]);
    expect(dump.code).toBe(0);
    const lines = dump.stdout.trim().split('\n').slice(1).map((l) => JSON.parse(l) as { userId: string });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.userId === 'alice')).toEqual([]);
    expect(await filesHolding(path, marker)).toEqual([]);
    expect((await runMain(['verify', '--db', path])).code).toBe(0);
  });

  it('erases one session and prints JSON', async () => {
    const r = await runMain(['purge', '--db', path, '--user', 'bob', '--session', 's1', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { purge: { sessionId: string; chunks: number }; verify: { ok: boolean } };
    expect(out.purge.sessionId).toBe('s1');
    expect(out.purge.chunks).toBeGreaterThan(0);
    expect(out.verify.ok).toBe(true);
    const store = await openStore(path);
    expect(await store.sessions('bob')).not.toContain('s1');
    await store.close();
  });

  it('fails on a bad user id and changes nothing', async () => {
    const r = await runMain(['purge', '--db', path, '--user', '']);
    expect(r.code).not.toBe(0);
    const store = await openStore(path);
    expect((await store.users()).length).toBe(5);
    await store.close();
  });
});

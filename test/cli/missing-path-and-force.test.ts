import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_DATABASE_HINT } from '../../src/cli/cli-context.js';
import { openStore, runCli, runMain, tempDir } from './fixtures.js';


async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('commands that do not create touch nothing on a missing or wrong path', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  beforeAll(async () => {
    tmp = await tempDir();
  });
  afterAll(async () => tmp.dispose());

  const emptyDump = '{"type":"header","format":1,"engineVersion":"0.1.0","user":null,"session":null,"chunks":0}\n';
  const readers = ['inspect', 'stats', 'dump', 'blocks', 'verify', 'gc', 'report'];
  // The real bin for two of them (a child process each is slow on a busy machine), the same main in-process for the rest.
  const run = (args: string[], input?: string) => (args[0] === 'gc' || args[0] === 'inspect' ? runCli(args, input) : runMain(args, input));
  const extra = (cmd: string): string[] => (cmd === 'report' ? ['--out', join(tmp.dir, 'never.html')] : []);

  it('a missing path: exit 1, one line, no directory left behind', async () => {
    const missing = join(tmp.dir, 'missing');
    for (const cmd of readers) {
      const r = await run([cmd, '--db', missing, ...extra(cmd)]);
      expect(r.code, cmd).toBe(1);
      expect(r.stdout, cmd).toBe('');
      expect(r.stderr, cmd).toBe(`akashic: no database at ${missing}: the directory does not exist [AKASHIC_NOT_FOUND]\n`);
      expect(existsSync(missing), cmd).toBe(false);
    }
    const s = await runMain(['salvage', '--from', missing, '--to', join(tmp.dir, 'rescued')]);
    expect(s.code).toBe(1);
    expect(s.stderr).toBe(`akashic: no salvage source at ${missing}: the directory does not exist [AKASHIC_NOT_FOUND]\n`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(tmp.dir, 'rescued'))).toBe(false);
  });

  it('an empty directory stays empty', async () => {
    const empty = join(tmp.dir, 'empty');
    await mkdir(empty);
    for (const cmd of readers) {
      const r = await run([cmd, '--db', empty, ...extra(cmd)]);
      expect(r.code, cmd).toBe(1);
      expect(r.stderr, cmd).toBe(`akashic: no database at ${empty}: the directory is empty [AKASHIC_NOT_FOUND]\n`);
      expect(readdirSync(empty), cmd).toEqual([]);
    }
  });

  it('a path that is a file gets its own message, for readers and creators alike', async () => {
    const file = join(tmp.dir, 'a-file');
    await writeFile(file, 'not a database');
    for (const args of [...readers.map((c) => [c, '--db', file, ...extra(c)]), ['load', '--db', file, '-'], ['demo', '--db', file, '--users', '1', '--sessions', '1']]) {
      const r = await run(args, emptyDump);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr, args[0]).toBe(`akashic: ${file} is a file, not a database directory [AKASHIC_NOT_FOUND]\n`);
    }
    expect(existsSync(join(tmp.dir, 'never.html'))).toBe(false);
    const s = await runMain(['salvage', '--from', join(tmp.dir, 'missing2'), '--to', file]);
    expect(s.stderr).toBe(`akashic: ${file} is a file, not a salvage target directory [AKASHIC_NOT_FOUND]\n`);
  });

  it('load may create: a missing path becomes a database', async () => {
    const made = join(tmp.dir, 'made');
    const r = await runCli(['load', '--db', made], emptyDump);
    expect(r.code).toBe(0);
    expect(existsSync(join(made, 'CURRENT'))).toBe(true);
    expect((await runCli(['verify', '--db', made])).code).toBe(0);
  });
});

describe('demo --force respects the lock', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  beforeAll(async () => {
    tmp = await tempDir();
  });
  afterAll(async () => tmp.dispose());

  it('a database another process holds open: exit 3, nothing deleted', async () => {
    const db = join(tmp.dir, 'held');
    const holder = await openStore(db);
    try {
      await holder.put('alice', { sessionId: 's1', text: 'still here' });
      const before = readdirSync(db).sort();
      const r = await runCli(['demo', '--db', db, '--force', '--users', '1', '--sessions', '2']);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(`akashic: database is locked by another process or already open in this one (lock file ${join(db, 'LOCK')}); nothing was deleted [AKASHIC_LOCKED]. ${LIVE_DATABASE_HINT}\n`);
      expect(readdirSync(db).sort()).toEqual(before);
      const listed = await collect(holder.list("alice"));
      expect(listed.map((c) => c.sessionId)).toEqual(['s1']);
    } finally {
      await holder.close();
    }
  });

  it('an unlocked database is replaced; a directory that is not a database is never deleted', async () => {
    const db = join(tmp.dir, 'old');
    const old = await openStore(db);
    await old.put('zed', { sessionId: 'old', text: 'old data' });
    await old.close();
    const r = await runCli(['demo', '--db', db, '--force', '--users', '1', '--sessions', '2']);
    expect(r.code).toBe(0);
    const reopened = await openStore(db);
    try {
      expect(await collect(reopened.list("zed"))).toEqual([]);
    } finally {
      await reopened.close();
    }
    const notDb = join(tmp.dir, 'photos');
    await mkdir(notDb);
    await writeFile(join(notDb, 'cat.jpg'), 'meow');
    const n = await runCli(['demo', '--db', notDb, '--force', '--users', '1', '--sessions', '2']);
    expect(n.code).toBe(1);
    expect(n.stderr).toBe(`akashic: no database at ${notDb}: the directory is not an Akashic database (no CURRENT file) [AKASHIC_NOT_FOUND]\n`);
    expect(readdirSync(notDb)).toEqual(['cat.jpg']);
  });
});

describe('smaller messages', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  beforeAll(async () => {
    tmp = await tempDir();
  });
  afterAll(async () => tmp.dispose());

  it('salvage prints text by default and JSON with --json', async () => {
    const src = join(tmp.dir, 'src');
    const s = await openStore(src);
    await s.put('alice', { sessionId: 's1', text: 'kept' });
    await s.close();
    const text = await runMain(['salvage', '--from', src, '--to', join(tmp.dir, 'to-text')]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^copied: 1 live chunks, 0 active turns into .*to-text\n/);
    expect(text.stdout).toMatch(/complete: everything readable was copied\n$/);
    const json = await runMain(['salvage', '--from', src, '--to', join(tmp.dir, 'to-json'), '--json']);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { copied: number; complete: boolean })).toMatchObject({ copied: 1, complete: true });
  });

  it('eval recall on a missing LoCoMo path says there is no such file', async () => {
    const r = await runMain(['eval', 'recall', '--locomo', join(tmp.dir, 'nonexistent')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nonexistent: no such file or folder');
    expect(r.stderr).not.toContain('holds no .json');
  });

  it('a second open in the same process does not blame another process', async () => {
    const db = join(tmp.dir, 'twice');
    const first = await openStore(db);
    try {
      // LevelDB's failed second open closes its own descriptor of LOCK, which drops this process's POSIX lock, so
      // the holder cannot be named from /proc/locks: the message says both possibilities.
      await expect(openStore(db)).rejects.toThrow(`database is locked by another process or already open in this one (lock file ${join(db, 'LOCK')})`);
    } finally {
      await first.close();
    }
  });
});

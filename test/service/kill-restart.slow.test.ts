/**
 * `akashic serve` as a process: SIGKILLed in the middle of concurrent writes, it loses no write it acknowledged
 * (default durability: sync) and restarts cleanly on the same directory; SIGTERM drains and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RemoteMemory, RemoteStore } from '../../src/client/index.js';

const BIN = resolve('bin/akashic.js');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'akashic-serve-kill-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function serve(db: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((ok, fail) => {
    lines.on('line', (l) => {
      const m = l.match(/listening on (http:\/\/\S+)/);
      if (m !== null) ok(m[1]!);
    });
    child.once('exit', (code) => fail(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return { child, url };
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((ok) => child.once('exit', (code, signal) => ok({ code, signal })));
}

it('loses no acknowledged write to SIGKILL mid-load, restarts cleanly, and exits 0 on SIGTERM', async () => {
  const db = join(dir, 'db');
  const first = await serve(db);
  const chunks: { user: string; session: string; chunkId: string; text: string }[] = [];
  const turns: { user: string; session: string; turnId: string }[] = [];
  let stop = false;
  const writers = Array.from({ length: 16 }, async (_, w) => {
    const store = new RemoteStore({ baseUrl: first.url, timeoutMs: 10_000 });
    const memory = new RemoteMemory({ baseUrl: first.url, timeoutMs: 10_000 });
    for (let i = 0; !stop; i++) {
      try {
        const text = `writer ${w} fact ${i}`;
        const { chunkId } = await store.put(`user${w % 4}`, { sessionId: `w${w}`, text });
        chunks.push({ user: `user${w % 4}`, session: `w${w}`, chunkId, text });
        const { turnId } = await memory.appendTurn({ user: `user${w % 4}`, session: `chat${w}`, role: 'user', text });
        turns.push({ user: `user${w % 4}`, session: `chat${w}`, turnId });
      } catch (err) {
        // Only the kill may fail a write: then it was never acknowledged.
        expect((err as { code?: string }).code).toMatch(/AKASHIC_IO|AKASHIC_TIMEOUT/);
        return;
      }
    }
  });
  while (chunks.length < 200) await new Promise((r) => setTimeout(r, 20));
  const exit = exited(first.child);
  first.child.kill('SIGKILL');
  expect((await exit).signal).toBe('SIGKILL');
  stop = true;
  await Promise.all(writers);
  expect(chunks.length).toBeGreaterThanOrEqual(200);

  const second = await serve(db);
  const store = new RemoteStore({ baseUrl: second.url });
  const memory = new RemoteMemory({ baseUrl: second.url });
  for (const c of chunks) expect((await store.get(c.user, c.session, c.chunkId))?.text).toBe(c.text);
  const bySession = new Map<string, Set<string>>();
  for (const t of turns) {
    const key = `${t.user}\u0000${t.session}`;
    if (!bySession.has(key)) bySession.set(key, new Set((await memory.activeTurns({ user: t.user, session: t.session })).map((x) => x.turnId)));
    expect(bySession.get(key)!.has(t.turnId)).toBe(true);
  }
  expect(await (await fetch(second.url + '/readyz')).json()).toEqual({ status: 'ready' });

  const done = exited(second.child);
  second.child.kill('SIGTERM');
  expect(await done).toEqual({ code: 0, signal: null });
  const third = await serve(db);
  expect((await new RemoteStore({ baseUrl: third.url }).users()).sort()).toEqual(['user0', 'user1', 'user2', 'user3']);
  const end = exited(third.child);
  third.child.kill('SIGINT');
  expect((await end).code).toBe(0);
});

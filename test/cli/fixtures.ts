/** Tiny local fixtures of the CLI tests: temp databases, a sample store, and runners for the real CLI. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { AkashicStore, type AkashicStoreOptions } from '../../src/index.js';
import type { CliIo } from '../../src/cli/cli-context.js';
import { main } from '../../src/cli/main.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin', 'akashic.js');

/** A fresh temp directory; `dispose` removes it. */
export async function tempDir(): Promise<{ dir: string; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'akashic-cli-'));
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

export function openStore(path: string, o: Partial<AkashicStoreOptions> = {}): Promise<AkashicStore> {
  return AkashicStore.open({ path, gc: { intervalMs: 0 }, durability: 'relaxed', ...o });
}

/**
 * A store with several users and sessions, payloads (one empty), attributes (integer-like keys too), unicode,
 * user ids whose UTF-8 and UTF-16 orders differ, an updated chunk and a deleted chunk, and a released block.
 */
export async function buildSample(path: string): Promise<{ deleted: { userId: string; sessionId: string; chunkId: string } }> {
  const store = await openStore(path, { blockCapacity: 4 });
  try {
    const users = ['alice', 'bob', '\u{1F600}emoji', '\uFB00ligature'];
    const made: { userId: string; sessionId: string; chunkId: string }[] = [];
    for (let i = 0; i < 24; i++) {
      const userId = users[i % users.length]!;
      const r = await store.put(userId, {
        sessionId: `s${i % 3}`,
        kind: i % 2 === 0 ? 'memory' : 'turn',
        text: `chunk ${i}: prefers green tea, 日本語 ${'·'.repeat(i)}`,
        tokenCount: 10 + i,
        keywords: ['tea', `k${i}`],
        attributes: { source: 'test', '10': 'ten', '2': 'two', ünï: `v${i}` },
        payload: i % 5 === 0 ? Uint8Array.from([i, 0, 255, 128]) : i === 7 ? new Uint8Array(0) : null,
        provenance: i % 4 === 0 ? [`turn-${i}`] : [],
      });
      made.push({ userId, sessionId: r.sessionId, chunkId: r.chunkId });
    }
    const up = made[2]!;
    await store.write(up.userId, [{ op: 'update', sessionId: up.sessionId, chunkId: up.chunkId, text: 'updated text', supersedes: [made[6]!.chunkId] }]);
    const del = made[5]!;
    await store.write(del.userId, [{ op: 'delete', sessionId: del.sessionId, chunkId: del.chunkId }]);
    // Empty a whole sealed block of carol's so it is released.
    const carol: { sessionId: string; chunkId: string }[] = [];
    for (let i = 0; i < 4; i++) carol.push(await store.put('carol', { sessionId: 'gone', text: `short-lived ${i}` }));
    await store.write('carol', carol.map((c) => ({ op: 'delete' as const, sessionId: c.sessionId, chunkId: c.chunkId })));
    await store.put('carol', { sessionId: 'kept', text: 'carol keeps one chunk' });
    return { deleted: del };
  } finally {
    await store.close();
  }
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real CLI (`node bin/akashic.js ...`, built dist) in a child process. */
export function runCli(args: readonly string[], input?: string): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** Runs `main` in this process with captured streams. */
export async function runMain(args: readonly string[], input = ''): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const stdin = new PassThrough();
  stdin.end(input);
  const io: CliIo = { stdout, stderr, stdin, stderrIsTTY: false, stdoutIsTTY: false };
  const code = await main(['node', 'akashic', ...args], io);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out, stderr: err };
}

/** Collects the lines a tool writes to a callback sink. */
export function lines(): { sink: (line: string) => void; lines: string[]; text: () => string } {
  const out: string[] = [];
  return { sink: (l) => out.push(l), lines: out, text: () => out.map((l) => l + '\n').join('') };
}

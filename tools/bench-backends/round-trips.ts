/**
 * Where the Redis commands of one operation come from: every command the client sends (what crosses the network,
 * retries included; not the commands a script runs inside the server) is counted by the engine function that asked
 * for it. Seeds `--users` users with `--chunks` chunks each, then runs `--ops` puts, fetches of 5 chunks and recalls
 * (AkashicMemory, scope user), round-robin over the users, in one process; or, with `--procs N`, in N processes at
 * once, every process serving every user (each one's writes move the users the others cached).
 *
 *   node dist/tools/bench-backends/round-trips.js --url redis+cluster://127.0.0.1:7000 [--users 4] [--chunks 40] [--ops 40] [--procs 1] [--sites]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { AkashicMemory, AkashicStore, type ChunkRef } from '../../src/index.js';
import { chunkContent, queryFor, userName } from './workload.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const URL_ = arg('url', 'redis+cluster://127.0.0.1:7500');
const USERS = Number(arg('users', '4'));
const CHUNKS = Number(arg('chunks', '40'));
const OPS = Number(arg('ops', '40'));
const SITES = args.includes('--sites');
const PROCS = Number(arg('procs', '1'));
/** Set in a child of `--procs`: its index, the store's prefix and the seeded refs' file. */
const CHILD = args.includes('--child') ? { index: Number(arg('index', '0')), prefix: arg('prefix', ''), refs: arg('refs', '') } : null;

/** The caller of a command: the innermost frames of the compiled engine outside the Redis backend and ioredis. */
function siteOf(stack: string): string {
  const frames = stack
    .split('\n')
    .slice(1)
    .map((l) => /at (?:async )?(\S+) \(.*?dist\/(src\/[^:]+):/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  const backend = frames.find((m) => m[2]!.includes('backend/redis'));
  const engine = frames.find((m) => !m[2]!.includes('backend/redis'));
  return `${backend?.[1] ?? '?'} <- ${engine === undefined ? '?' : `${engine[1]} (${engine[2]!.replace(/^src\//, '')})`}`;
}

interface Tally {
  total: number;
  readonly bySite: Map<string, number>;
}

let current: Tally | null = null;
Error.stackTraceLimit = 60;

// Every command object records where it was made (its creation is synchronous with the engine's call); it is
// counted when a node connection writes it, so pipelined, auto-pipelined and retried commands all count.
// ioredis/built/Command.js is CommonJS with an ES-module default (`exports.default`), seen from ESM one level down.
const commandModule = (await import('ioredis/built/Command.js')) as unknown as { default: { default: { prototype: { initPromise: () => void } } } };
const commandProto = commandModule.default.default.prototype;
const init = commandProto.initPromise;
commandProto.initPromise = function (this: { site?: string }) {
  if (current !== null) this.site = siteOf(new Error().stack ?? '');
  init.call(this);
};
const send = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, command, stream) {
  const c = command as unknown as { name: string; site?: string };
  if (current !== null && c.site !== undefined) {
    current.total++;
    const key = `${c.name} ${c.site}`;
    current.bySite.set(key, (current.bySite.get(key) ?? 0) + 1);
  }
  return send.call(this, command, stream);
};

function report(name: string, ops: number, total: number, bySite: Iterable<[string, number]>): void {
  console.log(`${name}: ${(total / ops).toFixed(1)} commands sent per operation (${ops} operations)`);
  if (SITES) for (const [k, n] of [...bySite].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / ops).toFixed(2).padStart(6)}  ${k}`);
}

async function measure(name: string, ops: number, fn: (i: number) => Promise<void>): Promise<Tally> {
  const t: Tally = { total: 0, bySite: new Map() };
  current = t;
  for (let i = 0; i < ops; i++) await fn(i);
  current = null;
  if (CHILD === null) report(name, ops, t.total, t.bySite);
  return t;
}

type Phase = 'put' | 'fetch (5 chunks)' | 'recall';

/** The steady-state phases over `users` (a child of `--procs` starts its round-robin at its own index). */
async function phases(store: AkashicStore, memory: AkashicMemory, users: string[], refs: Map<string, ChunkRef[]>, offset: number): Promise<Map<Phase, Tally>> {
  const out = new Map<Phase, Tally>();
  const user = (i: number): number => (i + offset) % users.length;
  out.set('put', await measure('put', OPS, async (i) => {
    await store.put(users[user(i)]!, { sessionId: 'bench', ...chunkContent(1_000_000 + offset * 100_000 + i) });
  }));
  out.set('fetch (5 chunks)', await measure('fetch (5 chunks)', OPS, async (i) => {
    const mine = refs.get(users[user(i)]!)!;
    await store.getMany(users[user(i)]!, mine.slice(i % (CHUNKS - 5), (i % (CHUNKS - 5)) + 5));
  }));
  out.set('recall', await measure('recall', OPS, async (i) => {
    const u = user(i);
    await memory.recall({ user: users[u]!, session: 'bench-recall', query: queryFor(u * 1000 + (i % CHUNKS)), scope: 'user' });
  }));
  return out;
}

async function child(c: NonNullable<typeof CHILD>): Promise<void> {
  const refs = new Map(JSON.parse(readFileSync(c.refs, 'utf8')) as [string, ChunkRef[]][]);
  const sep = URL_.includes('?') ? '&' : '?';
  const store = await AkashicStore.open({ url: `${URL_}${sep}prefix=${c.prefix}`, gc: { intervalMs: 0 } });
  const memory = new AkashicMemory(store);
  process.send!('ready');
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const out = await phases(store, memory, [...refs.keys()], refs, c.index);
  await memory.close();
  await store.close();
  process.send!([...out].map(([p, t]) => [p, t.total, [...t.bySite]]), () => process.exit(0));
}

/** Runs the phases in PROCS processes at once over the seeded store and sums their commands. */
async function many(prefix: string, refs: Map<string, ChunkRef[]>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'akashic-round-trips-'));
  try {
    const file = join(dir, 'refs.json');
    writeFileSync(file, JSON.stringify([...refs]));
    const self = fileURLToPath(import.meta.url);
    const kids = Array.from({ length: PROCS }, (_, i) => fork(self, [...args, '--child', '--index', String(i), '--prefix', prefix, '--refs', file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    await Promise.all(kids.map((k) => new Promise<void>((resolve) => k.once('message', () => resolve()))));
    const results = kids.map((k) => new Promise<[Phase, number, [string, number][]][]>((resolve, reject) => {
      k.once('message', (m) => resolve(m as [Phase, number, [string, number][]][]));
      k.once('exit', (code) => code !== 0 && reject(new Error(`child exited ${code}`)));
    }));
    for (const k of kids) k.send('go');
    const all = await Promise.all(results);
    for (const phase of ['put', 'fetch (5 chunks)', 'recall'] as const) {
      let total = 0;
      const sites = new Map<string, number>();
      for (const r of all) {
        const [, t, s] = r.find((x) => x[0] === phase)!;
        total += t;
        for (const [k, n] of s) sites.set(k, (sites.get(k) ?? 0) + n);
      }
      report(`${phase}, ${PROCS} processes`, OPS * PROCS, total, sites);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const prefix = 'rt' + Date.now().toString(36);
  const sep = URL_.includes('?') ? '&' : '?';
  const url = `${URL_}${sep}prefix=${prefix}`;
  let store = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
  let memory = new AkashicMemory(store);
  try {
    const users = Array.from({ length: USERS }, (_, i) => userName(i));
    const refs = new Map<string, ChunkRef[]>();
    for (const u of users) {
      const mine: ChunkRef[] = [];
      for (let i = 0; i < CHUNKS; i++) {
        const r = await store.put(u, { sessionId: 'seed', ...chunkContent(users.indexOf(u) * 1000 + i) });
        mine.push({ sessionId: r.sessionId, chunkId: r.chunkId });
      }
      refs.set(u, mine);
    }
    if (PROCS > 1) {
      await many(prefix, refs);
      return;
    }
    await phases(store, memory, users, refs, 0);
    // A user's first operation in a process that has cached nothing of it (a fresh process, or after another
    // process wrote the user): what loading a user's state costs.
    const reopen = async (): Promise<void> => {
      await memory.close();
      await store.close();
      store = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
      memory = new AkashicMemory(store);
    };
    for (const op of ['put', 'fetch (5 chunks)', 'recall'] as const) {
      await reopen();
      await measure(`first ${op} of a user in a fresh store`, USERS, async (u) => {
        const user = users[u]!;
        if (op === 'put') await store.put(user, { sessionId: 'bench', ...chunkContent(2_000_000 + u) });
        else if (op === 'recall') await memory.recall({ user, session: 'bench-recall', query: queryFor(u * 1000), scope: 'user' });
        else await store.getMany(user, refs.get(user)!.slice(0, 5));
      });
    }
  } finally {
    await memory.close();
    await store.close();
  }
}

(CHILD === null ? main() : child(CHILD)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/**
 * Where the Redis commands of one operation come from: every command the client sends (what crosses the network,
 * retries included; not the commands a script runs inside the server) is counted by the engine function that asked
 * for it. Seeds `--users` users with `--chunks` chunks each, then runs `--ops` puts, fetches of 5 chunks and recalls
 * (AkashicMemory, scope user), round-robin over the users, in one process.
 *
 *   node dist/tools/bench-backends/round-trips.js --url redis+cluster://127.0.0.1:7000 [--users 4] [--chunks 40] [--ops 40] [--sites]
 */
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

async function measure(name: string, ops: number, fn: (i: number) => Promise<void>): Promise<void> {
  const t: Tally = { total: 0, bySite: new Map() };
  current = t;
  for (let i = 0; i < ops; i++) await fn(i);
  current = null;
  console.log(`${name}: ${(t.total / ops).toFixed(1)} commands sent per operation (${ops} operations)`);
  if (SITES) for (const [k, n] of [...t.bySite].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / ops).toFixed(2).padStart(6)}  ${k}`);
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
    await measure('put', OPS, async (i) => {
      await store.put(users[i % USERS]!, { sessionId: 'bench', ...chunkContent(1_000_000 + i) });
    });
    await measure('fetch (5 chunks)', OPS, async (i) => {
      const mine = refs.get(users[i % USERS]!)!;
      await store.getMany(users[i % USERS]!, mine.slice(i % (CHUNKS - 5), (i % (CHUNKS - 5)) + 5));
    });
    await measure('recall', OPS, async (i) => {
      const u = i % USERS;
      await memory.recall({ user: users[u]!, session: 'bench-recall', query: queryFor(u * 1000 + (i % CHUNKS)), scope: 'user' });
    });
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

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

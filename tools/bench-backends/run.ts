/**
 * The backend benchmark: the same store API over an embedded LevelDB directory, one Redis node and a Redis Cluster,
 * measured side by side (not a test: it reports numbers).
 *
 *   node dist/tools/bench-backends/run.js [--leveldb DIR] [--redis redis://…] [--cluster redis+cluster://…]
 *        [--users 16] [--chunks 200] [--ops 100] [--clients 1,4,16] [--rounds 3] [--json]
 *
 * Per backend: `users` × `chunks` chunks are put first (the seed), then for each client count and phase (put,
 * fetch of 5 chunks, recall through AkashicMemory) every backend runs one round in turn, the order rotating, so
 * the backends share the machine's load alike. LevelDB clients are concurrent loops in one process (one process
 * holds a directory); Redis clients are processes, each with its own store. Cold fetch: the first fetch of a fresh
 * process (LevelDB: after the page cache is dropped, when run as root). On Redis it also counts the commands each
 * primary served (INFO commandstats), giving the commands per operation, the spread over primaries, the server time
 * per operation, and the memory and hash fields per chunk.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { AkashicStore } from '../../src/index.js';
import { parseRedisUrl } from '../../src/backend/redis/redis-url.js';
import type { ClientConfig, ClientResult } from './client.js';
import { nodeFigures, type NodeFigures } from './command-stats.js';
import { chunkContent, userName } from './workload.js';

interface Backend {
  readonly name: string;
  readonly path?: string;
  readonly url?: string;
  readonly primaries: { host: string; port: number }[];
}

const args = process.argv.slice(2);
const arg = (name: string, fallback?: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const USERS = Number(arg('users', '16'));
const CHUNKS = Number(arg('chunks', '200'));
const OPS = Number(arg('ops', '100'));
const CLIENTS = arg('clients', '1,4,16')!.split(',').map(Number);
const ROUNDS = Number(arg('rounds', '3'));
const CLIENT_JS = fileURLToPath(new URL('./client.js', import.meta.url));

async function primariesOf(url: string): Promise<{ host: string; port: number }[]> {
  const t = parseRedisUrl(url);
  if (t.mode === 'single') return [t.nodes[0]!];
  const seed = new Redis({ host: t.nodes[0]!.host, port: t.nodes[0]!.port });
  try {
    const lines = String(await seed.call('CLUSTER', 'NODES')).trim().split('\n');
    return lines
      .filter((l) => l.split(' ')[2]!.includes('master'))
      .map((l) => {
        const addr = l.split(' ')[1]!.split('@')[0]!;
        const i = addr.lastIndexOf(':');
        return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
      });
  } finally {
    seed.disconnect();
  }
}

/** Calls, server µs and memory of every primary of a backend. */
function commandStats(b: Backend): Promise<NodeFigures[]> {
  return Promise.all(b.primaries.map((p) => nodeFigures(p.port, p.host)));
}

/** Runs one phase; `onReady` runs once every client has opened its store, before any is told to go. */
function runClients(b: Backend, phase: ClientConfig['phase'], clients: number, refsFile: string, seed: number, onReady: () => Promise<void> = async () => undefined): Promise<ClientResult[]> {
  const procs = b.path !== undefined ? 1 : clients;
  const loops = b.path !== undefined ? clients : 1;
  const users = Array.from({ length: USERS }, (_, i) => userName(i));
  const children = Array.from({ length: procs }, (_, i) => {
    const cfg: ClientConfig = { ...(b.path !== undefined ? { path: b.path } : { url: b.url! }), phase, loops, ops: OPS, refsFile, users: users.filter((_, u) => u % procs === i || procs > USERS), seed: seed * 101 + i };
    return fork(CLIENT_JS, [JSON.stringify(cfg)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  });
  const ready = children.map((c) => new Promise<void>((res, rej) => { c.once('message', () => res()); c.once('exit', (code) => code !== 0 && rej(new Error(`client exited ${code}`))); }));
  return Promise.all(ready).then(onReady).then(() =>
    Promise.all(
      children.map((c) => {
        const done = new Promise<ClientResult>((res) => c.on('message', (m: { result?: ClientResult }) => m.result !== undefined && res(m.result)));
        c.send('go');
        return done;
      }),
    ),
  );
}

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const median = (xs: number[]): number => pct(xs, 0.5);

async function seed(b: Backend, dir: string): Promise<string> {
  const store = await AkashicStore.open({ ...(b.path !== undefined ? { path: b.path } : { url: b.url! }), gc: { intervalMs: 0 }, durability: 'relaxed' });
  const refs: Record<string, [string, string, number][]> = {};
  try {
    for (let u = 0; u < USERS; u++) {
      const user = userName(u);
      refs[user] = [];
      for (let i = 0; i < CHUNKS; i += 8) {
        const seeds = Array.from({ length: Math.min(8, CHUNKS - i) }, (_, k) => u * 1_000_000 + i + k);
        const res = await store.write(user, seeds.map((s) => ({ op: 'put' as const, sessionId: `s${s % 10}`, ...chunkContent(s) })));
        res.forEach((r, k) => refs[user]!.push([r.sessionId, r.chunkId, seeds[k]!]));
      }
    }
  } finally {
    await store.close();
  }
  const file = join(dir, `${b.name}-refs.json`);
  writeFileSync(file, JSON.stringify(refs));
  return file;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'akashic-bench-backends-'));
  const tag = `bench${Date.now().toString(36)}`;
  const backends: Backend[] = [{ name: 'leveldb', path: arg('leveldb', join(dir, 'leveldb'))!, primaries: [] }];
  for (const [name, url] of [['redis', arg('redis')], ['cluster', arg('cluster')]] as const) {
    if (url !== undefined) backends.push({ name, url: `${url}${url.includes('?') ? '&' : '?'}prefix=${tag}`, primaries: await primariesOf(url) });
  }
  const out: Record<string, unknown> = { users: USERS, chunksPerUser: CHUNKS, opsPerClient: OPS, rounds: ROUNDS, sizing: {}, phases: [] as unknown[] };
  const refs = new Map<string, string>();
  for (const b of backends) {
    const before = b.primaries.length > 0 ? await commandStats(b) : [];
    refs.set(b.name, await seed(b, dir));
    if (b.primaries.length > 0) {
      const after = await commandStats(b);
      const mem = after.reduce((s, x, i) => s + x.memory - before[i]!.memory, 0);
      (out.sizing as Record<string, unknown>)[b.name] = { bytesPerChunk: Math.round(mem / (USERS * CHUNKS)), perMillionChunksGiB: +((mem / (USERS * CHUNKS)) * 1e6 / 2 ** 30).toFixed(2) };
    }
  }
  const rows: string[] = ['| phase | clients | backend | p50 ms | p99 ms | ops/s | Redis commands/op | server µs/op | share of calls per primary |', '|---|---:|---|---:|---:|---:|---:|---:|---|'];
  let round = 0;
  for (const phase of ['put', 'fetch', 'recall'] as const) {
    for (const clients of CLIENTS) {
      const acc = new Map<string, { lat: number[]; rate: number[]; calls: number[]; usec: number; ops: number }>();
      for (let r = 0; r < ROUNDS; r++) {
        const order = backends.map((_, i) => backends[(i + r) % backends.length]!);
        for (const b of order) {
          // Counted from the moment every client has opened its store: opening is not an operation.
          let before: Awaited<ReturnType<typeof commandStats>> = [];
          const results = await runClients(b, phase, clients, refs.get(b.name)!, ++round, async () => {
            if (b.primaries.length > 0) before = await commandStats(b);
          });
          const a = acc.get(b.name) ?? { lat: [], rate: [], calls: b.primaries.map(() => 0), usec: 0, ops: 0 };
          const ops = results.reduce((s, x) => s + x.latencies.length, 0);
          a.lat.push(...results.flatMap((x) => x.latencies));
          a.rate.push(ops / (Math.max(...results.map((x) => x.wallMs)) / 1000));
          a.ops += ops;
          if (b.primaries.length > 0) {
            const after = await commandStats(b);
            after.forEach((x, i) => { a.calls[i]! += x.calls - before[i]!.calls; a.usec += x.usec - before[i]!.usec; });
          }
          acc.set(b.name, a);
        }
      }
      for (const b of backends) {
        const a = acc.get(b.name)!;
        const total = a.calls.reduce((s, x) => s + x, 0);
        const fig = {
          phase, clients, backend: b.name, p50: +median(a.lat).toFixed(2), p99: +pct(a.lat, 0.99).toFixed(2), opsPerSec: Math.round(median(a.rate)),
          commandsPerOp: b.primaries.length > 0 ? +(total / a.ops).toFixed(1) : null,
          serverUsecPerOp: b.primaries.length > 0 ? +(a.usec / a.ops).toFixed(1) : null,
          callShare: b.primaries.length > 1 ? a.calls.map((c) => +(c / total).toFixed(2)) : null,
        };
        (out.phases as unknown[]).push(fig);
        rows.push(`| ${phase} | ${clients} | ${b.name} | ${fig.p50} | ${fig.p99} | ${fig.opsPerSec} | ${fig.commandsPerOp ?? '–'} | ${fig.serverUsecPerOp ?? '–'} | ${fig.callShare?.join(' / ') ?? '–'} |`);
        if (!args.includes('--json')) console.error(rows.at(-1));
      }
    }
  }
  // Cold fetch: the first fetch of a fresh process, rotating backends.
  const cold = new Map<string, number[]>();
  for (let r = 0; r < 5; r++) {
    for (const b of backends) {
      if (b.path !== undefined && process.getuid?.() === 0) {
        try { writeFileSync('/proc/sys/vm/drop_caches', '3'); } catch { /* not allowed here: warm page cache */ }
      }
      const [res] = await runClients(b, 'cold', 1, refs.get(b.name)!, 9000 + r);
      cold.set(b.name, [...(cold.get(b.name) ?? []), res!.latencies[0]!]);
    }
  }
  out.coldFetchP50 = Object.fromEntries([...cold].map(([k, v]) => [k, +median(v).toFixed(2)]));
  if (args.includes('--json')) console.log(JSON.stringify(out, null, 2));
  else {
    console.log(rows.join('\n'));
    console.log(`\ncold fetch p50 (ms): ${JSON.stringify(out.coldFetchP50)}\nsizing: ${JSON.stringify(out.sizing)}`);
  }
  if (arg('leveldb') === undefined) rmSync(dir, { recursive: true, force: true });
  for (const b of backends) for (const p of b.primaries) await dropTag(p, tag);
}

/** Deletes the benchmark's keys (its prefix's hash tags) on one primary. */
async function dropTag(p: { host: string; port: number }, tag: string): Promise<void> {
  const r = new Redis({ host: p.host, port: p.port });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `{${tag}:*`, 'COUNT', 1000);
      cursor = next;
      for (const k of keys) await r.del(k);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

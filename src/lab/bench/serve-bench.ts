/**
 * The service benchmark: append and recall latency (p50, p99) and requests/s over HTTP on loopback against the same
 * calls made in process, at several client concurrencies. Both paths run over one database directory (the
 * embedded run first, then a server process on it), seeded with the same conversations, with default options
 * (sync durability, the embedded model). The HTTP path is `akashic/client` against `akashic serve` in a child
 * process: JSON encoding, the HTTP exchange, validation, tenancy and metrics are all in the figure.
 *
 * Next to latency, each row gives the CPU time spent per call by every process involved (the embedded caller's; the
 * client's plus the server's over HTTP). On a shared machine latency carries the wait for a core, which grows with
 * the load and with the number of processes a call crosses; CPU time per call does not, so it is what compares
 * runs taken at different loads.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RemoteMemory } from '../../client/index.js';
import { AkashicStore } from '../../engine/akashic-store.js';
import { AkashicMemory } from '../../memattention/index.js';
import { HTTP_SERVICE, importFeature } from '../../util/optional-packages.js';
import type { MemorySurface } from '../../protocol/surfaces.js';
import { quantile, round } from './summary-stats.js';

export interface ServeBenchOptions {
  /** Client concurrencies to measure. Default [1, 16, 64]. */
  readonly concurrency?: readonly number[];
  /** Appends and recalls per concurrency level (each). Default 400. */
  readonly requests?: number;
  /** Users seeded with conversations. Default 8. */
  readonly users?: number;
  /** Where the database goes (a fresh temporary directory by default, removed afterwards). */
  readonly workDir?: string;
  /**
   * Run the server in this process, over the store the embedded run used, instead of in a child process: the HTTP
   * figure then holds the exchange's own cost without a second process competing for the cores. Default false.
   */
  readonly inProcess?: boolean;
}

export interface ServeBenchRow {
  readonly path: 'embedded' | 'http';
  readonly op: 'append' | 'recall';
  readonly concurrency: number;
  readonly requests: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly perSecond: number | null;
  /** CPU time per call (user + system) of every process the call ran in: the caller's, and the server's over HTTP. */
  readonly cpuMsPerCall: number | null;
}

export interface ServeBenchReport {
  readonly startedAt: string;
  readonly serverInProcess: boolean;
  readonly rows: readonly ServeBenchRow[];
  /** HTTP p50 minus embedded p50 of recall, per concurrency (ms). */
  readonly recallOverheadP50Ms: Readonly<Record<number, number | null>>;
  /** HTTP minus embedded CPU time per recall, per concurrency (ms). */
  readonly recallOverheadCpuMs: Readonly<Record<number, number | null>>;
}

const TOPICS = ['tea', 'Berlin', 'cycling', 'chess', 'violin', 'Lisbon', 'sourdough', 'climbing', 'Tokyo', 'jazz', 'gardening', 'astronomy'];

function fact(user: number, i: number): string {
  const t = TOPICS[(user * 7 + i) % TOPICS.length]!;
  return `Person ${user} mentioned that ${t} has mattered to them since ${1990 + ((user * 13 + i) % 30)}, especially on weekends.`;
}

async function seed(memory: AkashicMemory, users: number): Promise<void> {
  for (let u = 0; u < users; u++) {
    for (let s = 0; s < 4; s++) {
      const turns = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', text: fact(u, s * 12 + i) }));
      await memory.completeRequest({ user: `user${u}`, session: `s${s}`, turns });
      await memory.endSession({ user: `user${u}`, session: `s${s}` });
    }
  }
}

/** CPU microseconds (user + system) used so far by the processes a path runs in. */
type CpuClock = () => Promise<number>;

const ownCpu: CpuClock = async () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Runs `total` calls of `op` over `concurrency` workers; latencies in ms, the wall time and the CPU time in ms. */
async function measure(concurrency: number, total: number, cpu: CpuClock, op: (worker: number, i: number) => Promise<unknown>): Promise<{ ms: number[]; wallMs: number; cpuMs: number }> {
  const ms: number[] = [];
  let next = 0;
  const cpuStart = await cpu();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = next++; i < total; i = next++) {
        const t0 = performance.now();
        await op(w, i);
        ms.push(performance.now() - t0);
      }
    }),
  );
  const wallMs = performance.now() - start;
  return { ms, wallMs, cpuMs: ((await cpu()) - cpuStart) / 1000 };
}

async function runPath(path: 'embedded' | 'http', memory: MemorySurface, cpu: CpuClock, o: Required<Omit<ServeBenchOptions, 'workDir' | 'inProcess'>>, rows: ServeBenchRow[]): Promise<void> {
  for (const c of o.concurrency) {
    const append = await measure(c, o.requests, cpu, (w, i) => memory.appendTurn({ user: `user${i % o.users}`, session: `${path}-c${c}-w${w}`, role: 'user', text: fact(i % o.users, i) }));
    const recall = await measure(c, o.requests, cpu, (_w, i) =>
      memory.recall({ user: `user${i % o.users}`, session: 's0', scope: 'user', query: `what about ${TOPICS[i % TOPICS.length]}?` }),
    );
    for (const [op, m] of [['append', append], ['recall', recall]] as const) {
      rows.push({
        path,
        op,
        concurrency: c,
        requests: m.ms.length,
        p50Ms: round(quantile(m.ms, 0.5)),
        p99Ms: round(quantile(m.ms, 0.99)),
        perSecond: round((m.ms.length / m.wallMs) * 1000, 1),
        cpuMsPerCall: m.ms.length === 0 ? null : round(m.cpuMs / m.ms.length),
      });
    }
  }
}

/** Runs the benchmark (about a minute at the defaults on two cores). */
export async function runServeBench(options: ServeBenchOptions = {}): Promise<ServeBenchReport> {
  const o = { concurrency: options.concurrency ?? [1, 16, 64], requests: options.requests ?? 400, users: options.users ?? 8 };
  // The service's packages are optional: checked before any work, for the child server process as well.
  const { startService } = await importFeature(HTTP_SERVICE, () => import('../../service/index.js'));
  const startedAt = new Date().toISOString();
  const dir = options.workDir ?? (await mkdtemp(join(tmpdir(), 'akashic-serve-bench-')));
  const db = join(dir, 'db');
  const rows: ServeBenchRow[] = [];
  try {
    const store = await AkashicStore.open({ path: db });
    const memory = new AkashicMemory(store);
    try {
      await seed(memory, o.users);
      await runPath('embedded', memory, ownCpu, o, rows);
      if (options.inProcess === true) {
        const service = await startService({ store, port: 0 });
        try {
          // One process serves and calls: its CPU time is both ends of the exchange.
          await runPath('http', new RemoteMemory({ baseUrl: service.url }), ownCpu, o, rows);
        } finally {
          await service.close();
        }
      }
    } finally {
      await memory.close();
      await store.close();
    }
    if (options.inProcess !== true) await runInChild(db, o, rows);
  } finally {
    if (options.workDir === undefined) await rm(dir, { recursive: true, force: true });
  }
  const overhead: Record<number, number | null> = {};
  const overheadCpu: Record<number, number | null> = {};
  for (const c of o.concurrency) {
    const recall = (path: string): ServeBenchRow | undefined => rows.find((r) => r.path === path && r.op === 'recall' && r.concurrency === c);
    const minus = (a: number | null | undefined, b: number | null | undefined): number | null => (a === null || a === undefined || b === null || b === undefined ? null : round(a - b));
    overhead[c] = minus(recall('http')?.p50Ms, recall('embedded')?.p50Ms);
    overheadCpu[c] = minus(recall('http')?.cpuMsPerCall, recall('embedded')?.cpuMsPerCall);
  }
  return { startedAt, serverInProcess: options.inProcess === true, rows, recallOverheadP50Ms: overhead, recallOverheadCpuMs: overheadCpu };
}

/** The HTTP path against `akashic serve` in a child process over the directory. */
async function runInChild(db: string, o: Required<Omit<ServeBenchOptions, 'workDir' | 'inProcess'>>, rows: ServeBenchRow[]): Promise<void> {
  const server = fork(new URL('./serve-bench-server.js', import.meta.url), [db], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const url = await new Promise<string>((ok, fail) => {
      server.once('message', (m: { url: string }) => ok(m.url));
      server.once('exit', (code) => fail(new Error(`the benchmark server exited with ${code}`)));
    });
    // The client's CPU time plus the server's, which the server reports over IPC when asked.
    const cpu: CpuClock = async () => {
      const served = new Promise<number>((ok) => server.once('message', (m: { cpuMicros: number }) => ok(m.cpuMicros)));
      server.send({ cpu: true });
      return (await ownCpu()) + (await served);
    };
    await runPath('http', new RemoteMemory({ baseUrl: url }), cpu, o, rows);
  } finally {
    const exited = new Promise((ok) => server.once('exit', ok));
    server.disconnect();
    await exited;
  }
}
/** The report as a Markdown table. */
export function serveBenchMarkdown(r: ServeBenchReport): string {
  const lines = [
    '| op | clients | embedded p50 ms | embedded p99 ms | embedded req/s | embedded CPU ms/call | HTTP p50 ms | HTTP p99 ms | HTTP req/s | HTTP CPU ms/call |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const concurrencies = [...new Set(r.rows.map((x) => x.concurrency))];
  for (const op of ['append', 'recall'] as const) {
    for (const c of concurrencies) {
      const e = r.rows.find((x) => x.path === 'embedded' && x.op === op && x.concurrency === c);
      const h = r.rows.find((x) => x.path === 'http' && x.op === op && x.concurrency === c);
      lines.push(`| ${op} | ${c} | ${e?.p50Ms} | ${e?.p99Ms} | ${e?.perSecond} | ${e?.cpuMsPerCall} | ${h?.p50Ms} | ${h?.p99Ms} | ${h?.perSecond} | ${h?.cpuMsPerCall} |`);
    }
  }
  lines.push(
    '',
    `Server ${r.serverInProcess ? 'in the benchmark process' : 'in a child process'}. Recall over HTTP minus embedded, p50: ${concurrencies.map((c) => `${c} client(s) ${r.recallOverheadP50Ms[c]} ms`).join(', ')}; CPU per call: ${concurrencies.map((c) => `${c} client(s) ${r.recallOverheadCpuMs[c]} ms`).join(', ')}.`,
  );
  return lines.join('\n');
}

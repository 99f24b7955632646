/**
 * SIGKILL of a primary while a store writes, on the real cluster (node-timeout 2 s: a replica takes over within
 * seconds). At durability 'replicated' no acknowledged write may be lost and writes must resume within 10 s; at
 * 'relaxed' the test reports what was lost (writes acknowledged by the primary before its replica had them).
 *
 * The killed node is started again one second after the kill, as a supervisor (systemd `Restart=always`) would:
 * with one replica per primary, the promoted replica has no replica of its own until then, and 'replicated' writes
 * to its slots fail (no replica acknowledges them) until the restarted node has rejoined as its replica.
 *
 * The kill runs on a cluster of the test's own (the suite's ports + 20), started and stopped here: the suite's
 * shared cluster serves other test files at the same time, and a primary killed under them would fail them.
 */
import { execFile, execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { isAkashicError } from '../../src/errors.js';
import { REDIS_URL, everyNode, quitAll, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'tools/redis/cluster.sh');
/** The test's own cluster: 3 primaries and 3 replicas on the suite's base port + 20 … + 25. */
const OWN_BASE = Number(process.env.AKASHIC_TEST_REDIS_PORT ?? 7400) + 20;
const OWN_DIR = `/tmp/akashic-test-redis-failover-${OWN_BASE}`;
const OWN_URL = `redis+cluster://127.0.0.1:${OWN_BASE},127.0.0.1:${OWN_BASE + 1},127.0.0.1:${OWN_BASE + 2}`;

interface Acked {
  readonly user: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly text: string;
}

/** The primary holding `key`'s slot: its port, pid and data folder. */
async function primaryOf(key: string): Promise<{ port: number; pid: number; root: string }> {
  const nodes = await everyNode(OWN_URL);
  try {
    for (const n of nodes) {
      if ((await n.role())[0] !== 'master') continue;
      const slot = Number(await n.call('CLUSTER', 'KEYSLOT', key));
      const owner = (await n.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const range = owner.find(([a, b]) => slot >= a && slot <= b)!;
      const port = range[2][1];
      const node = new Redis({ host: '127.0.0.1', port });
      try {
        const info = await node.info('server');
        const pid = Number(/process_id:(\d+)/.exec(info)![1]);
        const dir = ((await node.config('GET', 'dir')) as string[])[1]!;
        return { port, pid, root: dirname(dir) };
      } finally {
        node.disconnect();
      }
    }
  } finally {
    await quitAll(nodes);
  }
  throw new Error('no primary found');
}

async function waitHealthy(port: number): Promise<void> {
  const probe = new Redis({ host: '127.0.0.1', port });
  try {
    for (let i = 0; i < 400; i++) {
      const info = String(await probe.call('CLUSTER', 'INFO'));
      const nodes = String(await probe.call('CLUSTER', 'NODES'));
      if (info.includes('cluster_state:ok') && (nodes.match(/slave/g) ?? []).length === 3 && !nodes.includes('fail')) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the cluster did not become whole again');
  } finally {
    probe.disconnect();
  }
}

/** Writes for 14 s, killing the primary of user0's partition after 1.5 s; reopens the store after a failed write. */
async function writeThroughKill(durability: 'replicated' | 'relaxed', prefix: string): Promise<{ acked: Acked[]; failed: number; resumeMs: number; killedPort: number; root: string }> {
  let restarted: Promise<void> | null = null;
  const url = urlWithPrefix(prefix, OWN_URL);
  // The primary of user0's partition (every eighth put is user0's); resumption is user0's first put after the kill.
  const victim = await primaryOf(`{${prefix}:user0}:h`);
  const open = (): Promise<AkashicStore> => AkashicStore.open({ url, durability, gc: { intervalMs: 0 } });
  let store = await open();
  const acked: Acked[] = [];
  let failed = 0;
  let killedAt = 0;
  let resumedAt = 0;
  const start = Date.now();
  for (let i = 0; Date.now() - start < 14_000; i++) {
    if (killedAt === 0 && Date.now() - start > 1_500) {
      process.kill(victim.pid, 'SIGKILL');
      killedAt = Date.now();
      restarted = new Promise((resolve) => setTimeout(() => execFile('bash', [join(ROOT, 'tools/redis/cluster.sh'), 'restart', String(victim.port)], { env: { ...process.env, AKASHIC_REDIS_DIR: victim.root } }, () => resolve()), 1_000));
    }
    const user = `user${i % 8}`;
    const text = `write ${i} of ${user}`;
    try {
      const r = await store.put(user, { sessionId: 's', text, keywords: [`w${i}`] });
      acked.push({ user, sessionId: r.sessionId, chunkId: r.chunkId, text });
      if (killedAt !== 0 && resumedAt === 0 && user === 'user0') resumedAt = Date.now();
    } catch (err) {
      failed++;
      // A storage error latches the store read-only (as on LevelDB); the application reopens it.
      if (isAkashicError(err, 'AKASHIC_IO') || isAkashicError(err, 'AKASHIC_READ_ONLY')) {
        await store.close().catch(() => undefined);
        for (;;) {
          try {
            store = await open();
            break;
          } catch {
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      } else throw err;
    }
  }
  await store.close();
  await restarted;
  return { acked, failed, resumeMs: resumedAt - killedAt, killedPort: victim.port, root: victim.root };
}

async function countLost(prefix: string, acked: readonly Acked[]): Promise<number> {
  const store = await AkashicStore.open({ url: urlWithPrefix(prefix, OWN_URL), gc: { intervalMs: 0 }, readOnly: true });
  try {
    let lost = 0;
    for (const a of acked) {
      const r = await store.get(a.user, a.sessionId, a.chunkId).catch(() => null);
      if (r?.text !== a.text) lost++;
    }
    return lost;
  } finally {
    await store.close();
  }
}


describe.skipIf(REDIS_URL === null || !REDIS_URL.startsWith('redis+cluster:'))('failover of a primary under writes', () => {
  beforeAll(() => {
    execFileSync('bash', [SCRIPT, 'start', String(OWN_BASE)], { env: { ...process.env, AKASHIC_REDIS_DIR: OWN_DIR }, stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  }, 130_000);
  afterAll(() => {
    execFileSync('bash', [SCRIPT, 'stop', String(OWN_BASE)], { env: { ...process.env, AKASHIC_REDIS_DIR: OWN_DIR }, stdio: 'ignore' });
  });

  for (const durability of ['replicated', 'relaxed'] as const) {
    it(`durability '${durability}': ${durability === 'replicated' ? 'nothing acknowledged is lost, writes resume within 10 s' : 'reports what is lost'}`, async () => {
      const prefix = testPrefix();
      const run = await writeThroughKill(durability, prefix);
      try {
        const lost = await countLost(prefix, run.acked);
        console.log(`[failover ${durability}] acknowledged ${run.acked.length}, failed ${run.failed}, lost ${lost}, writes resumed ${run.resumeMs} ms after the kill`);
        expect(run.acked.length).toBeGreaterThan(50);
        expect(run.resumeMs).toBeGreaterThan(0);
        if (durability === 'replicated') {
          expect(lost).toBe(0);
          expect(run.resumeMs).toBeLessThan(10_000);
        }
      } finally {
        await waitHealthy(run.killedPort);
      }
    }, 90_000);
  }
});

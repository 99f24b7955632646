/**
 * The Redis deployment tests run against: AKASHIC_TEST_REDIS_URL (a redis+cluster:// or redis:// URL; the suite's
 * global setup, test/support/redis-cluster.ts, starts a cluster and sets it). Unset, every Redis test is skipped.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { parseRedisUrl } from '../../src/backend/redis/redis-url.js';

export const REDIS_URL: string | null = process.env['AKASHIC_TEST_REDIS_URL'] ?? null;
/** A standalone node (redis://), set by the same setup as AKASHIC_TEST_REDIS_SINGLE_URL. */
export const REDIS_SINGLE_URL: string | null = process.env['AKASHIC_TEST_REDIS_SINGLE_URL'] ?? null;

/** A prefix no other test uses, so tests on one deployment never see each other's keys. */
export function testPrefix(): string {
  return 't' + randomBytes(6).toString('hex');
}

/** `REDIS_URL` with `?prefix=`. REQUIRES: REDIS_URL set. */
export function urlWithPrefix(prefix: string, base: string = REDIS_URL!): string {
  return `${base}${base.includes('?') ? '&' : '?'}prefix=${prefix}`;
}

/** Every node of the deployment (primaries and replicas), each as its own connection. Close with `quitAll`. */
export async function everyNode(base: string = REDIS_URL!): Promise<Redis[]> {
  const t = parseRedisUrl(base);
  if (t.mode === 'single') return [new Redis({ host: t.nodes[0]!.host, port: t.nodes[0]!.port, db: t.database })];
  const seed = new Redis({ host: t.nodes[0]!.host, port: t.nodes[0]!.port });
  try {
    const lines = String(await seed.call('CLUSTER', 'NODES')).trim().split('\n');
    return lines
      .filter((l) => !l.includes('fail') && !l.includes('noaddr'))
      .map((l) => {
        const addr = l.split(' ')[1]!.split('@')[0]!;
        const i = addr.lastIndexOf(':');
        return new Redis({ host: addr.slice(0, i), port: Number(addr.slice(i + 1)) });
      });
  } finally {
    seed.disconnect();
  }
}

export async function quitAll(nodes: readonly Redis[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.quit().catch(() => n.disconnect())));
}

/** Every key on `node` matching `pattern` (SCAN, works on replicas too: READONLY is not needed for SCAN). */
export async function scanKeys(node: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out;
}

/** Deletes every key of a test prefix on every primary. */
export async function dropPrefix(prefix: string, base: string = REDIS_URL!): Promise<void> {
  const t = parseRedisUrl(base);
  const client = t.mode === 'single' ? new Redis({ host: t.nodes[0]!.host, port: t.nodes[0]!.port, db: t.database }) : new Cluster(t.nodes.map((n) => ({ host: n.host, port: n.port })));
  try {
    // A new Cluster client knows no node until its first slot refresh: one command waits for it (nodes() would be
    // empty, and nothing dropped).
    await client.ping();
    const primaries = client instanceof Cluster ? client.nodes('master') : [client];
    for (const node of primaries) {
      const keys = await scanKeys(node, `{${prefix}[-:]*`);
      for (const k of keys) await client.del(k);
    }
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}

/**
 * A slot migration under load on Redis Cluster: while a writer keeps putting chunks for one user, the hash slot that
 * holds the user's partition is moved, key by key (MIGRATE), to another primary, as `redis-cli --cluster reshard`
 * does. Every acknowledged write must be readable afterwards, the store must verify clean, and the slot must have
 * changed owner. Writes that meet the slot half-moved are retried by the backend (ASK/TRYAGAIN), never lost.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';
import { parseRedisUrl } from '../../src/backend/redis/redis-url.js';

interface NodeInfo {
  readonly id: string;
  readonly host: string;
  readonly port: number;
  readonly primary: boolean;
  readonly slots: readonly [number, number][];
}

async function clusterNodes(seed: Redis): Promise<NodeInfo[]> {
  const text = String(await seed.call('CLUSTER', 'NODES'));
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const f = line.split(' ');
      const addr = f[1]!.split('@')[0]!;
      const i = addr.lastIndexOf(':');
      const slots = f.slice(8).filter((s) => /^[0-9]+(-[0-9]+)?$/.test(s)).map((s) => {
        const [a, b] = s.split('-');
        return [Number(a), Number(b ?? a)] as [number, number];
      });
      return { id: f[0]!, host: addr.slice(0, i), port: Number(addr.slice(i + 1)), primary: f[2]!.includes('master'), slots };
    });
}

const isCluster = REDIS_URL !== null && parseRedisUrl(REDIS_URL).mode === 'cluster';

describe.skipIf(!isCluster)('slot migration on Redis Cluster', () => {
  const prefix = testPrefix();
  afterAll(async () => dropPrefix(prefix));

  it('loses no acknowledged write while the user\'s slot moves to another primary', async () => {
    const target = parseRedisUrl(REDIS_URL!);
    const seed = new Redis({ host: target.nodes[0]!.host, port: target.nodes[0]!.port });
    const store = await AkashicStore.open({ url: urlWithPrefix(prefix), gc: { intervalMs: 0 }, durability: 'sync' });
    const links: Redis[] = [seed];
    try {
      const user = 'mover';
      await store.put(user, { sessionId: 's0', text: 'first note before the move', keywords: ['first'] });
      const slot = Number(await seed.call('CLUSTER', 'KEYSLOT', `{${prefix}:${user}}`));
      const nodes = await clusterNodes(seed);
      const owns = (n: NodeInfo): boolean => n.slots.some(([a, b]) => slot >= a && slot <= b);
      const source = nodes.find((n) => n.primary && owns(n))!;
      const dest = nodes.find((n) => n.primary && !owns(n))!;
      expect(source).toBeDefined();
      expect(dest).toBeDefined();
      const src = new Redis({ host: source.host, port: source.port });
      const dst = new Redis({ host: dest.host, port: dest.port });
      links.push(src, dst);

      // The writer: one put at a time, each recorded once acknowledged.
      const acknowledged: { sessionId: string; chunkId: string; text: string }[] = [];
      let stop = false;
      let writerError: unknown = null;
      const writer = (async () => {
        for (let i = 1; !stop || i <= 40; i++) {
          const text = `note ${i} written during the move`;
          try {
            const r = await store.put(user, { sessionId: `s${i % 3}`, text, keywords: [`k${i % 7}`] });
            acknowledged.push({ sessionId: r.sessionId, chunkId: r.chunkId, text });
          } catch (err) {
            writerError = err;
            return;
          }
        }
      })();

      // Let some writes land, then move the slot the way a reshard does.
      while (acknowledged.length < 10 && writerError === null) await new Promise((r) => setTimeout(r, 5));
      await dst.call('CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', source.id);
      await src.call('CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', dest.id);
      for (;;) {
        // One key at a time, so writes meet the partition half-moved (some keys here, some there: TRYAGAIN).
        const keys = (await src.call('CLUSTER', 'GETKEYSINSLOT', String(slot), '1')) as string[];
        if (keys.length === 0) break;
        await src.call('MIGRATE', dest.host, String(dest.port), '', '0', '10000', 'REPLACE', 'KEYS', ...keys);
        await new Promise((r) => setTimeout(r, 30));
      }
      for (const n of nodes.filter((x) => x.primary)) {
        const link = new Redis({ host: n.host, port: n.port });
        links.push(link);
        await link.call('CLUSTER', 'SETSLOT', String(slot), 'NODE', dest.id);
      }
      const movedAt = acknowledged.length;
      // Writes go on after the move, through the new owner.
      while (acknowledged.length < movedAt + 10 && writerError === null) await new Promise((r) => setTimeout(r, 5));
      stop = true;
      await writer;

      expect(writerError).toBeNull();
      const after = await clusterNodes(seed);
      expect(after.find((n) => n.id === dest.id)!.slots.some(([a, b]) => slot >= a && slot <= b)).toBe(true);
      // Every acknowledged write is there, with its text.
      for (const a of acknowledged) {
        const got = await store.get(user, a.sessionId, a.chunkId);
        expect(got?.text).toBe(a.text);
      }
      expect(acknowledged.length).toBeGreaterThanOrEqual(40);
      const report = await store.verify();
      expect(report.ok).toBe(true);
    } finally {
      await store.close();
      for (const l of links) l.disconnect();
    }
  });
});

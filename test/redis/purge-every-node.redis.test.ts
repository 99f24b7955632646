/**
 * Erasure on Redis Cluster: after `purge({ user })`, no key and no value on any node (primaries and replicas)
 * names the user or holds the user's text. The replicas are read after every primary's writes reached them (WAIT).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { REDIS_URL, dropPrefix, everyNode, quitAll, scanKeys, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

/** Every key of the prefix on `node` with its members or values, as raw bytes. */
async function dumpNode(node: Redis, prefix: string): Promise<{ key: string; bytes: Buffer[] }[]> {
  const out: { key: string; bytes: Buffer[] }[] = [];
  for (const key of await scanKeys(node, `{${prefix}:*`)) {
    const type = await node.type(key);
    const bytes: Buffer[] =
      type === 'hash' ? await node.hgetallBuffer(key).then((h) => Object.entries(h).flatMap(([k, v]) => [Buffer.from(k), v]))
      : type === 'zset' ? await node.zrangeBuffer(key, '0', '-1')
      : type === 'set' ? await node.smembersBuffer(key)
      : type === 'list' ? await node.lrangeBuffer(key, 0, -1)
      : type === 'string' ? [(await node.getBuffer(key)) ?? Buffer.alloc(0)]
      : [];
    out.push({ key, bytes });
  }
  return out;
}

describe.skipIf(REDIS_URL === null)('purge on Redis Cluster', () => {
  const prefix = testPrefix();
  afterAll(async () => dropPrefix(prefix));

  it('leaves no key or value naming the user on any primary or replica', async () => {
    const user = 'zelda' + randomBytes(4).toString('hex');
    const marker = 'marker' + randomBytes(6).toString('hex');
    const store = await AkashicStore.open({ url: urlWithPrefix(prefix), gc: { intervalMs: 0 }, blockCapacity: 4 });
    try {
      for (let i = 0; i < 12; i++) await store.put(user, { sessionId: `s${i % 3}`, text: `${marker} note ${i} about ${user}`, keywords: [marker, `kw${i}`], ttlMs: 3_600_000 });
      await store.put('other', { sessionId: 's', text: 'unrelated memory', keywords: ['other'] });
      const listed = [];
      for await (const e of store.list(user)) listed.push(e);
      await store.write(user, [{ op: 'update', sessionId: listed[0]!.sessionId, chunkId: listed[0]!.chunkId, text: `${marker} updated` }]);
      await store.write(user, [{ op: 'delete', sessionId: listed[1]!.sessionId, chunkId: listed[1]!.chunkId }]);
      await store.recordCoAccess(user, listed.slice(2, 5).map((e) => ({ sessionId: e.sessionId, chunkId: e.chunkId })));
      const nodes = await everyNode();
      // Replicas answer reads only after READONLY (otherwise they redirect to their primary).
      for (const n of nodes) await n.call('READONLY').catch(() => undefined);
      try {
        const before = (await Promise.all(nodes.map((n) => dumpNode(n, prefix)))).flat();
        expect(before.some((e) => e.key.includes(user))).toBe(true);
        expect(before.some((e) => e.bytes.some((b) => b.includes(marker)))).toBe(true);

        const report = await store.purge({ user });
        expect(report.chunks).toBeGreaterThanOrEqual(11);
        // Every primary's writes reach its replica before the replicas are read.
        for (const n of nodes) if ((await n.role())[0] === 'master') await n.wait(1, 2_000);
        const after = (await Promise.all(nodes.map((n) => dumpNode(n, prefix)))).flat();
        expect(after.filter((e) => e.key.includes(user)).map((e) => e.key)).toEqual([]);
        const naming = after.filter((e) => e.bytes.some((b) => b.includes(user) || b.includes(marker)));
        expect(naming.map((e) => e.key)).toEqual([]);
        // The other user's memory is untouched.
        const others = [];
        for await (const e of store.list('other')) others.push(e);
        expect(others).toHaveLength(1);
      } finally {
        await quitAll(nodes);
      }
    } finally {
      await store.close();
    }
  });

  it('leaves nothing naming the user when another process that had read it relocates and closes afterwards', async () => {
    const user = 'yorick' + randomBytes(4).toString('hex');
    const reader = await AkashicStore.open({ url: urlWithPrefix(prefix), gc: { intervalMs: 0 } });
    const purger = await AkashicStore.open({ url: urlWithPrefix(prefix), gc: { intervalMs: 0 } });
    const nodes = await everyNode();
    try {
      const refs = [];
      for (let i = 0; i < 4; i++) {
        const r = await reader.put(user, { sessionId: 's', text: `note ${i} of ${user}` });
        refs.push({ sessionId: r.sessionId, chunkId: r.chunkId });
      }
      // The reader counts retrievals and co-access in memory …
      await reader.getMany(user, refs);
      await reader.recordCoAccess(user, refs.slice(0, 3));
      // … the other process purges the user; then the reader relocates (a late co-location) and closes.
      await purger.purge({ user });
      await reader.relocate(user, refs.slice(0, 2));
      await reader.close();
      for (const n of nodes) await n.call('READONLY').catch(() => undefined);
      for (const n of nodes) if ((await n.role())[0] === 'master') await n.wait(1, 2_000);
      const after = (await Promise.all(nodes.map((n) => dumpNode(n, prefix)))).flat();
      expect(after.filter((e) => e.key.includes(user)).map((e) => e.key)).toEqual([]);
      expect(after.filter((e) => e.bytes.some((b) => b.includes(user))).map((e) => e.key)).toEqual([]);
    } finally {
      await quitAll(nodes);
      await reader.close();
      await purger.close();
    }
  });
});

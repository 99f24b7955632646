/**
 * The crash test's store on Redis: a fresh `?prefix=` per run (so runs and other stores on the deployment never
 * see each other's keys), and the removal of that prefix's keys afterwards.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { parseRedisUrl } from '../../src/backend/redis/redis-url.js';

/** `url` with a prefix of its own, unless it names one already. */
export function withRunPrefix(url: string): string {
  if (/[?&]prefix=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}prefix=crash${randomBytes(5).toString('hex')}`;
}

/** Deletes every key of the URL's prefix (its hash tags `{prefix:…}`) on every primary. */
export async function dropRunKeys(url: string): Promise<number> {
  const t = parseRedisUrl(url);
  const client = t.mode === 'single' ? new Redis({ host: t.nodes[0]!.host, port: t.nodes[0]!.port, db: t.database }) : new Cluster(t.nodes.map((n) => ({ host: n.host, port: n.port })));
  let dropped = 0;
  try {
    // A cluster client knows its nodes only once it has loaded the slot table.
    if (client instanceof Cluster && client.status !== 'ready') await new Promise((resolve, reject) => client.once('ready', resolve).once('error', reject));
    const primaries = client instanceof Cluster ? client.nodes('master') : [client];
    for (const node of primaries) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `{${t.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        for (const k of keys) dropped += await client.del(k);
      } while (cursor !== '0');
    }
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
  return dropped;
}

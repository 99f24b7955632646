/**
 * A Redis error during a commit latches the store read-only, as a LevelDB write error does: the failing write is
 * AKASHIC_IO, every later write AKASHIC_READ_ONLY, reads keep working, and a reopen (once Redis accepts writes
 * again) recovers. The error is real: the store connects as a Redis ACL user that may read but not write the data
 * types the store writes, so the commit's script fails on the server (NOPERM).
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { parseRedisUrl } from '../../src/backend/redis/redis-url.js';
import { REDIS_SINGLE_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

describe.skipIf(REDIS_SINGLE_URL === null)('a Redis write error latches the store read-only', () => {
  const prefix = testPrefix();
  const user = `ro${prefix}`;
  const admin = (): Redis => {
    const n = parseRedisUrl(REDIS_SINGLE_URL!).nodes[0]!;
    return new Redis({ host: n.host, port: n.port });
  };
  afterAll(async () => {
    const a = admin();
    await a.acl('DELUSER', user).catch(() => undefined);
    a.disconnect();
    await dropPrefix(prefix, REDIS_SINGLE_URL!);
  });

  it('AKASHIC_IO for the failing commit, AKASHIC_READ_ONLY after, reads still served, reopen recovers', async () => {
    const url = urlWithPrefix(prefix, REDIS_SINGLE_URL!);
    const first = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
    const kept = await first.put('alice', { sessionId: 's', text: 'written before the failure' });
    await first.close();

    const a = admin();
    try {
      // May read everything and run scripts, but not the commands that change sorted sets and hashes.
      await a.acl('SETUSER', user, 'on', '>pw', '~*', '&*', '+@all', '-zadd', '-zrem', '-hset', '-hdel');
      const limited = url.replace('redis://', `redis://${user}:pw@`);
      const store = await AkashicStore.open({ url: limited, gc: { intervalMs: 0 } });
      try {
        const failed = await store.put('alice', { sessionId: 's', text: 'refused by the server' }).catch((e: unknown) => e);
        expect(failed).toMatchObject({ code: 'AKASHIC_IO' });
        expect(String((failed as Error).message)).toMatch(/NOPERM|can't run this command/i);
        await expect(store.put('alice', { sessionId: 's', text: 'after the latch' })).rejects.toMatchObject({ code: 'AKASHIC_READ_ONLY' });
        expect((await store.get('alice', kept.sessionId, kept.chunkId))?.text).toBe('written before the failure');
      } finally {
        await store.close();
      }
    } finally {
      a.disconnect();
    }
    const reopened = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
    try {
      await reopened.put('alice', { sessionId: 's', text: 'after reopening' });
      const texts = [];
      for await (const e of reopened.list('alice')) texts.push((await reopened.get('alice', e.sessionId, e.chunkId))?.text);
      expect(texts.sort()).toEqual(['after reopening', 'written before the failure']);
      expect((await reopened.verify()).ok).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});

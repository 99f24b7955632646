/**
 * `verify` and `dump` on a Redis Cluster while two other clients keep writing the same users (puts, updates with
 * history, deletes, expiring chunks): every verify is clean, every dump is whole (its header's counts are its
 * lines) and loads into an empty LevelDB directory that verifies clean. Each admin read sees every user as of one
 * of its commits (a frozen copy of the user's partition), so no commit landing mid-read can make it refuse.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicStore, type ChunkRef } from '../../src/index.js';
import { runMain, tempDir } from '../cli/fixtures.js';
import { REDIS_SINGLE_URL, REDIS_URL, dropPrefix, everyNode, quitAll, scanKeys, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

const USERS = ['ada', 'bo', 'cy', 'di'];

/** One writer: a loop of puts, updates and deletes over USERS until `stop()`; counts its acknowledged writes. */
function writer(store: AkashicStore, name: string): { stop: () => Promise<void>; count: () => number } {
  let stopped = false;
  let n = 0;
  const mine = new Map<string, ChunkRef[]>();
  const loop = (async () => {
    while (!stopped) {
      const user = USERS[n % USERS.length]!;
      const refs = mine.get(user) ?? [];
      const pick = refs[(n * 7) % Math.max(1, refs.length)];
      if (n % 5 === 3 && pick !== undefined) {
        await store.write(user, [{ op: 'update', sessionId: pick.sessionId, chunkId: pick.chunkId, text: `${name} revised ${n}` }]);
      } else if (n % 11 === 7 && pick !== undefined) {
        await store.write(user, [{ op: 'delete', sessionId: pick.sessionId, chunkId: pick.chunkId }]);
        refs.splice(refs.indexOf(pick), 1);
      } else {
        const ttl = n % 4 === 0 ? { ttlMs: 3_600_000 } : {};
        const r = await store.put(user, { sessionId: `s${n % 3}`, text: `${name} note ${n} about maps and tea`, keywords: ['tea', `${name}${n % 9}`], ...ttl });
        refs.push({ sessionId: r.sessionId, chunkId: r.chunkId });
      }
      mine.set(user, refs);
      n++;
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
    count: () => n,
  };
}

const DEPLOYMENTS = [
  { name: 'Redis Cluster', base: REDIS_URL, rounds: 3 },
  { name: 'one Redis node', base: REDIS_SINGLE_URL, rounds: 2 },
];

describe.each(DEPLOYMENTS)('verify and dump beside writers on $name', ({ base, rounds }) => {
  const prefix = testPrefix();
  const url = base === null ? '' : urlWithPrefix(prefix, base);
  afterAll(async () => {
    if (base !== null) await dropPrefix(prefix, base);
  });

  it.skipIf(base === null)('are clean and whole on every run while two clients write the same users', async () => {
    const tmp = await tempDir();
    const a = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
    const b = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
    const writers = [writer(a, 'a'), writer(b, 'b')];
    const total = (): number => writers.reduce((s, w) => s + w.count(), 0);
    try {
      while (total() < 40) await new Promise((r) => setTimeout(r, 20));
      for (let round = 0; round < rounds; round++) {
        const before = total();
        const verify = await runMain(['verify', '--db', url]);
        expect(verify.code, `round ${round}: ${verify.stdout.slice(0, 2000)} ${verify.stderr}`).toBe(0);
        const dump = await runMain(['dump', '--db', url]);
        expect(dump.code, `round ${round}: ${dump.stderr}`).toBe(0);
        // Writes landed while the two admin reads ran: they did not read a quiet store.
        expect(total()).toBeGreaterThan(before);

        const lines = dump.stdout.trim().split('\n');
        const header = JSON.parse(lines[0]!) as { chunks: number; versions: number; turns: number };
        expect(lines).toHaveLength(1 + header.chunks + header.versions + header.turns);
        expect(header.chunks).toBeGreaterThan(0);

        const file = join(tmp.dir, `dump${round}.jsonl`);
        await writeFile(file, dump.stdout);
        const dir = join(tmp.dir, `copy${round}`);
        const load = await runMain(['load', '--db', dir, file]);
        expect(load.code, load.stderr).toBe(0);
        expect((await runMain(['verify', '--db', dir])).code).toBe(0);
        const again = await runMain(['dump', '--db', dir]);
        expect(again.stdout.trim().split('\n').slice(1)).toEqual(lines.slice(1));
      }
    } finally {
      for (const w of writers) await w.stop();
      await a.close();
      await b.close();
      await tmp.dispose();
    }
    // The admin reads left none of their partition copies behind (closed, they delete them), on any node.
    const nodes = await everyNode(base!);
    try {
      for (const n of nodes) expect(await scanKeys(n, `{${prefix}:*}:s:*`)).toEqual([]);
    } finally {
      await quitAll(nodes);
    }
  }, 240_000);
});

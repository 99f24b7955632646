/**
 * Several processes, one memory: four processes open the same Redis-backed store and write the same users at once
 * (puts, updates of one shared chunk per user, deletes, co-access). Every acknowledged write is reflected (no lost
 * update: each shared chunk's version is one plus the updates acknowledged by all processes), no chunk appears
 * twice, and verify() is clean. The writers run the built package (dist/) in child processes.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

const run = promisify(execFile);
const WRITER = fileURLToPath(new URL('./fixtures/shared-writer.mjs', import.meta.url));
const PROCESSES = 4;
const ROUNDS = 15;
const USERS = ['ada', 'bob', 'cy'];

interface Ref {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
}

describe.skipIf(REDIS_URL === null)('several processes sharing one Redis-backed store', () => {
  const prefix = testPrefix();
  afterAll(async () => dropPrefix(prefix));

  it('loses no acknowledged write, duplicates no chunk, and verifies clean', { timeout: 240_000 }, async () => {
    const url = urlWithPrefix(prefix);
    const setup = await AkashicStore.open({ url, blockCapacity: 8, gc: { intervalMs: 0 } });
    const shared: Record<string, Ref> = {};
    for (const u of USERS) {
      const r = await setup.put(u, { sessionId: 'shared', text: `${u} counter` });
      shared[u] = { userId: u, sessionId: r.sessionId, chunkId: r.chunkId };
    }
    await setup.close();

    const outs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => run(process.execPath, [WRITER, url, String(i), String(ROUNDS), USERS.join(','), JSON.stringify(shared)], { maxBuffer: 1 << 24 })),
    );
    const reports = outs.map((o) => JSON.parse(o.stdout) as { puts: Ref[]; updates: Record<string, number>; deleted: Ref[] });

    const store = await AkashicStore.open({ url, readOnly: true });
    try {
      const puts = reports.flatMap((r) => r.puts);
      const deleted = new Set(reports.flatMap((r) => r.deleted).map((d) => d.chunkId));
      expect(puts).toHaveLength(PROCESSES * ROUNDS * USERS.length);
      expect(new Set(puts.map((p) => p.chunkId)).size).toBe(puts.length);
      for (const u of USERS) {
        const listed: string[] = [];
        for await (const e of store.list(u)) listed.push(e.chunkId);
        expect(new Set(listed).size).toBe(listed.length);
        const expected = puts.filter((p) => p.userId === u && !deleted.has(p.chunkId)).map((p) => p.chunkId);
        expect(new Set(listed)).toEqual(new Set([shared[u]!.chunkId, ...expected]));
        const acked = reports.reduce((n, r) => n + r.updates[u]!, 0);
        expect((await store.get(u, 'shared', shared[u]!.chunkId))!.version).toBe(1 + acked);
      }
      for (const p of puts.filter((x) => !deleted.has(x.chunkId)).slice(0, 20)) {
        expect((await store.get(p.userId, p.sessionId, p.chunkId))?.text).toContain(p.userId);
      }
      expect((await store.verify()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

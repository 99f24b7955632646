/**
 * A slot migration to another primary while a store writes: the slots of several users' partitions (and of the
 * global partition) move key by key (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE in small batches, SETSLOT NODE),
 * as `redis-cli --cluster reshard` does, while puts continue. Writes meet ASK and TRYAGAIN and are retried; nothing
 * acknowledged may be lost, and the store verifies clean afterwards.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { partitionKeys } from '../../src/backend/redis/partition-keys.js';
import { REDIS_URL, dropPrefix, everyNode, quitAll, testPrefix, urlWithPrefix } from '../helpers/redis-test-url.js';

interface Primary {
  readonly id: string;
  readonly client: Redis;
  readonly host: string;
  readonly port: number;
}

async function primaries(): Promise<Primary[]> {
  const nodes = await everyNode();
  const out: Primary[] = [];
  for (const n of nodes) {
    if ((await n.role())[0] !== 'master') {
      n.disconnect();
      continue;
    }
    out.push({ id: String(await n.call('CLUSTER', 'MYID')), client: n, host: n.options.host!, port: n.options.port! });
  }
  return out;
}

async function ownerOf(ps: readonly Primary[], slot: number): Promise<Primary> {
  const slots = (await ps[0]!.client.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
  const r = slots.find(([a, b]) => slot >= a && slot <= b)!;
  return ps.find((p) => p.id === r[2][2])!;
}

/** Moves one slot from `src` to `dst`, a few keys at a time, with a pause between batches so writes interleave. */
async function migrateSlot(ps: readonly Primary[], slot: number, src: Primary, dst: Primary): Promise<number> {
  await dst.client.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', src.id);
  await src.client.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', dst.id);
  let moved = 0;
  for (;;) {
    const keys = (await src.client.call('CLUSTER', 'GETKEYSINSLOT', slot, 2)) as string[];
    if (keys.length === 0) break;
    await src.client.call('MIGRATE', dst.host, dst.port, '', 0, 5_000, 'REPLACE', 'KEYS', ...keys);
    moved += keys.length;
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const p of [dst, src, ...ps.filter((p) => p !== src && p !== dst)]) await p.client.call('CLUSTER', 'SETSLOT', slot, 'NODE', dst.id);
  return moved;
}

describe.skipIf(REDIS_URL === null || !REDIS_URL.startsWith('redis+cluster:'))('slot migration under writes', () => {
  const prefix = testPrefix();
  afterAll(async () => dropPrefix(prefix));

  it('loses nothing acknowledged while the slots of the written partitions move to another primary', async () => {
    const store = await AkashicStore.open({ url: urlWithPrefix(prefix), gc: { intervalMs: 0 }, durability: 'relaxed' });
    const users = Array.from({ length: 6 }, (_, i) => `mover${i}`);
    const acked: { user: string; sessionId: string; chunkId: string; text: string }[] = [];
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const user = users[i % users.length]!;
        const text = `note ${i} of ${user}`;
        const r = await store.put(user, { sessionId: 's', text, keywords: [`k${i % 7}`] });
        acked.push({ user, sessionId: r.sessionId, chunkId: r.chunkId, text });
      }
    })();
    const ps = await primaries();
    let movedKeys = 0;
    try {
      while (acked.length < 60) await new Promise((r) => setTimeout(r, 20));
      const slots = new Set<number>();
      for (const p of ['', ...users]) slots.add(Number(await ps[0]!.client.call('CLUSTER', 'KEYSLOT', partitionKeys(prefix, p).order)));
      for (const slot of slots) {
        const src = await ownerOf(ps, slot);
        const dst = ps.find((p) => p !== src)!;
        movedKeys += await migrateSlot(ps, slot, src, dst);
      }
      const after = acked.length;
      while (acked.length < after + 30) await new Promise((r) => setTimeout(r, 20));
    } finally {
      stop = true;
      await writer.catch((err: unknown) => {
        throw err;
      });
      await quitAll(ps.map((p) => p.client));
    }
    try {
      expect(movedKeys).toBeGreaterThan(0);
      let lost = 0;
      for (const a of acked) if ((await store.get(a.user, a.sessionId, a.chunkId))?.text !== a.text) lost++;
      console.log(`[slot migration] ${acked.length} puts acknowledged, ${movedKeys} Redis keys moved, ${lost} lost`);
      expect(lost).toBe(0);
      expect((await store.verify()).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);
});

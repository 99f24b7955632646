/**
 * How one process's operations spread over the primaries of a Redis Cluster: three users placed one per primary
 * (by their hash slots), 20 chunks each, then 60 puts and 60 fetches of 5 chunks, round-robin over the users,
 * counting the commands each primary served (INFO commandstats) during each phase.
 *
 *   node dist/tools/bench-backends/spread.js [BASE_PORT]      (primaries on BASE_PORT..BASE_PORT+2, default 7500)
 */
import { Redis } from 'ioredis';
import { AkashicStore, type ChunkRef } from '../../src/index.js';
import { nodeFigures } from './command-stats.js';

const base = Number(process.argv[2] ?? 7500);
const ports = [base, base + 1, base + 2];

async function commandsPerPrimary(): Promise<number[]> {
  return (await Promise.all(ports.map((port) => nodeFigures(port)))).map((f) => f.calls);
}

async function main(): Promise<void> {
  const seed = new Redis({ port: base, host: '127.0.0.1' });
  const nodes = String(await seed.call('CLUSTER', 'NODES')).trim().split('\n').map((l) => l.split(' '));
  const ownerOf = async (key: string): Promise<number> => {
    const slot = Number(await seed.call('CLUSTER', 'KEYSLOT', key));
    const owner = nodes.find((f) => f[2]!.includes('master') && f.slice(8).some((r) => { const [a, b] = r.split('-').map(Number); return slot >= a! && slot <= (b ?? a)!; }))!;
    return ports.indexOf(Number(owner[1]!.split('@')[0]!.split(':')[1]));
  };
  const tag = 'spread' + Date.now().toString(36);
  const users: string[] = [];
  const taken = new Set<number>();
  for (let i = 0; users.length < 3 && i < 1000; i++) {
    const o = await ownerOf(`{${tag}:u${i}}`);
    if (!taken.has(o)) {
      taken.add(o);
      users.push(`u${i}`);
    }
  }
  console.log(`users ${users.join(', ')} on primaries ${[...taken].join(', ')}; the shared partition on primary ${await ownerOf(`{${tag}:}`)}`);
  const store = await AkashicStore.open({ url: `redis+cluster://127.0.0.1:${base}?prefix=${tag}`, gc: { intervalMs: 0 } });
  try {
    const refs = new Map<string, ChunkRef[]>();
    for (const u of users) {
      const mine: ChunkRef[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await store.put(u, { sessionId: 's', text: `note ${i} of ${u} about tea and maps`, keywords: ['tea', `k${i}`] });
        mine.push({ sessionId: r.sessionId, chunkId: r.chunkId });
      }
      refs.set(u, mine);
    }
    for (const phase of ['put', 'fetch'] as const) {
      const before = await commandsPerPrimary();
      for (let k = 0; k < 60; k++) {
        const u = users[k % users.length]!;
        if (phase === 'put') await store.put(u, { sessionId: 's', text: `more ${k}`, keywords: ['x'] });
        else await store.getMany(u, refs.get(u)!.slice(k % 15, (k % 15) + 5));
      }
      const delta = (await commandsPerPrimary()).map((x, i) => x - before[i]!);
      console.log(`${phase}: commands per primary ${delta.join(' / ')}, ${(delta.reduce((s, x) => s + x, 0) / 60).toFixed(1)} per operation`);
    }
  } finally {
    await store.close();
    seed.disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

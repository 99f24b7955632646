/**
 * Measures what a Redis-backed store costs per chunk: Redis memory (INFO used_memory, after vs before), stored keys
 * (sorted-set members) per chunk, and put throughput from one client. A measurement, not a test:
 *
 *   node dist/tools/redis/memory-per-chunk.js --url redis://127.0.0.1:7310 --chunks 20000 [--durability relaxed]
 *
 * Chunks are ~600 bytes of text with 8 keywords, 40 users, 4 sessions each, as a memory layer's compacted chunks
 * are; the store uses the default layout (16 slots per block). Everything written is deleted afterwards.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { AkashicStore } from '../../src/index.js';
import { parseRedisUrl } from '../../src/backend/redis/redis-url.js';

const { values } = parseArgs({ options: { url: { type: 'string' }, chunks: { type: 'string', default: '20000' }, durability: { type: 'string', default: 'relaxed' } } });
if (values.url === undefined) throw new Error('--url is required');
const target = parseRedisUrl(values.url);
const chunks = Number(values.chunks);
const prefix = 'mem' + randomBytes(4).toString('hex');
const raw = target.mode === 'single' ? new Redis({ host: target.nodes[0]!.host, port: target.nodes[0]!.port }) : new Cluster(target.nodes.map((n) => ({ ...n })));
const primaries = (): Redis[] => (raw instanceof Cluster ? raw.nodes('master') : [raw]);

async function usedMemory(): Promise<number> {
  let sum = 0;
  for (const n of primaries()) sum += Number(/used_memory:(\d+)/.exec(await n.info('memory'))![1]);
  return sum;
}

async function scan(pattern: string): Promise<string[]> {
  const out: string[] = [];
  for (const n of primaries()) {
    let cursor = '0';
    do {
      const [next, keys] = await n.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      out.push(...keys);
    } while (cursor !== '0');
  }
  return out;
}

const WORDS = 'tea garden lisbon meeting project deadline sister birthday guitar lesson marathon training recipe pasta travel japan'.split(' ');
function chunkText(i: number): string {
  const parts: string[] = [];
  let x = i * 2654435761 + 7;
  while (parts.join(' ').length < 600) {
    x = (x * 1103515245 + 12345) >>> 0;
    parts.push(WORDS[x % WORDS.length]! + (x % 1000).toString());
  }
  return parts.join(' ');
}

await (raw instanceof Cluster ? raw.connect().catch(() => undefined) : Promise.resolve());
const before = await usedMemory();
const store = await AkashicStore.open({ url: `${values.url}${values.url.includes('?') ? '&' : '?'}prefix=${prefix}`, durability: values.durability as 'relaxed', gc: { intervalMs: 0 } });
const t0 = Date.now();
const writers = 8;
let next = 0;
await Promise.all(
  Array.from({ length: writers }, async () => {
    for (let i = next++; i < chunks; i = next++) {
      const text = chunkText(i);
      await store.put(`user${i % 40}`, { sessionId: `s${i % 4}`, text, keywords: text.split(' ').slice(0, 8) });
    }
  }),
);
const seconds = (Date.now() - t0) / 1000;
await store.close();
const after = await usedMemory();
let members = 0;
for (const k of await scan(`{${prefix}:*}:z`)) members += await raw.zcard(k);
const bytes = after - before;
console.log(`chunks ${chunks}, ${values.durability}, ${target.mode} (${primaries().length} primaries), ${writers} concurrent writers in one process`);
console.log(`puts/s ${(chunks / seconds).toFixed(0)}`);
console.log(`Redis memory ${(bytes / 1048576).toFixed(1)} MiB = ${(bytes / chunks).toFixed(0)} B per chunk → ${((bytes / chunks) * 1e6 / 2 ** 30).toFixed(2)} GiB per million chunks (primaries only; each replica holds as much again)`);
console.log(`stored keys ${members} = ${(members / chunks).toFixed(2)} per chunk`);
for (const k of await scan(`{${prefix}:*`)) await raw.del(k);
await raw.quit();

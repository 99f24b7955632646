/**
 * The Redis backend's own contract, beyond abstract-level's suite: partitions, atomic batches, fencing versions,
 * binary safety, order across partitions, and the registry of partitions left clean.
 */
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isAkashicError } from '../../src/errors.js';
import { partitionOf, partitionOfRange } from '../../src/backend/partition.js';
import { APPLY_BATCH } from '../../src/backend/redis/lua-scripts.js';
import { partitionKeys } from '../../src/backend/redis/partition-keys.js';
import { runScript } from '../../src/backend/redis/redis-connection.js';
import { RedisLevel } from '../../src/backend/redis/redis-level.js';
import { parseRedisUrl } from '../../src/backend/redis/redis-url.js';
import { REDIS_SINGLE_URL, REDIS_URL, dropPrefix, everyNode, quitAll, scanKeys, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

describe('partition rule (no Redis needed)', () => {
  it('puts a user-first key in its user and the rest in the global partition', () => {
    expect(partitionOf('!dir!alice\u0000s1\u000001J')).toBe('alice');
    expect(partitionOf('!cidx!k\u0000bob\u0000memory\u0000word\u0000x')).toBe('bob');
    expect(partitionOf('!alloc!open\u0000carol')).toBe('carol');
    expect(partitionOf('!binfo!carol\u0000000000000001')).toBe('carol');
    expect(partitionOf('!alloc!open\u0000carol\u0000s')).toBe('carol');
    expect(partitionOf('!alloc!next')).toBe('');
    expect(partitionOf('!meta!engine')).toBe('');
    expect(partitionOf('plain')).toBe('');
  });
  it('names the one partition of a range inside one user prefix, and none for a range across users', () => {
    expect(partitionOfRange('!dir!alice\u0000', '!dir!alice\u0001')).toBe('alice');
    expect(partitionOfRange('!dir!alice\u0000s1\u0000', '!dir!alice\u0000s1\u0001')).toBe('alice');
    expect(partitionOfRange('!dir!', '!dir"')).toBeNull();
    expect(partitionOfRange('!meta!', '!meta"')).toBe('');
    expect(partitionOfRange('!binfo!', '!binfo"')).toBeNull();
    expect(partitionOfRange('!dir!alice\u0000', '!dir!bob\u0000')).toBeNull();
    expect(partitionOfRange(undefined, '!dir!alice\u0001')).toBeNull();
  });
  it('refuses bad URLs with a typed error before any connection', () => {
    for (const bad of ['redis://', 'redis://h:0', 'redis://a:1,b:2', 'redis+cluster://h:1/3', 'redis://h:1?prefix={x}', 'redis://h:1?foo=1', 'http://h:1']) {
      expect(() => parseRedisUrl(bad), bad).toThrow(expect.objectContaining({ code: 'AKASHIC_INVALID_ARGUMENT' }));
    }
    expect(parseRedisUrl('redis+cluster://u:p%40ss@10.0.0.1:7000,10.0.0.2:7001?prefix=app1')).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      prefix: 'app1',
      database: 0,
      username: 'u',
      password: 'p@ss',
    });
  });
});

const TARGETS = [
  ['cluster', REDIS_URL],
  ['single node', REDIS_SINGLE_URL],
] as const;

for (const [name, base] of TARGETS) {
  describe.skipIf(base === null)(`RedisLevel on ${name}`, () => {
    const prefixes: string[] = [];
    const open = async (partitions?: ConstructorParameters<typeof RedisLevel>[0]['partitions']): Promise<RedisLevel> => {
      const prefix = testPrefix();
      prefixes.push(prefix);
      const db = new RedisLevel({ url: urlWithPrefix(prefix, base!), keyEncoding: 'utf8', valueEncoding: 'buffer', ...(partitions === undefined ? {} : { partitions }) });
      await db.open();
      return db;
    };
    afterAll(async () => {
      for (const p of prefixes) await dropPrefix(p, base!);
    });

    // A rule that spreads plain keys over 5 partitions by their first character, so ranges cross partitions.
    const byFirstChar = {
      partitionOf: (k: string) => 'p' + ((k.codePointAt(0) ?? 0) % 5),
      partitionOfRange: () => null,
    };

    it('keeps binary values and keys holding U+0000 exactly, in byte order across partitions', async () => {
      const db = await open(byFirstChar);
      try {
        const keys = ['a\u0000b', 'a', 'a\u0000', 'é\u0000x', 'z', 'b\u0001', '\u0001'];
        const value = (i: number): Buffer => Buffer.from([0, 255, i, 0, 10, 13]);
        await db.batch(keys.map((k, i) => ({ type: 'put' as const, key: k, value: value(i) })));
        const sorted = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
        expect(await db.keys().all()).toEqual(sorted);
        expect(await db.keys({ reverse: true }).all()).toEqual([...sorted].reverse());
        expect(await db.getMany(keys)).toEqual(keys.map((_, i) => value(i)));
        expect(await db.keys({ gt: 'a', lte: 'b\u0001', limit: 3 }).all()).toEqual(sorted.filter((k) => k > 'a' && k <= 'b\u0001').slice(0, 3));
      } finally {
        await db.close();
      }
    });

    it('reads ranges as memory-level does, whatever the operations (property, merged over partitions)', async () => {
      const db = await open(byFirstChar);
      const ref = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
      await ref.open();
      const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', '\u0000', 'é'), minLength: 1, maxLength: 4 });
      const op = fc.oneof(
        fc.record({ type: fc.constant('put' as const), key, value: fc.uint8Array({ maxLength: 6 }).map((u) => Buffer.from(u)) }),
        fc.record({ type: fc.constant('del' as const), key }),
      );
      const range = fc.record({ gte: fc.option(key, { nil: undefined }), lt: fc.option(key, { nil: undefined }), reverse: fc.boolean(), limit: fc.integer({ min: -1, max: 8 }) });
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(op, { maxLength: 25 }), range, async (ops, r) => {
            await db.batch(ops);
            await ref.batch(ops);
            const o = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined));
            expect(await db.iterator(o).all()).toEqual(await ref.iterator(o).all());
          }),
          { numRuns: 40 },
        );
      } finally {
        await db.close();
        await ref.close();
      }
    });

    it('reads a range a page at a time even when the reader takes one entry per next()', async () => {
      for (const partitions of [undefined, byFirstChar]) {
        const db = await open(partitions);
        try {
          const keys = Array.from({ length: 300 }, (_, i) => `${'abcde'[i % 5]!}${String(i).padStart(4, '0')}`);
          await db.batch(keys.map((k) => ({ type: 'put' as const, key: k, value: Buffer.from(k) })));
          const scripts = vi.spyOn(db.client, 'pipeline');
          const seen: string[] = [];
          const it = db.iterator();
          for (let e = await it.next(); e !== undefined; e = await it.next()) seen.push(e[0]);
          await it.close();
          expect(seen).toEqual([...keys].sort());
          // Every command is a pipeline (auto-pipelining): the registry read, then one partition's pages of 64, 128 and
          // 256 entries, or five partitions' first pages of 64 (60 keys each). Never one round trip per entry.
          expect(scripts.mock.calls.length).toBeLessThanOrEqual(partitions === undefined ? 4 : 6);
          scripts.mockRestore();
        } finally {
          await db.close();
        }
      }
    });

    it('applies a batch of one partition all or nothing: a reader never sees half of it', async () => {
      const db = await open();
      try {
        const keys = Array.from({ length: 20 }, (_, i) => `!dir!alice\u0000s\u0000${String(i).padStart(3, '0')}`);
        let stop = false;
        const torn: string[] = [];
        const reader = (async () => {
          while (!stop) {
            const vs = await db.getMany(keys);
            const seen = new Set(vs.map((v) => v?.toString()));
            if (seen.size > 1) torn.push([...seen].join(','));
            const range = await db.values({ gte: '!dir!alice\u0000', lt: '!dir!alice\u0001' }).all();
            if (range.length > 0 && new Set(range.map((v) => v.toString())).size > 1) torn.push('range');
          }
        })();
        for (let round = 0; round < 60; round++) await db.batch(keys.map((k) => ({ type: 'put' as const, key: k, value: Buffer.from(String(round)) })));
        stop = true;
        await reader;
        expect(torn).toEqual([]);
        expect((await db.getMany(keys)).map((v) => v?.toString())).toEqual(keys.map(() => '59'));
      } finally {
        await db.close();
      }
    });

    it('fences a batch on a partition version: a moved version fails with AKASHIC_CONFLICT and applies nothing', async () => {
      const db = await open();
      try {
        const k = (s: string): string => `!dir!bob\u0000s\u0000${s}`;
        expect(await db.partitionVersion('bob')).toBe('0');
        const versions = new Map<string, string>();
        await db.batch([{ type: 'put', key: k('a'), value: Buffer.from('1') }], { expectVersion: { partition: 'bob', version: '0' }, versions } as never);
        const v1 = versions.get('bob')!;
        expect(v1).toBe(await db.partitionVersion('bob'));
        expect(BigInt(v1)).toBeGreaterThan(0n);
        // Another writer moves the version.
        await db.put(k('b'), Buffer.from('2'));
        const v2 = await db.partitionVersion('bob');
        expect(BigInt(v2)).toBe(BigInt(v1) + 1n);
        const err = await db.batch([{ type: 'put', key: k('c'), value: Buffer.from('3') }, { type: 'del', key: k('a') }], { expectVersion: { partition: 'bob', version: v1 } } as never).catch((e: unknown) => e);
        expect(isAkashicError(err, 'AKASHIC_CONFLICT')).toBe(true);
        expect(await db.get(k('c'))).toBeUndefined();
        expect(await db.get(k('a'))).toEqual(Buffer.from('1'));
        expect(await db.partitionVersion('bob')).toBe(v2);
        await db.batch([{ type: 'put', key: k('c'), value: Buffer.from('3') }], { expectVersion: { partition: 'bob', version: v2 } } as never);
        expect(await db.get(k('c'))).toEqual(Buffer.from('3'));
        await expect(db.batch([{ type: 'del', key: k('c') }], { expectVersion: { partition: 'bob', version: 'x' } } as never)).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
      } finally {
        await db.close();
      }
    });

    it('never applies a retried batch twice (the batch id is remembered)', async () => {
      const db = await open();
      try {
        const keys = partitionKeys(db.target.prefix, 'carol');
        const args = ['retry-1', '1', '', '1', 'p', '!dir!carol\u0000s\u0000x', 'v'];
        const first = (await runScript(db.client, APPLY_BATCH, [keys.order, keys.values, keys.version, keys.recent], args)) as unknown[];
        expect(Number(first[0])).toBe(1);
        const version = await db.partitionVersion('carol');
        const again = (await runScript(db.client, APPLY_BATCH, [keys.order, keys.values, keys.version, keys.recent], args)) as unknown[];
        expect(Number(again[0])).toBe(2);
        expect(await db.partitionVersion('carol')).toBe(version);
      } finally {
        await db.close();
      }
    });

    it('leaves no key of a partition once it is emptied, and keeps the registry to the partitions holding data', async () => {
      const db = await open();
      const prefix = db.target.prefix;
      try {
        await db.batch([
          { type: 'put', key: '!dir!dave\u0000s\u0000a', value: Buffer.from('x') },
          { type: 'put', key: '!dir!erin\u0000s\u0000a', value: Buffer.from('y') },
        ]);
        expect(await db.partitions()).toEqual(['dave', 'erin']);
        await db.clear({ gte: '!dir!dave\u0000', lt: '!dir!dave\u0001' });
        expect(await db.partitions()).toEqual(['erin']);
        const nodes = await everyNode(base!);
        try {
          const left = (await Promise.all(nodes.map((n) => scanKeys(n, `{${prefix}:*`)))).flat();
          expect(left.filter((k) => k.includes('dave'))).toEqual([]);
        } finally {
          await quitAll(nodes);
        }
      } finally {
        await db.close();
      }
    });
  });
}

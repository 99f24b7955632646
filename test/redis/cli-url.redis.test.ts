/**
 * The CLI's `--db` takes a Redis URL: a memory moves from LevelDB to Redis Cluster and back with `dump` and `load`
 * (byte-identical dumps), and the tools run while an application holds the same store and writes.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { buildSample, runMain, tempDir } from '../cli/fixtures.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

describe.skipIf(REDIS_URL === null)('CLI over a Redis URL', () => {
  const prefixes: string[] = [];
  const freshUrl = (): string => {
    const p = testPrefix();
    prefixes.push(p);
    return urlWithPrefix(p);
  };
  let tmp: { dir: string; dispose: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir();
  });
  afterEach(async () => tmp.dispose());
  afterAll(async () => {
    for (const p of prefixes) await dropPrefix(p);
  });

  it('migrates LevelDB → Redis → LevelDB with dump and load, every dump the same bytes', async () => {
    const src = join(tmp.dir, 'src');
    await buildSample(src);
    const first = await runMain(['dump', '--db', src]);
    expect(first.code).toBe(0);
    const file = join(tmp.dir, 'dump.jsonl');
    await writeFile(file, first.stdout);

    const url = freshUrl();
    const load = await runMain(['load', '--db', url, file]);
    expect(load.stderr).toBe('');
    expect(load.code).toBe(0);
    const fromRedis = await runMain(['dump', '--db', url]);
    expect(fromRedis.code).toBe(0);
    expect(fromRedis.stdout).toBe(first.stdout);
    const verify = await runMain(['verify', '--db', url]);
    expect(verify.code).toBe(0);

    // Loading again changes nothing (restores are idempotent).
    const again = await runMain(['load', '--db', url, file]);
    expect(again.stdout).toMatch(/0 restored/);

    const back = join(tmp.dir, 'back');
    await writeFile(file, fromRedis.stdout);
    expect((await runMain(['load', '--db', back, file])).code).toBe(0);
    expect((await runMain(['dump', '--db', back])).stdout).toBe(first.stdout);
  });

  // `verify` and `dump` while writers write are admin-reads-beside-writers.redis.test.ts; here they check the end state.
  it('runs stats and inspect while an application writes to the same store, dump and verify after', async () => {
    const url = freshUrl();
    const app = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
    let stop = false;
    let written = 0;
    const writer = (async () => {
      while (!stop) {
        await app.put(`user${written % 4}`, { sessionId: 's', text: `note ${written} while the tools run`, keywords: [`k${written}`] });
        written++;
      }
    })();
    try {
      while (written < 5) await new Promise((r) => setTimeout(r, 10));
      for (const cmd of ['stats', 'inspect']) {
        const r = await runMain([cmd, '--db', url]);
        expect(r.code, `${cmd}: ${r.stderr} ${r.stdout.slice(0, 1500)}`).toBe(0);
      }
    } finally {
      stop = true;
      await writer;
      await app.close();
    }
    const final = await runMain(['dump', '--db', url]);
    expect(final.stdout.trim().split('\n')).toHaveLength(written + 1);
    expect((await runMain(['verify', '--db', url])).code).toBe(0);
  });

  it('refuses a bad URL with a usage-level message and no connection', async () => {
    const r = await runMain(['stats', '--db', 'redis://nohost:0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/host:port/);
  });
});

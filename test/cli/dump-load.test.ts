import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dumpStore } from '../../src/admin/dump.js';
import { loadDump } from '../../src/admin/load.js';
import { openStoreForTool } from '../../src/admin/open-store.js';
import { buildSample, lines, openStore, runCli, tempDir } from './fixtures.js';

async function dumpText(path: string, opts: { userId?: string; sessionId?: string } = {}): Promise<string> {
  const store = await openStoreForTool(path, { readOnly: true });
  try {
    const out = lines();
    await dumpStore(store, out.sink, { ...opts, pageSize: 3 });
    return out.text();
  } finally {
    await store.close();
  }
}

describe('dump and load', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let src: string;
  let sample: Awaited<ReturnType<typeof buildSample>>;
  beforeEach(async () => {
    tmp = await tempDir();
    src = join(tmp.dir, 'src');
    sample = await buildSample(src);
  });
  afterEach(async () => tmp.dispose());

  it('dump → load into a new db → dump is byte-identical', async () => {
    const first = await dumpText(src);
    const file = join(tmp.dir, 'dump.jsonl');
    await writeFile(file, first);
    const dst = join(tmp.dir, 'dst');
    const { validation, result } = await loadDump(file, () => openStoreForTool(dst, { create: true }), { batchSize: 4 });
    expect(validation.ok).toBe(true);
    expect(result).toMatchObject({ restored: validation.chunks, skipped: 0 });
    const second = await dumpText(dst);
    expect(second).toBe(first);

    const recs = first.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const chunks = recs.filter((r) => r['type'] === 'chunk');
    const versions = recs.filter((r) => r['type'] === 'version');
    expect(recs[0]).toEqual({ type: 'header', format: 3, engineVersion: '0.1.0', user: null, session: null, agent: null, run: null, chunks: chunks.length, versions: versions.length, turns: 0 });
    expect(chunks.length + versions.length).toBe(recs.length - 1);
    // History travels: the updated chunk's first version, and the deleted chunks' versions ending with their deletion.
    expect(versions.some((v) => v['cause'] === 'update' && v['version'] === 1)).toBe(true);
    expect(versions.some((v) => v['cause'] === 'delete' && v['chunkId'] === sample.deleted.chunkId)).toBe(true);
    const { userId, sessionId, chunkId } = sample.deleted;
    const [a, b] = [await openStoreForTool(src, { readOnly: true }), await openStoreForTool(dst, { readOnly: true })];
    try {
      const h = await b.history(userId, sessionId, chunkId);
      expect(h).toEqual(await a.history(userId, sessionId, chunkId));
      expect(h.map((v) => v.cause)).toEqual(['delete']);
      expect(await b.get(userId, sessionId, chunkId, { asOf: h[0]!.validFrom })).toEqual(h[0]!.record);
      expect((await b.verify()).ok).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
    expect(chunks.some((c) => typeof c['payload'] === 'string' && c['payload'] !== '')).toBe(true);
    expect(chunks.some((c) => c['version'] === 2 && c['text'] === 'updated text')).toBe(true);
    expect(new Set(chunks.map((c) => c['userId']))).toEqual(new Set(['alice', 'bob', '\u{1F600}emoji', '\uFB00ligature', 'carol']));
    // Key order is the directory's: UTF-8 bytes, so U+FB00 sorts before U+1F600 (UTF-16 order would differ).
    const users = [...new Set(chunks.map((c) => c['userId']))];
    expect(users).toEqual(['alice', 'bob', 'carol', '\uFB00ligature', '\u{1F600}emoji']);
  });

  it('gives a deleted chunk no chunk line, only its kept versions, and keeps every object key in a fixed order', async () => {
    const text = await dumpText(src);
    const mentions = text.split('\n').filter((l) => l.includes(sample.deleted.chunkId));
    expect(mentions.map((l) => (JSON.parse(l) as { type: string; cause: string }).type + ':' + (JSON.parse(l) as { cause: string }).cause)).toEqual(['version:delete']);
    const fields = ['userId', 'sessionId', 'chunkId', 'version', 'createdAt', 'updatedAt', 'tokenCount', 'kind', 'text', 'keywords', 'attributes', 'payload', 'supersedes', 'provenance'];
    for (const l of text.trim().split('\n').slice(1)) {
      const o = JSON.parse(l) as { type: string };
      expect(Object.keys(o)).toEqual(o.type === 'chunk' ? ['type', ...fields] : ['type', 'validFrom', 'validUntil', 'cause', 'supersededBy', ...fields]);
      if (!l.includes('"userId":"carol"')) expect(l).toContain('"attributes":{"10":"ten","2":"two","source":"test","ünï":');
    }
  });

  it('filters by user and session, and the filtered dump round-trips too', async () => {
    const text = await dumpText(src, { userId: 'alice', sessionId: 's1' });
    const recs = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs[0]).toMatchObject({ user: 'alice', session: 's1', chunks: recs.length - 1 });
    expect(recs.length).toBeGreaterThan(1);
    expect(recs.slice(1).every((r) => r['userId'] === 'alice' && r['sessionId'] === 's1')).toBe(true);
    const file = join(tmp.dir, 'alice.jsonl');
    await writeFile(file, text);
    const dst = join(tmp.dir, 'alice-db');
    await loadDump(file, () => openStoreForTool(dst, { create: true }));
    expect(await dumpText(dst, { userId: 'alice', sessionId: 's1' })).toBe(text);
  });

  it('reads one snapshot: writes and GC committed while a dump runs do not show in it', async () => {
    const store = await openStore(src, { blockCapacity: 4 });
    try {
      const before = lines();
      await dumpStore(store, before.sink);
      // A slow stream sink (back-pressure on every line) keeps the dump running while the writes commit.
      let during = '';
      const pending: Promise<unknown>[] = [];
      let chunkLines = 0;
      let dumpDone = false;
      let overlapped = false;
      const sink = new Writable({
        highWaterMark: 1,
        write(chunk: Buffer, _enc, cb) {
          during += chunk.toString('utf8');
          if (++chunkLines === 2) {
            pending.push(
              (async () => {
                for await (const e of store.list('alice')) {
                  await store.write('alice', [{ op: 'update', sessionId: e.sessionId, chunkId: e.chunkId, text: 'changed mid-dump' }]);
                  if (!dumpDone) overlapped = true;
                }
                await store.put('alice', { sessionId: 'late', text: 'written mid-dump' });
                await store.gc({ threshold: 0.01 });
              })(),
            );
          }
          setTimeout(cb, 10);
        },
      });
      await dumpStore(store, sink, { pageSize: 1 });
      dumpDone = true;
      await Promise.all(pending);
      expect(overlapped).toBe(true);
      expect(during).toBe(before.text());
      const after = lines();
      await dumpStore(store, after.sink);
      expect(after.text()).toContain('changed mid-dump');
      expect(after.text()).toContain('written mid-dump');
      expect((await store.verify()).ok).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('the real CLI round-trips through stdout and stdin, and a second load is harmless', async () => {
    const d1 = await runCli(['dump', '--db', src]);
    expect(d1.code).toBe(0);
    expect(d1.stderr).toBe('');
    const dst = join(tmp.dir, 'cli-dst');
    const l1 = await runCli(['load', '--db', dst], d1.stdout);
    expect(l1.code).toBe(0);
    const n = d1.stdout.split('\n').filter((l) => l.startsWith('{"type":"chunk"')).length;
    const v = d1.stdout.split('\n').filter((l) => l.startsWith('{"type":"version"')).length;
    expect(v).toBeGreaterThan(0);
    expect(l1.stdout).toBe(`loaded ${n} chunks: ${n} restored, 0 already present; ${v} history versions\n`);
    const file = join(tmp.dir, 'd.jsonl');
    await writeFile(file, d1.stdout);
    const l2 = await runCli(['load', '--db', dst, file]);
    expect(l2.code).toBe(0);
    expect(l2.stdout).toBe(`loaded ${n} chunks: 0 restored, ${n} already present; ${v} history versions\n`);
    const stats = await runCli(['stats', '--db', dst, '--json']);
    expect((JSON.parse(stats.stdout) as { chunks: number }).chunks).toBe(n);
    const d2 = await runCli(['dump', '--db', dst]);
    expect(d2.stdout).toBe(d1.stdout);
  });

  it('rejects a file with bad lines (line N: reason, exit 1) and leaves the target unchanged', async () => {
    const good = (await runCli(['dump', '--db', src])).stdout;
    const dst = join(tmp.dir, 'target');
    const goodFile = join(tmp.dir, 'good.jsonl');
    await writeFile(goodFile, good);
    expect((await runCli(['load', '--db', dst, goodFile])).code).toBe(0);
    // Change the target so "unchanged" is not just "equal to the source".
    const s = await openStore(dst);
    await s.put('zed', { sessionId: 'own', text: 'only in the target' });
    await s.close();
    const before = (await runCli(['dump', '--db', dst])).stdout;

    const ls = good.trim().split('\n');
    const rec = JSON.parse(ls[3]!) as Record<string, unknown>;
    ls[3] = JSON.stringify({ ...rec, userId: 'newcomer', chunkId: 'not-a-ulid' });
    ls[5] = JSON.stringify({ ...(JSON.parse(ls[5]!) as object), payload: 'not base64!' });
    ls[6] = '{"type":"chunk",';
    const bad = join(tmp.dir, 'bad.jsonl');
    await writeFile(bad, ls.join('\n') + '\n');
    const r = await runCli(['load', '--db', dst, bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const errLines = r.stderr.trim().split('\n');
    expect(errLines[0]).toMatch(/^line 4: "chunkId" must be a 26-character upper-case ULID/);
    expect(errLines[1]).toMatch(/^line 6: "payload" is not valid base64/);
    expect(errLines[2]).toMatch(/^line 7: not valid JSON/);
    expect(errLines.at(-1)).toContain('nothing was loaded');
    expect((await runCli(['dump', '--db', dst])).stdout).toBe(before);

    // A bad file never creates a database that did not exist.
    const fresh = join(tmp.dir, 'never');
    expect((await runCli(['load', '--db', fresh, bad])).code).toBe(1);
    await expect(readFile(join(fresh, 'CURRENT'))).rejects.toThrow();
  });
});

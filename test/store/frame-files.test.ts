import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { EXTENT_BYTES, FRAMES_DIR, extentOffset, segmentPath } from '../../src/store/file-frame-store.js';
import { text } from '../support/backends.js';
import { rawFamilies } from '../support/raw-families.js';

/** Database format 4: block frames in frame files beside LevelDB's (docs/format.md, "Frame files"). */
describe('frame files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-frames-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const quiet = { gc: { intervalMs: 0 }, durability: 'relaxed' as const };
  const put = (i: number) => ({ op: 'put' as const, sessionId: 's', text: text(i) });

  it('a new database on disk keeps its frames in frame files, none in the key-value store, and reads them back after a reopen', async () => {
    const path = join(dir, 'db');
    let store = await AkashicStore.open({ path, ...quiet, blockCapacity: 4 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(...(await store.write('u', [put(i)])).map((r) => r.chunkId));
    await store.close();
    expect(readdirSync(join(path, FRAMES_DIR)).some((n) => n.endsWith('.seg'))).toBe(true);
    const db = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await db.open();
    let kvFrames = 0;
    for await (const _ of rawFamilies(db).blocks.keys()) kvFrames++;
    await db.close();
    expect(kvFrames).toBe(0);
    store = await AkashicStore.open({ path, ...quiet });
    for (let i = 0; i < 10; i++) expect((await store.get('u', 's', ids[i]!))!.text).toBe(text(i));
    expect((await store.verify()).ok).toBe(true);
    await store.close();
  });

  it('durability sync writes frame files too', async () => {
    const path = join(dir, 'db');
    const store = await AkashicStore.open({ path, gc: { intervalMs: 0 }, durability: 'sync' });
    const [r] = await store.write('u', [put(1)]);
    expect((await store.get('u', 's', r!.chunkId))!.text).toBe(text(1));
    await store.close();
  });

  it('frames a failed commit left after the committed ones are written over, never read', async () => {
    const path = join(dir, 'db');
    let store = await AkashicStore.open({ path, ...quiet, blockCapacity: 8 });
    const [a] = await store.write('u', [put(1)]);
    const block = (await store.locate('u', [{ sessionId: 's', chunkId: a!.chunkId }]))[0]!.location.blockId;
    await store.close();
    // Garbage past the committed frame, as a crash between a frame write and its batch leaves (a plausible header).
    const h = await open(segmentPath(join(path, FRAMES_DIR), block), 'r+');
    const junk = Buffer.alloc(4096, 0x41);
    const ext = Buffer.alloc(64);
    await h.read(ext, 0, 64, extentOffset(block));
    const first = ext.readUInt32LE(8) + 16;
    await h.write(junk, 0, junk.length, extentOffset(block) + first);
    await h.close();
    store = await AkashicStore.open({ path, ...quiet, blockCapacity: 8 });
    const [b] = await store.write('u', [put(2)]);
    expect((await store.get('u', 's', a!.chunkId))!.text).toBe(text(1));
    expect((await store.get('u', 's', b!.chunkId))!.text).toBe(text(2));
    expect((await store.verify()).ok).toBe(true);
    await store.close();
  });

  it('a frame too large for what is left of its extent goes to the key-value store and reads back', async () => {
    const path = join(dir, 'db');
    const store = await AkashicStore.open({ path, ...quiet, blockCapacity: 16, blockMaxBytes: 4 * EXTENT_BYTES });
    // Random-looking text compresses badly: a few of these fill a 256 KiB extent.
    const big = (seed: number): string => {
      let x = seed;
      let s = '';
      while (s.length < 100_000) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        s += x.toString(36);
      }
      return s;
    };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await store.write('u', [{ op: 'put', sessionId: 's', text: big(i + 1) }]))[0]!.chunkId);
    for (let i = 0; i < 5; i++) expect((await store.get('u', 's', ids[i]!))!.text).toBe(big(i + 1));
    expect((await store.verify()).ok).toBe(true);
    await store.close();
  });

  it('a segment file goes once every block in it is released', async () => {
    const path = join(dir, 'db');
    let store = await AkashicStore.open({ path, ...quiet, blockCapacity: 2, gc: { intervalMs: 0, threshold: 0.5 } });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await store.write('u', [put(i)]))[0]!.chunkId);
    const first = segmentPath(join(path, FRAMES_DIR), 1);
    expect(existsSync(first)).toBe(true);
    await store.write('u', ids.slice(0, 36).map((chunkId) => ({ op: 'delete' as const, sessionId: 's', chunkId })));
    await store.close();
    store = await AkashicStore.open({ path, ...quiet });
    expect(existsSync(first)).toBe(false);
    for (const id of ids.slice(36)) expect(await store.get('u', 's', id)).not.toBeNull();
    expect((await store.verify()).ok).toBe(true);
    await store.close();
  });

  it('a database written before frame files (frames in the key-value store) opens, reads and writes as it is', async () => {
    // Build it on the in-memory backend (which keeps frames in the key-value store), then copy every entry to disk.
    const mem = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    let store = await AkashicStore.open({ db: mem, ...quiet });
    const [a] = await store.write('u', [put(1)]);
    const entries: [string, Buffer][] = [];
    for await (const e of mem.iterator()) entries.push(e);
    await store.close();
    const path = join(dir, 'old');
    const disk = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await disk.open();
    await disk.batch(entries.map(([key, value]) => ({ type: 'put' as const, key, value })));
    await disk.close();
    store = await AkashicStore.open({ path, ...quiet });
    const [b] = await store.write('u', [put(2)]);
    expect((await store.get('u', 's', a!.chunkId))!.text).toBe(text(1));
    expect((await store.get('u', 's', b!.chunkId))!.text).toBe(text(2));
    expect(existsSync(join(path, FRAMES_DIR))).toBe(false);
    expect((await store.verify()).ok).toBe(true);
    await store.close();
  });
});

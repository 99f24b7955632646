/**
 * The frame store seam, run over both implementations: the engine asks a frame store what it does with released
 * blocks (`keepsReleasedFrames`) and calls its lifecycle (`erase`, `retire`, `close`) without knowing which one it
 * holds. Each flag is checked against what the store really does.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileFrameStore, segmentPath } from '../../src/store/file-frame-store.js';
import type { FrameStore, StoredFrame } from '../../src/store/frame-store.js';
import type { BatchOp } from '../../src/store/kv/batch-writer.js';
import { openFamilies } from '../../src/store/kv/column-families.js';
import { KvFrameStore } from '../../src/store/kv-frame-store.js';

interface Harness {
  readonly frames: FrameStore;
  /** Applies one commit: stage with `stage`, prepare, write the key-value batch, then `committed`. */
  commit(stage: (b: ReturnType<FrameStore['batch']>) => void): Promise<void>;
  /** Whether the implementation keeps files on disk, and where block `id`'s would be. */
  readonly fileOf: ((blockId: number) => string) | null;
}

let dir: string;
let db: MemoryLevel<string, Buffer>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'akashic-frame-seam-'));
  db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await db.open();
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

function harness(kind: 'kv' | 'file'): Harness {
  const cf = openFamilies(db);
  const kv = new KvFrameStore(cf.blocks);
  const frames: FrameStore = kind === 'kv' ? kv : new FileFrameStore({ dir, durability: 'relaxed', readOnly: false, kv, now: () => 0 });
  return {
    frames,
    fileOf: kind === 'kv' ? null : (blockId) => segmentPath(dir, blockId),
    async commit(stage) {
      const b = frames.batch('u');
      stage(b);
      const ops: BatchOp[] = [];
      await b.prepare(ops);
      if (ops.length > 0) await db.batch(ops);
      await b.committed();
    },
  };
}

async function stored(frames: FrameStore): Promise<string[]> {
  const out: string[] = [];
  const errors: unknown[] = [];
  for await (const f of frames.entries((err) => errors.push(err)) as AsyncIterable<StoredFrame>) out.push(`${f.blockId}.${f.frame}:${f.value.toString()}`);
  expect(errors).toEqual([]);
  return out;
}

describe.each(['kv', 'file'] as const)('frame store seam: %s', (kind) => {
  it('released frames are readable after the release exactly when keepsReleasedFrames says so; erase(true) removes them', async () => {
    const h = harness(kind);
    await h.commit((b) => {
      b.put(1, 0, Buffer.from('first'));
      b.put(1, 1, Buffer.from('second'));
      b.put(2, 0, Buffer.from('other'));
    });
    expect(await stored(h.frames)).toEqual(['1.0:first', '1.1:second', '2.0:other']);
    expect((await h.frames.getMany([{ userId: 'u', blockId: 1, frame: 1 }])).map((v) => v?.toString())).toEqual(['second']);

    await h.commit((b) => b.release(1, 2));
    const afterRelease = await stored(h.frames);
    expect(afterRelease.some((f) => f.startsWith('1.'))).toBe(h.frames.keepsReleasedFrames);
    expect(afterRelease).toContain('2.0:other');

    await h.frames.erase(true);
    expect(await stored(h.frames)).toEqual(['2.0:other']);
    await h.frames.close();
  });

  it('retire deletes storage only where there is storage of its own, and only of blocks holding no data', async () => {
    const h = harness(kind);
    await h.commit((b) => b.put(1, 0, Buffer.from('x')));
    await h.commit((b) => b.release(1, 1));
    const holding = new Set<number>([1]);
    let asked = 0;
    const blocksHoldingData = async (): Promise<ReadonlySet<number>> => {
      asked++;
      return holding;
    };
    expect(await h.frames.retire(Number.MAX_SAFE_INTEGER, true, blocksHoldingData)).toBe(0);
    holding.clear();
    const deleted = await h.frames.retire(Number.MAX_SAFE_INTEGER, true, blocksHoldingData);
    // Only a store with storage of its own asks which blocks hold data.
    expect(asked > 0).toBe(h.fileOf !== null);
    if (h.fileOf === null) expect(deleted).toBe(0);
    else {
      expect(deleted).toBe(1);
      expect(existsSync(h.fileOf(1))).toBe(false);
    }
    await h.frames.close();
    await h.frames.close(); // closing twice is harmless
  });
});

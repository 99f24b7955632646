/** `akashic gc`'s library function: its progress total is the engine's own victim decision, not a copy of it. */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGcToSink } from '../../src/admin/gc-run.js';
import type { AkashicStore } from '../../src/index.js';
import { openStore, tempDir } from './fixtures.js';

let store: AkashicStore | null = null;
let dispose: (() => Promise<void>) | null = null;
afterEach(async () => {
  await store?.close();
  await dispose?.();
  store = null;
  dispose = null;
});

describe('runGcToSink', () => {
  it('announces as many victims as the pass takes, merges of under-filled blocks included', async () => {
    const t = await tempDir();
    dispose = t.dispose;
    // Blocks of 4; one chunk deleted in each of the two sealed blocks: φ = 0.25, below θ, but both are
    // under-filled (3 live slots < 0.9 × 4), so the pass merges them.
    store = await openStore(join(t.dir, 'db'), { blockCapacity: 4, gc: { intervalMs: 0, mergeBelowFill: 0.9 } });
    const refs: { sessionId: string; chunkId: string }[] = [];
    for (let i = 0; i < 12; i++) refs.push(await store.put('u', { sessionId: 's', text: `chunk ${i}` }));
    const del = (i: number) => ({ op: 'delete' as const, sessionId: refs[i]!.sessionId, chunkId: refs[i]!.chunkId });
    await store.write('u', [del(0), del(4)]);

    const progress: [number, number][] = [];
    const lines: string[] = [];
    const report = await runGcToSink(store, (line) => void lines.push(line), { threshold: 0.5, onProgress: (done, total) => progress.push([done, total]) });
    expect(report.victims).toBe(2);
    expect(progress).toEqual([
      [0, 2],
      [2, 2],
    ]);
    expect(lines).toContain('victims: 2');
  });
});

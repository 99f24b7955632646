/**
 * Two processes compacting one session: each store handle below has its own caches and write-back queue, as a
 * process has. The first compaction to commit consumes the turns; one that read the same turns before then commits
 * nothing, reads the active chunk again and compacts what is there — so no turn ends up in two chunks, and a turn
 * appended since (stored under a key the emptied active chunk reuses) is neither deleted nor lost.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicMemory, AkashicStore, EmbeddedModel } from '../../src/index.js';
import type { CompressResult, ModelTurn } from '../../src/model/memory-model.js';
import { activeTurnLog } from '../../src/engine/internal-seams.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

/** A model whose COMPRESS waits until the test opens the gate (a slow remote model). */
class GatedModel extends EmbeddedModel {
  #open: () => void = () => undefined;
  readonly entered: Promise<void>;
  readonly #gate = new Promise<void>((resolve) => (this.#open = resolve));
  #enter: () => void = () => undefined;

  constructor() {
    super();
    this.entered = new Promise<void>((resolve) => (this.#enter = resolve));
  }

  open(): void {
    this.#open();
  }

  override async compress(turns: readonly ModelTurn[]): Promise<CompressResult> {
    this.#enter();
    await this.#gate;
    return super.compress(turns);
  }
}

describe.skipIf(REDIS_URL === null)('compactions of one session racing in two processes', () => {
  const prefix = testPrefix();
  afterAll(async () => dropPrefix(prefix));

  it('puts every turn in exactly one chunk and loses no turn appended meanwhile', async () => {
    const url = urlWithPrefix(prefix);
    const storeA = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
    const storeB = await AkashicStore.open({ url, gc: { intervalMs: 0 } });
    const slow = new GatedModel();
    const a = new AkashicMemory(storeA, { model: slow, writeBack: 'await', chunkGateTokens: 100_000 });
    const b = new AkashicMemory(storeB, { writeBack: 'await', chunkGateTokens: 100_000 });
    const ref = { user: 'ada', session: 's' };
    try {
      await a.appendTurn({ ...ref, turnId: 'T1', role: 'user', text: 'the harbor light is violet tonight' });
      await a.appendTurn({ ...ref, turnId: 'T2', role: 'assistant', text: 'violet light over the granite harbor' });
      // A reads T1, T2 and waits in its model; B compacts them first, then a new turn takes the emptied chunk's first key.
      const endA = a.endSession(ref);
      await slow.entered;
      expect((await b.endSession(ref)).compacted).toHaveLength(1);
      await b.appendTurn({ ...ref, turnId: 'T3', role: 'user', text: 'saffron meadow after the rain' });
      slow.open();
      const fromA = await endA;
      // A committed nothing of T1, T2 (B had them); it compacted what it found on reading again: T3.
      expect(fromA.compacted.map((c) => c.turnIds)).toEqual([['T3']]);

      const places = new Map<string, number>();
      for await (const e of storeA.list('ada')) {
        const c = await storeA.get('ada', e.sessionId, e.chunkId);
        for (const id of c!.provenance) places.set(id, (places.get(id) ?? 0) + 1);
      }
      expect(Object.fromEntries(places)).toEqual({ T1: 1, T2: 1, T3: 1 });
      expect(await storeA[activeTurnLog].read('ada', 's')).toEqual([]);
      expect((await storeA.verify()).problems).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await storeA.close();
      await storeB.close();
    }
  });
});

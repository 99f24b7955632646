import type { AbstractSnapshot } from 'abstract-level';
import type { BatchOp } from './kv/batch-writer.js';
import type { FrameBatch, FrameFamily, FrameRef, FrameStore, StoredFrame } from './frame-store.js';
import { SEP, blockKey, frameRange, frameStoreKey, parseFrameStoreKey } from './kv/keys.js';
import { resilientEntries } from './read/resilient-scan.js';

/**
 * Frames kept in the key-value store, one value per frame in the `blk` family under `user ␀ blockId.frame`
 * (docs/format.md, database format 6), so a block's frames lie in its user's partition. The frames are part of the commit's batch, so they are exactly as durable and as atomic as
 * the rest of it, and snapshots cover them.
 */
export class KvFrameStore implements FrameStore {
  readonly #blocks: FrameFamily;

  /** A released block's frames are deleted in the batch that releases it. */
  readonly keepsReleasedFrames = false;

  constructor(blocks: FrameFamily) {
    this.#blocks = blocks;
  }

  /** Nothing to erase: releases delete the frames in their batch. */
  async erase(_now: boolean): Promise<void> {}

  /** Nothing to delete: frames live in the key-value store, which compacts itself. */
  async retire(_allocatedBelow: number, _all: boolean, _blocksHoldingData: () => Promise<ReadonlySet<number>>): Promise<number> {
    return 0;
  }

  /** Nothing held open beyond the key-value store. */
  async close(): Promise<void> {}

  /** The batch operation that stores a frame. */
  putOp(userId: string, blockId: number, frame: number, value: Buffer): BatchOp {
    return { type: 'put', sublevel: this.#blocks, key: frameStoreKey(userId, blockId, frame), value };
  }

  /** The batch operation that deletes a frame. */
  delOp(userId: string, blockId: number, frame: number): BatchOp {
    return { type: 'del', sublevel: this.#blocks, key: frameStoreKey(userId, blockId, frame) };
  }

  /** Frames in the key-value store are as durable as its batch: nothing to sync. */
  async syncDeferred(): Promise<void> {}

  batch(userId: string): FrameBatch {
    const staged: BatchOp[] = [];
    return {
      put: (blockId, frame, value) => {
        staged.push(this.putOp(userId, blockId, frame, value));
      },
      release: (blockId, frames) => {
        for (let f = 0; f < frames; f++) staged.push(this.delOp(userId, blockId, f));
      },
      async prepare(ops) {
        for (const op of staged) ops.push(op);
      },
      async committed() {},
    };
  }

  getMany(refs: readonly FrameRef[], snapshot?: AbstractSnapshot): Promise<(Buffer | undefined)[]> {
    if (refs.length === 0) return Promise.resolve([]);
    // fillCache: false: the engine keeps its own decoded-frame cache, so LevelDB's block cache would only hold the
    // same bytes twice (and keep `cacheBytes: 0` reads warm).
    const opts = snapshot === undefined ? { fillCache: false } : { snapshot, fillCache: false };
    return this.#blocks.getMany(refs.map((r) => frameStoreKey(r.userId, r.blockId, r.frame)), opts as never) as Promise<(Buffer | undefined)[]>;
  }

  async *framesOf(userId: string, blockId: number, snapshot?: AbstractSnapshot): AsyncIterable<number> {
    const range = frameRange(userId, blockId);
    for await (const k of this.#blocks.keys({ gte: range.gte, lt: range.lt, ...(snapshot === undefined ? {} : { snapshot }) })) yield parseInt(k.slice(k.indexOf('.') + 1), 16);
  }

  async *entries(onError: (err: unknown, after: string | null) => void, only?: (blockId: number) => boolean): AsyncIterable<StoredFrame> {
    for await (const [k, value] of resilientEntries(this.#blocks, {}, onError)) {
      const p = parseFrameStoreKey(k);
      if (p === null) {
        onError(new Error(`malformed block frame key ${JSON.stringify(k)}`), k);
        continue;
      }
      if (only === undefined || only(p.blockId)) yield { ...p, value };
    }
  }

  keyRange(userId: string, minBlock: number, maxBlock: number): [string, string] {
    return [this.#blocks.prefix + userId + SEP + blockKey(minBlock), this.#blocks.prefix + userId + SEP + blockKey(maxBlock) + '/'];
  }
}

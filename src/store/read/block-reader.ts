import type { AbstractSnapshot } from 'abstract-level';
import type { BlockCache } from '../../block/block-cache.js';
import { decodeFrames, type DecodedFrame } from '../../block/frame-codec.js';
import { corruption } from '../../errors.js';
import type { SlotRef } from '../../record/dir-entry.js';
import type { ReadCost } from '../../api/results.js';
import type { FrameRef, FrameStore } from '../frame-store.js';
import { blockKey, frameKey } from '../kv/keys.js';

/** A slot of a block of `userId` (block ids are unique across users; the user says where the frames are kept). */
export type UserSlot = SlotRef & { readonly userId: string };

/** The slot of a directory entry's location, with its user. */
export function userSlot(userId: string, loc: SlotRef): UserSlot {
  return { userId, blockId: loc.blockId, frame: loc.frame, slot: loc.slot };
}

export interface SlotReadResult extends ReadCost {
  /** Record bytes per requested slot, in request order. */
  readonly records: Buffer[];
}

/**
 * Materializes slots: the needed frames of every block are fetched with one `FrameStore.getMany` (cache misses only;
 * blocks read concurrently) and decompressed together (`decodeFrames`); a frame is decompressed once, whatever number
 * of slots it serves. With a snapshot, the read sees one consistent state even while
 * relocation or GC commit.
 */
export async function readSlots(
  frameStore: FrameStore,
  cache: BlockCache,
  locs: readonly UserSlot[],
  snapshot?: AbstractSnapshot,
): Promise<SlotReadResult> {
  const r = await readSlotsOrNull(frameStore, cache, locs, snapshot);
  const records = r.records.map((rec, i) => {
    if (rec !== null) return rec;
    const l = locs[i]!;
    throw corruption(r.missingFrames.has(frameKey(l.blockId, l.frame)) ? `block frame ${frameKey(l.blockId, l.frame)} is missing` : `block ${blockKey(l.blockId)} frame ${l.frame} has no slot ${l.slot}`);
  });
  return { records, blocksTouched: r.blocksTouched, framesRead: r.framesRead, bytesRead: r.bytesRead };
}

/** `readSlots` for slot locations that may no longer exist (hints): a missing frame or slot reads as null. */
export interface HintedSlotRead extends Omit<SlotReadResult, 'records'> {
  readonly records: (Buffer | null)[];
  /** Frame keys the store does not hold (a released block). */
  readonly missingFrames: ReadonlySet<string>;
}

/**
 * Like `readSlots`, but a frame the store does not hold, or a slot its frame does not have, reads as null instead
 * of failing: the caller holds locations that may be stale and falls back to the directory for those.
 */
export async function readSlotsOrNull(
  frameStore: FrameStore,
  cache: BlockCache,
  locs: readonly UserSlot[],
  snapshot?: AbstractSnapshot,
): Promise<HintedSlotRead> {
  const frames = new Map<string, DecodedFrame | null>();
  const refs = new Map<string, FrameRef>();
  const missingFrames = new Set<string>();
  const blockIds = new Set<number>();
  for (const l of locs) {
    blockIds.add(l.blockId);
    const k = frameKey(l.blockId, l.frame);
    if (!frames.has(k)) {
      frames.set(k, cache.get(k) ?? null);
      refs.set(k, { userId: l.userId, blockId: l.blockId, frame: l.frame });
    }
  }
  const missing = [...frames].filter(([, f]) => f === null).map(([k]) => k);
  // One `FrameStore.getMany` for the frames of every block (frame files read each block once, blocks concurrently; a
  // key-value store gets one multi-get), then those frames decompressed together (`decodeFrames`: one native zstd call
  // per megabyte of content, not one per block). A cold fetch of a few blocks thus costs one trip to the thread pool
  // for decompression instead of one per block: on a busy machine each trip, not the zstd work, is what a small
  // frame's decompression costs.
  const values = missing.length === 0 ? [] : await frameStore.getMany(missing.map((k) => refs.get(k)!), snapshot);
  let bytesRead = 0;
  const held: string[] = [];
  const stored: Buffer[] = [];
  missing.forEach((k, i) => {
    const v = values[i];
    if (v === undefined) {
      missingFrames.add(k);
      return;
    }
    bytesRead += v.length;
    held.push(k);
    stored.push(v);
  });
  if (stored.length > 0) {
    const decoded = await decodeFrames(stored, held.map((k) => `block frame ${k}`));
    held.forEach((k, i) => {
      const f = decoded[i]!;
      frames.set(k, f);
      cache.set(k, f);
    });
  }
  const records = locs.map((l) => frames.get(frameKey(l.blockId, l.frame))?.records[l.slot] ?? null);
  return { records, blocksTouched: blockIds.size, framesRead: missing.length - missingFrames.size, bytesRead, missingFrames };
}

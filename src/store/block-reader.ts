import type { AbstractSnapshot } from 'abstract-level';
import type { BlockCache } from '../block/block-cache.js';
import { decodeFrame, type DecodedFrame } from '../block/frame-codec.js';
import { corruption } from '../errors.js';
import type { SlotRef } from '../record/dir-entry.js';
import type { Family } from './column-families.js';
import { blockKey, frameKey } from './keys.js';

export interface SlotReadResult {
  /** Record bytes per requested slot, in request order. */
  readonly records: Buffer[];
  /** Distinct blocks the request needed (cached or not). */
  readonly blocksTouched: number;
  /** Frames fetched from the key-value store (cache misses). */
  readonly framesRead: number;
  /** Stored bytes fetched from the key-value store. */
  readonly bytesRead: number;
}

/**
 * Materializes slots: every needed frame is fetched with one `getMany` (cache misses only) and decompressed
 * once, whatever number of slots it serves. With a snapshot, the read sees one consistent state even while
 * relocation or GC commit.
 */
export async function readSlots(
  blocks: Family,
  cache: BlockCache,
  locs: readonly SlotRef[],
  snapshot?: AbstractSnapshot,
): Promise<SlotReadResult> {
  const frames = new Map<string, DecodedFrame | null>();
  const blockIds = new Set<number>();
  for (const l of locs) {
    blockIds.add(l.blockId);
    const k = frameKey(l.blockId, l.frame);
    if (!frames.has(k)) frames.set(k, cache.get(k) ?? null);
  }
  const missing = [...frames].filter(([, f]) => f === null).map(([k]) => k);
  let bytesRead = 0;
  if (missing.length > 0) {
    // fillCache: false: the engine keeps its own decoded-frame cache, so LevelDB's block cache would only hold the
    // same bytes twice (and keep `cacheBytes: 0` reads warm).
    const values = await blocks.getMany(missing, (snapshot === undefined ? { fillCache: false } : { snapshot, fillCache: false }) as never);
    const decoded = await Promise.all(
      missing.map((k, i) => {
        const v = values[i];
        if (v === undefined) throw corruption(`block frame ${k} is missing`);
        bytesRead += v.length;
        return decodeFrame(v, `block frame ${k}`);
      }),
    );
    missing.forEach((k, i) => {
      const f = decoded[i]!;
      frames.set(k, f);
      cache.set(k, f);
    });
  }
  const records = locs.map((l) => {
    const k = frameKey(l.blockId, l.frame);
    const f = frames.get(k);
    const r = f?.records[l.slot];
    if (r === undefined) throw corruption(`block ${blockKey(l.blockId)} frame ${l.frame} has no slot ${l.slot}`);
    return r;
  });
  return { records, blocksTouched: blockIds.size, framesRead: missing.length, bytesRead };
}

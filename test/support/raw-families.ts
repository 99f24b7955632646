/**
 * Fault injection: the engine's column families over a database handle, for the tests that damage stored bytes on
 * purpose (flipped frames, truncated entries, dangling locations). The one place outside the engine that touches
 * column families; nothing else in the tests may (use the public API or the engine's internal seams).
 */
import { ClassicLevel } from 'classic-level';
import { closeSync, existsSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { EXTENT_BYTES, FRAME_HEADER_BYTES, FRAMES_DIR, extentOffset, frameHeader, segmentPath } from '../../src/store/file-frame-store.js';
import { SEP, blockKey, frameStoreKey } from '../../src/store/kv/keys.js';
import { decodeBlockInfo } from '../../src/record/block-info.js';
import { AkashicStore, type AkashicStoreOptions } from '../../src/index.js';
import { type ColumnFamilies, openFamilies } from '../../src/store/kv/column-families.js';
import type { AnyLevel } from '../../src/api/store-options.js';

export type { ColumnFamilies };

/** The column families of `db` (open, or opening with the store that uses it). */
export function rawFamilies(db: AnyLevel): ColumnFamilies {
  return openFamilies(db);
}

/** Opens the store at `path` over a handle the test keeps, so it can damage bytes under the open store. */
export async function openWithRawFamilies(path: string, opts: Partial<AkashicStoreOptions> = {}): Promise<{ store: AkashicStore; raw: ColumnFamilies }> {
  const db = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  const store = await AkashicStore.open({ ...opts, db });
  return { store, raw: rawFamilies(db) };
}

/**
 * Stored frame bytes wherever the engine keeps them: in the frame files of a database on disk that has them
 * (database format 4), else in the `blk` family. For tests that damage a frame on purpose; `put` replaces the
 * frame's stored bytes (a shorter value is a truncated frame).
 */
export interface RawFrames {
  get(blockId: number, frame: number): Promise<Buffer | undefined>;
  put(blockId: number, frame: number, value: Buffer): Promise<void>;
}

export function rawFrames(cf: ColumnFamilies, path: string | null): RawFrames {
  const dir = path === null ? null : join(path, FRAMES_DIR);
  const inFiles = (): boolean => dir !== null && existsSync(dir);
  // Database format 6 keys a frame by its block's user (`user ␀ blockId.frame`): the block info names the user.
  const kvKey = async (b: number, f: number): Promise<string> => {
    for await (const [k, v] of cf.blockInfo.iterator()) {
      if (k.endsWith(SEP + blockKey(b))) return frameStoreKey(decodeBlockInfo(v, 'test').userId, b, f);
    }
    throw new Error(`no block info for block ${b}`);
  };
  const kv = {
    get: async (b: number, f: number) => cf.blocks.get(await kvKey(b, f)),
    put: async (b: number, f: number, v: Buffer) => cf.blocks.put(await kvKey(b, f), v),
  };
  /** The frames in a block's extent: [offset of the header, length] each. */
  const layout = (b: number): { file: string; at: number[]; len: number[]; extent: Buffer } | null => {
    const file = segmentPath(dir!, b);
    if (!existsSync(file)) return null;
    const fd = openSync(file, 'r');
    const extent = Buffer.alloc(EXTENT_BYTES);
    readSync(fd, extent, 0, EXTENT_BYTES, extentOffset(b));
    closeSync(fd);
    const at: number[] = [];
    const len: number[] = [];
    let o = 0;
    while (o + FRAME_HEADER_BYTES <= EXTENT_BYTES && extent.subarray(o, o + FRAME_HEADER_BYTES).equals(frameHeader(at.length, extent.readUInt32LE(o + 8)))) {
      at.push(o);
      len.push(extent.readUInt32LE(o + 8));
      o += FRAME_HEADER_BYTES + extent.readUInt32LE(o + 8);
    }
    return { file, at, len, extent };
  };
  return {
    async get(b, f) {
      if (!inFiles()) return kv.get(b, f);
      const l = layout(b);
      if (l === null || f >= l.at.length) return kv.get(b, f);
      return Buffer.from(l.extent.subarray(l.at[f]! + FRAME_HEADER_BYTES, l.at[f]! + FRAME_HEADER_BYTES + l.len[f]!));
    },
    async put(b, f, value) {
      if (!inFiles()) return kv.put(b, f, value);
      const l = layout(b);
      if (l === null || f >= l.at.length) return kv.put(b, f, value);
      // Rewrite this frame and the ones after it, shifted by the length change.
      const parts = [Buffer.from(l.extent.subarray(0, l.at[f]!)), frameHeader(f, value.length), value];
      for (let k = f + 1; k < l.at.length; k++) parts.push(Buffer.from(l.extent.subarray(l.at[k]!, l.at[k]! + FRAME_HEADER_BYTES + l.len[k]!)));
      parts.push(Buffer.alloc(FRAME_HEADER_BYTES));
      const out = Buffer.concat(parts);
      const fd = openSync(l.file, 'r+');
      writeSync(fd, out, 0, out.length, extentOffset(b));
      closeSync(fd);
    },
  };
}

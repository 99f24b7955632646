import type { AbstractSnapshot } from 'abstract-level';
import { mkdirSync, writeSync } from 'node:fs';
import { open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { DeferredSync, FrameBatch, FrameRef, FrameStore, StoredFrame } from './frame-store.js';

/** Marks, in a `DeferredSync`, that the frames directory needs a sync (a segment file was created). */
const SYNC_DIR = Symbol('frames directory');
import type { KvFrameStore } from './kv-frame-store.js';

/** The frame files' directory, inside the database directory. */
export const FRAMES_DIR = 'frames';
/**
 * Frozen layout of frame files (docs/format.md, "Frame files"). Block `b` owns the extent of `EXTENT_BYTES` bytes at
 * offset `(b mod BLOCKS_PER_SEGMENT) × EXTENT_BYTES` of segment file `frames/<b div BLOCKS_PER_SEGMENT>.seg`; its
 * frames are laid end to end from the extent's start, each a header then the frame's stored bytes. A block's
 * address is a function of its id, so a read needs no lookup: one `pread` of the extent (holes read as zeros and
 * cost no I/O). A frame that does not fit in what is left of its extent, and every later frame of that block, is
 * kept in the key-value store instead (`blk` family, as in database format 3).
 */
export const EXTENT_BYTES = 256 * 1024;
export const BLOCKS_PER_SEGMENT = 16;
/** Frame header: magic u32, frame number u32, length u32, CRC-32 of the 12 bytes before it, all little-endian. */
export const FRAME_HEADER_BYTES = 16;
const MAGIC = 0x31524b41; // "AKR1" little-endian

function segmentOf(blockId: number): number {
  return Math.floor(blockId / BLOCKS_PER_SEGMENT);
}

/** Byte offset of block `blockId`'s extent in its segment file. */
export function extentOffset(blockId: number): number {
  return (blockId % BLOCKS_PER_SEGMENT) * EXTENT_BYTES;
}

function segmentName(seg: number): string {
  return seg.toString(16).padStart(10, '0') + '.seg';
}

/** The segment file holding block `blockId`'s extent, under the frames directory `dir`. */
export function segmentPath(dir: string, blockId: number): string {
  return join(dir, segmentName(segmentOf(blockId)));
}

/** A frame header (docs/format.md, "Frame files"). */
export function frameHeader(frame: number, length: number): Buffer {
  const h = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  h.writeUInt32LE(MAGIC, 0);
  h.writeUInt32LE(frame, 4);
  h.writeUInt32LE(length, 8);
  h.writeUInt32LE(crc32(h.subarray(0, 12)) >>> 0, 12);
  return h;
}

/** The length of frame `k` when a valid header of it starts at `at` of `buf`, else null (end, garbage, torn). */
function frameLengthAt(buf: Buffer, at: number, k: number): number | null {
  if (at + FRAME_HEADER_BYTES > buf.length) return null;
  if (buf.readUInt32LE(at) !== MAGIC || buf.readUInt32LE(at + 4) !== k) return null;
  if (buf.readUInt32LE(at + 12) !== crc32(buf.subarray(at, at + 12)) >>> 0) return null;
  return buf.readUInt32LE(at + 8);
}

/** The frames laid in one extent, in order, up to the first header that is not frame k's (end, garbage, torn). */
function parseExtent(extent: Buffer): { frames: Buffer[]; end: number } {
  const frames: Buffer[] = [];
  let at = 0;
  for (;;) {
    const len = frameLengthAt(extent, at, frames.length);
    if (len === null || at + FRAME_HEADER_BYTES + len > extent.length) break;
    frames.push(extent.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + len));
    at += FRAME_HEADER_BYTES + len;
  }
  return { frames, end: at };
}

/** The first read of a block's extent; a block whose frames run past it costs a second read. */
const FIRST_READ_BYTES = 32 * 1024;

/** Whether the walk of a partial extent stops at its end because a frame (or header) continues past it. */
function runsPast(head: Buffer): boolean {
  let at = 0;
  for (let k = 0; ; k++) {
    if (at + FRAME_HEADER_BYTES > head.length) return true;
    const len = frameLengthAt(head, at, k);
    if (len === null) return false;
    at += FRAME_HEADER_BYTES + len;
    if (at > head.length) return true;
  }
}

/** How long a dead segment file stays before it is deleted, so that a read that took its snapshot earlier finds it. */
const DEAD_SEGMENT_GRACE_MS = 10_000;

export interface FileFrameStoreOptions {
  readonly dir: string;
  readonly durability: 'sync' | 'relaxed';
  readonly readOnly: boolean;
  /** Frames that overflow their extent, and frames of databases written before frame files. */
  readonly kv: KvFrameStore;
  /** The clock (ms) for the dead segments' grace period. */
  readonly now: () => number;
}

/**
 * Block frames in segment files under the database directory (database format 4), read with one `pread` per block.
 *
 * Durability: a commit's frames are written (and with `durability: 'sync'` fdatasync'ed) before its key-value batch,
 * so a batch never references a frame that is not on disk. A crash can leave frames no batch references: past the
 * end of an open block's committed frames (the next commit overwrites them) or in a block id no batch allocated
 * (never read). Damage (a torn or flipped frame) is caught by the frame's own checksum when it is decoded.
 *
 * Space: a segment file is deleted once none of its blocks holds data (`retire`); until then its released extents
 * keep their space. REQUIRES for writes: the store's write lock (commits are serialized).
 */
export class FileFrameStore implements FrameStore {
  readonly #o: FileFrameStoreOptions;
  readonly #handles = new Map<number, Promise<FileHandle | null>>();
  /** Where the next frame of a block goes: block → [next frame number, byte offset in its extent] (open blocks). */
  readonly #ends = new Map<number, [number, number]>();
  readonly #dead = new Map<number, number>();
  #dirReady = false;
  /** A released extent keeps its bytes until `erase` zeroes it or `retire` deletes its segment. */
  readonly keepsReleasedFrames = true;

  constructor(o: FileFrameStoreOptions) {
    this.#o = o;
  }

  #handle(seg: number, create: boolean): Promise<FileHandle | null> {
    const known = this.#handles.get(seg);
    if (known === undefined) return this.#reopen(seg, create);
    return known.then((h) => {
      if (h !== null || !create) return h;
      // The segment was missing when `known` looked. Another caller may have started creating it since: take that
      // attempt instead of opening the file a second time (a second handle would leak, and a second 'w+' would
      // truncate what the first had written).
      const now = this.#handles.get(seg);
      return now !== undefined && now !== known ? this.#handle(seg, create) : this.#reopen(seg, create);
    });
  }

  #reopen(seg: number, create: boolean): Promise<FileHandle | null> {
    const path = join(this.#o.dir, segmentName(seg));
    const p = (async () => {
      try {
        return await open(path, this.#o.readOnly ? 'r' : 'r+');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        if (!create) return null;
        if (!this.#dirReady) {
          mkdirSync(this.#o.dir, { recursive: true });
          this.#dirReady = true;
        }
        return await open(path, 'w+');
      }
    })();
    this.#handles.set(seg, p);
    p.catch(() => this.#handles.delete(seg));
    return p;
  }

  /** Closes every open segment file (the next access reopens it). */
  async close(): Promise<void> {
    const hs = [...this.#handles.values()];
    this.#handles.clear();
    for (const h of hs) await (await h.catch(() => null))?.close();
  }

  /**
   * The block's extent, read up to the end of its frames: a first read of `FIRST_READ_BYTES` (most blocks end
   * within it; reading the whole reserved extent would make the kernel fill page-cache pages for its holes), and the
   * rest of the extent only when the frames run past it. The buffer is the caller's.
   */
  async #readExtent(blockId: number): Promise<Buffer | null> {
    const h = await this.#handle(segmentOf(blockId), false);
    if (h === null) return null;
    const at = extentOffset(blockId);
    const first = Buffer.allocUnsafe(FIRST_READ_BYTES);
    const { bytesRead } = await h.read(first, 0, FIRST_READ_BYTES, at);
    const head = first.subarray(0, bytesRead);
    if (bytesRead < FIRST_READ_BYTES || !runsPast(head)) return head;
    const whole = Buffer.allocUnsafe(EXTENT_BYTES);
    head.copy(whole);
    const rest = await h.read(whole, FIRST_READ_BYTES, EXTENT_BYTES - FIRST_READ_BYTES, at + FIRST_READ_BYTES);
    return whole.subarray(0, FIRST_READ_BYTES + rest.bytesRead);
  }

  /**
   * Where frame `frame` of a block goes, given that the block has exactly `frame` committed frames: the byte offset
   * after its first `frame` frames in the extent, or null when fewer are there (an earlier frame overflowed to the
   * key-value store). Frames past them are uncommitted leftovers of a failed commit and get overwritten.
   */
  async #slotFor(blockId: number, frame: number): Promise<number | null> {
    const known = this.#ends.get(blockId);
    if (known !== undefined && known[0] === frame) return known[1];
    if (frame === 0) return 0;
    const extent = await this.#readExtent(blockId);
    if (extent === null) return null;
    let at = 0;
    const { frames } = parseExtent(extent);
    if (frames.length < frame) return null;
    for (let f = 0; f < frame; f++) at += FRAME_HEADER_BYTES + frames[f]!.length;
    return at;
  }

  batch(userId: string): FrameBatch {
    const puts: { blockId: number; frame: number; value: Buffer }[] = [];
    const released: [number, number][] = [];
    const advanced = new Map<number, [number, number]>();
    return {
      put: (blockId, frame, value) => {
        puts.push({ blockId, frame, value });
      },
      release: (blockId, frames) => {
        released.push([blockId, frames]);
      },
      prepare: async (ops, deferred) => {
        const touched = new Set<FileHandle>();
        let created = false;
        for (const p of puts) {
          const a = advanced.get(p.blockId);
          const offset = a !== undefined ? (a[0] === p.frame ? a[1] : null) : await this.#slotFor(p.blockId, p.frame);
          const size = FRAME_HEADER_BYTES + p.value.length;
          if (offset !== null && offset + size <= EXTENT_BYTES) {
            const seg = segmentOf(p.blockId);
            if (!created && !this.#handles.has(seg)) created = true;
            const h = (await this.#handle(seg, true))!;
            // Header, frame, and a zeroed header after it (when it fits): leftovers of a failed commit end there.
            const tail = Math.min(FRAME_HEADER_BYTES, EXTENT_BYTES - offset - size);
            const out = Buffer.concat([frameHeader(p.frame, p.value.length), p.value, Buffer.alloc(tail)]);
            writeFully(h, out, extentOffset(p.blockId) + offset);
            touched.add(h);
            advanced.set(p.blockId, [p.frame + 1, offset + size]);
          } else {
            // Overflow: this frame and every later one of the block live in the key-value store.
            ops.push(this.#o.kv.putOp(userId, p.blockId, p.frame, p.value));
            advanced.set(p.blockId, [-1, EXTENT_BYTES]);
          }
        }
        // Frames that overflowed into the key-value store (and those of older databases) go with the batch.
        for (const [blockId, frames] of released) for (let f = 0; f < frames; f++) ops.push(this.#o.kv.delOp(userId, blockId, f));
        if (deferred !== undefined) {
          for (const h of touched) deferred.pending.add(h);
          if (created) deferred.pending.add(SYNC_DIR);
        } else if (this.#o.durability === 'sync') {
          // The segments' fdatasyncs run side by side on the thread pool: a group commit of many users touches a
          // few segments, and one after another they cost a disk flush each on the commit's critical path.
          await Promise.all([...[...touched].map((h) => h.datasync()), created ? syncDir(this.#o.dir) : undefined]);
        }
      },
      committed: async () => {
        for (const [b, e] of advanced) this.#ends.set(b, e);
        const now = this.#o.now();
        for (const [b] of released) {
          this.#ends.delete(b);
          if (!this.#dead.has(segmentOf(b))) this.#dead.set(segmentOf(b), -1);
          this.#toErase.set(b, now);
        }
      },
    };
  }

  async syncDeferred(deferred: DeferredSync): Promise<void> {
    if (this.#o.durability !== 'sync' || deferred.pending.size === 0) return;
    const files = [...deferred.pending].filter((h): h is FileHandle => h !== SYNC_DIR);
    await Promise.all([...files.map((h) => h.datasync()), deferred.pending.has(SYNC_DIR) ? syncDir(this.#o.dir) : undefined]);
  }

  /** Released blocks whose extents are still to be zeroed, with when they were released. */
  readonly #toErase = new Map<number, number>();

  /**
   * Zeroes the extents of blocks released at least `DEAD_SEGMENT_GRACE_MS` ago (all of them with `now`), so released
   * data (purged data included) does not linger until the segment file goes. The grace lets a read that took its
   * LevelDB snapshot before the release still find the bytes. A failure leaves them until the segment goes.
   */
  async erase(now: boolean): Promise<void> {
    const t = this.#o.now();
    for (const [b, at] of [...this.#toErase]) {
      if (!now && t - at < DEAD_SEGMENT_GRACE_MS) continue;
      this.#toErase.delete(b);
      await this.#erase(b).catch(() => undefined);
    }
  }

  async #erase(blockId: number): Promise<void> {
    const extent = await this.#readExtent(blockId);
    if (extent === null) return;
    const { end } = parseExtent(extent);
    if (end === 0) return;
    const h = (await this.#handle(segmentOf(blockId), false))!;
    writeFully(h, Buffer.alloc(end + FRAME_HEADER_BYTES > EXTENT_BYTES ? end : end + FRAME_HEADER_BYTES), extentOffset(blockId));
    if (this.#o.durability === 'sync') await h.datasync();
  }

  async getMany(refs: readonly FrameRef[], snapshot?: AbstractSnapshot): Promise<(Buffer | undefined)[]> {
    const blocks = new Map<number, Promise<Buffer[]>>();
    for (const r of refs) {
      if (!blocks.has(r.blockId)) blocks.set(r.blockId, this.#readExtent(r.blockId).then((e) => (e === null ? [] : parseExtent(e).frames)));
    }
    const out: (Buffer | undefined)[] = new Array(refs.length);
    const kv: number[] = [];
    for (let i = 0; i < refs.length; i++) {
      const r = refs[i]!;
      const frames = await blocks.get(r.blockId)!;
      if (r.frame < frames.length) out[i] = frames[r.frame];
      else kv.push(i);
    }
    if (kv.length > 0) {
      const values = await this.#o.kv.getMany(
        kv.map((i) => refs[i]!),
        snapshot,
      );
      kv.forEach((i, k) => (out[i] = values[k]));
    }
    return out;
  }

  /**
   * The block's frames held in the key-value store. A released block's extent keeps its bytes until its segment
   * file goes (nothing reads them: no directory entry or block info points there), so they are not listed.
   */
  framesOf(userId: string, blockId: number, snapshot?: AbstractSnapshot): AsyncIterable<number> {
    return this.#o.kv.framesOf(userId, blockId, snapshot);
  }

  /** Whether the block's extent holds any frame (a block whose extent is empty loses nothing when its segment goes). */
  async holdsFrames(blockId: number): Promise<boolean> {
    const extent = await this.#readExtent(blockId);
    return extent !== null && parseExtent(extent).frames.length > 0;
  }

  async *entries(onError: (err: unknown, after: string | null) => void, only?: (blockId: number) => boolean): AsyncIterable<StoredFrame> {
    let names: string[] = [];
    try {
      names = (await readdir(this.#o.dir)).filter((n) => n.endsWith('.seg')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') onError(err, null);
    }
    for (const name of names) {
      const seg = parseInt(name, 16);
      for (let i = 0; i < BLOCKS_PER_SEGMENT; i++) {
        const blockId = seg * BLOCKS_PER_SEGMENT + i;
        if (only !== undefined && !only(blockId)) continue;
        let extent: Buffer | null;
        try {
          extent = await this.#readExtent(blockId);
        } catch (err) {
          onError(err, name);
          continue;
        }
        if (extent === null) continue;
        const { frames } = parseExtent(extent);
        for (let f = 0; f < frames.length; f++) yield { userId: null, blockId, frame: f, value: frames[f]! };
      }
    }
    for await (const e of this.#o.kv.entries(onError)) if (only === undefined || only(e.blockId)) yield e;
  }

  keyRange(userId: string, minBlock: number, maxBlock: number): [string, string] {
    return this.#o.kv.keyRange(userId, minBlock, maxBlock);
  }

  /**
   * Deletes segment files none of whose blocks holds data, and `allocatedBelow` is the first block id not yet handed
   * out (a segment reaching past it may still be written). With `all` a block holds data when `blocksHoldingData`
   * lists it; otherwise while its extent holds frames (a block whose frames all live in the key-value store loses
   * nothing when its segment goes). Segments that died in this process wait `DEAD_SEGMENT_GRACE_MS` first. Returns
   * the number deleted.
   */
  async retire(allocatedBelow: number, all: boolean, blocksHoldingData: () => Promise<ReadonlySet<number>>): Promise<number> {
    if (this.#o.readOnly) return 0;
    const live = all ? async (blockId: number) => (await blocksHoldingData()).has(blockId) : (blockId: number) => this.holdsFrames(blockId);
    let segs: number[];
    if (all) {
      try {
        segs = (await readdir(this.#o.dir)).filter((n) => n.endsWith('.seg')).map((n) => parseInt(n, 16));
      } catch {
        return 0;
      }
    } else {
      segs = [...this.#dead.keys()];
    }
    const now = this.#o.now();
    let n = 0;
    for (const seg of segs) {
      if ((seg + 1) * BLOCKS_PER_SEGMENT > allocatedBelow) continue;
      let dead = true;
      for (let i = 0; i < BLOCKS_PER_SEGMENT && dead; i++) if (await live(seg * BLOCKS_PER_SEGMENT + i)) dead = false;
      if (!dead) {
        this.#dead.delete(seg);
        continue;
      }
      const since = this.#dead.get(seg);
      if (!all && (since === undefined || since < 0)) {
        this.#dead.set(seg, now);
        continue;
      }
      if (!all && now - since! < DEAD_SEGMENT_GRACE_MS) continue;
      const h = this.#handles.get(seg);
      this.#handles.delete(seg);
      await (await h?.catch(() => null))?.close();
      try {
        await unlink(join(this.#o.dir, segmentName(seg)));
        n++;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      this.#dead.delete(seg);
    }
    return n;
  }
}

/**
 * Writes all of `buf` at `position`, with `pwrite` on the calling thread. A write may be short (a file system that
 * runs out of space part-way through writes what fits and reports success); the rest is written again, so the failure
 * surfaces as the error of the write that cannot make progress (ENOSPC), never as a frame silently cut short under a
 * batch that references it.
 *
 * Why on the calling thread: a frame is a few KB copied into the page cache, which costs microseconds, where a
 * thread-pool round trip cost 100–300 µs per frame on the commit's critical path (one after another for the frames
 * of a group commit). Relaxed durability promises the page cache (surviving a crash of the process); under sync
 * durability the segments are fdatasync'ed afterwards, on the thread pool, before the batch is written.
 */
function writeFully(h: FileHandle, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const bytesWritten = writeSync(h.fd, buf, done, buf.length - done, position + done);
    if (bytesWritten <= 0) throw Object.assign(new Error(`ENOSPC: no space left on device, write (no progress at byte ${done} of ${buf.length})`), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}

/** fsyncs a directory, so that a file created in it survives a crash. */
async function syncDir(dir: string): Promise<void> {
  const h = await open(dir, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

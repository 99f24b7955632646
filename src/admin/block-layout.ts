import type { AkashicStore } from '../engine/akashic-store.js';
import { readOnlyScans } from '../engine/internal-seams.js';
import { invalidRatio, totalSlots, type BlockInfo } from '../record/block-info.js';
import { checkId } from '../api/ids.js';
import { blockKey } from '../api/key-strings.js';
import { liveEntries } from './dump.js';
import { formatBytes, formatPercent } from '../util/text-format.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

/** A live chunk as it sits in a block. */
export interface SlotChunk {
  readonly sessionId: string;
  readonly chunkId: string;
  readonly version: number;
  readonly frame: number;
  readonly slot: number;
  /** Position among all of the block's slots (frames laid end to end). */
  readonly index: number;
}

/** One block of the physical layout. */
export interface BlockLayout {
  readonly info: BlockInfo;
  /** Invalid slots over total slots. */
  readonly phi: number;
  readonly totalSlots: number;
  /** Slot count the block was sized for (the database's block capacity). */
  readonly capacity: number;
  /** Live chunks in slot order. */
  readonly chunks: SlotChunk[];
}

export interface LayoutOptions {
  readonly userId?: string;
  /** Also list released blocks (no slots, kept as tombstones). Default false. */
  readonly includeReleased?: boolean;
}

/**
 * The physical layout from one snapshot: blocks grouped by user (users in key order, blocks in id order), each
 * with its live chunks. Block → chunks is derived by scanning the user's directory entries, whose locations name
 * block, frame and slot; memory holds the block infos plus one user's chunk locations.
 */
export async function* blockLayouts(store: AkashicStore, opts: LayoutOptions = {}): AsyncGenerator<BlockLayout> {
  const only = opts.userId === undefined ? null : checkId(opts.userId, 'userId');
  const scans = store[readOnlyScans];
  const capacity = scans.meta.blockCapacity;
  const view = scans.snapshot();
  try {
    const byUser = new Map<string, BlockInfo[]>();
    for await (const info of view.blockInfos()) {
      if (only !== null && info.userId !== only) continue;
      if (info.state === 'released' && opts.includeReleased !== true) continue;
      const list = byUser.get(info.userId);
      if (list === undefined) byUser.set(info.userId, [info]);
      else list.push(info);
    }
    const users = [...byUser.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const user of users) {
      const blocks = byUser.get(user)!;
      const wanted = new Map<number, { info: BlockInfo; chunks: SlotChunk[]; firstSlot: number[] }>();
      for (const info of blocks) {
        const firstSlot: number[] = [];
        let at = 0;
        for (const n of info.frameSlots) {
          firstSlot.push(at);
          at += n;
        }
        wanted.set(info.blockId, { info, chunks: [], firstSlot });
      }
      for await (const e of liveEntries(view, user, null)) {
        const loc = e.entry.location!;
        const w = wanted.get(loc.blockId);
        if (w === undefined) continue;
        w.chunks.push({ sessionId: e.sessionId, chunkId: e.chunkId, version: e.entry.version, frame: loc.frame, slot: loc.slot, index: (w.firstSlot[loc.frame] ?? 0) + loc.slot });
      }
      for (const info of blocks) {
        const w = wanted.get(info.blockId)!;
        w.chunks.sort((a, b) => a.index - b.index);
        yield { info, phi: invalidRatio(info), totalSlots: totalSlots(info), capacity, chunks: w.chunks };
      }
    }
  } finally {
    await view.close();
  }
}

export interface WriteBlocksOptions extends LayoutOptions {
  /** One JSON object per block (JSON Lines) instead of text. */
  readonly json?: boolean;
}

/**
 * Writes the physical layout: per block its state, origin, live/total slots, fill (slots used of the block
 * capacity), φ, bytes, and the live chunks (session/chunkId) in slot order.
 *
 * @example
 *   await writeBlocks(store, process.stdout, { userId: 'alice' });
 */
export async function writeBlocks(store: AkashicStore, sink: LineSink, opts: WriteBlocksOptions = {}): Promise<{ blocks: number }> {
  const out = lineWriter(sink);
  let n = 0;
  let user: string | null = null;
  for await (const b of blockLayouts(store, opts)) {
    n++;
    const i = b.info;
    if (opts.json === true) {
      await out.line(
        JSON.stringify({
          blockId: i.blockId,
          userId: i.userId,
          sessionId: i.sessionId === '' ? null : i.sessionId,
          state: i.state,
          origin: i.origin,
          liveSlots: i.liveSlots,
          totalSlots: b.totalSlots,
          capacity: b.capacity,
          phi: b.phi,
          frames: i.frameSlots.length,
          liveBytes: i.liveBytes,
          rawBytes: i.rawBytes,
          storedBytes: i.storedBytes,
          chunks: b.chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId, version: c.version, frame: c.frame, slot: c.slot })),
        }),
      );
      continue;
    }
    if (i.userId !== user) {
      user = i.userId;
      await out.line(`user ${JSON.stringify(user)}`);
    }
    const session = i.sessionId === '' ? 'sessions: mixed' : `session: ${i.sessionId}`;
    if (i.state === 'released') {
      // A released block's frames are gone; its info keeps the counters it had when it was released.
      const at = i.releasedAt === null ? '' : ` at ${new Date(i.releasedAt).toISOString()}`;
      await out.line(`  block ${blockKey(i.blockId)}  ${i.state.padEnd(8)} ${i.origin.padEnd(10)} released${at}; had ${b.totalSlots} slots  ${session}`);
      continue;
    }
    await out.line(
      `  block ${blockKey(i.blockId)}  ${i.state.padEnd(8)} ${i.origin.padEnd(10)} slots ${i.liveSlots}/${b.totalSlots} live  ` +
        `fill ${formatPercent(b.totalSlots / b.capacity)}  φ ${b.phi.toFixed(2)}  frames ${i.frameSlots.length}  ` +
        `live ${formatBytes(i.liveBytes)}  raw ${formatBytes(i.rawBytes)}  stored ${formatBytes(i.storedBytes)}  ${session}`,
    );
    for (const c of b.chunks) await out.line(`    [${c.frame}:${c.slot}] ${c.sessionId}/${c.chunkId} v${c.version}`);
  }
  if (n === 0 && opts.json !== true) await out.line('(no blocks)');
  return { blocks: n };
}

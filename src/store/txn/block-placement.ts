import { encodeFrame, type EncodedFrame } from '../../block/frame-codec.js';
import { layoutGroups } from '../../block/group-layout.js';
import { totalSlots, type BlockInfo, type BlockOrigin } from '../../record/block-info.js';
import { decodeOpenBlockRef, encodeOpenBlockRef } from '../../record/engine-records.js';
import { openBlockKey, type AppendLane } from '../kv/keys.js';
import { setBlockInfo, stagedBlockInfo, type PendingRecord, type TxnState } from './txn-state.js';

export type { AppendLane } from '../kv/keys.js';

/** The origin recorded in the block info of a block a lane opens (a lane is not an origin: GC blocks have none). */
const LANE_ORIGIN: { readonly [L in AppendLane]: BlockOrigin } = { append: 'append', relocation: 'relocation' };

/** How many records each append group and how many sealed groups a savepoint saw (BlockPlacement.mark). */
export interface PlacementMark {
  readonly appends: ReadonlyMap<string, number>;
  readonly sealed: number;
}

/** The records staged for one open block (per user, or per session), in order. */
interface AppendGroup {
  readonly userId: string;
  readonly sessionId: string | null;
  readonly lane: AppendLane;
  readonly records: PendingRecord[];
}

/**
 * Block placement: which block, frame and slot each staged record lands in. Records are staged by the
 * transaction (`append`, `stageFreshBlocks`) and placed at commit (`place`): appends fill the open block of their user
 * (or session) and lane, sealing it at `blockCapacity` slots or `blockMaxBytes`; packed groups go whole into
 * fresh sealed blocks. REQUIRES: the transaction's write lock.
 */
export class BlockPlacement {
  readonly #appends = new Map<string, AppendGroup>();
  readonly #sealedGroups: { userId: string; origin: BlockOrigin; records: PendingRecord[]; split: number[] }[] = [];
  /** Open-block refs the commit wrote (for the context's cache). */
  readonly openRefs = new Map<string, number | null>();

  /** True when no record has been staged for placement. */
  get empty(): boolean {
    return this.#appends.size === 0 && this.#sealedGroups.length === 0 && this.openRefs.size === 0;
  }

  /** Stages a record for the open block of `userId` (or of `sessionId`, without cross-session blocks) in `lane`. */
  append(s: TxnState, userId: string, sessionId: string, record: PendingRecord, lane: AppendLane): void {
    const scope = s.ctx.options.crossSessionBlocks ? null : sessionId;
    const k = openBlockKey(userId, scope, lane);
    let g = this.#appends.get(k);
    if (g === undefined) {
      g = { userId, sessionId: scope, lane, records: [] };
      this.#appends.set(k, g);
    }
    g.records.push(record);
  }

  /** Stages groups of records to be laid out whole, in order, into fresh sealed blocks. */
  stageFreshBlocks(userId: string, origin: BlockOrigin, groups: readonly PendingRecord[][]): void {
    const records: PendingRecord[] = [];
    const split: number[] = [];
    for (const g of groups) {
      split.push(g.length);
      records.push(...g);
    }
    this.#sealedGroups.push({ userId, origin, records, split });
  }

  mark(): PlacementMark {
    return { appends: new Map([...this.#appends].map(([k, g]) => [k, g.records.length])), sealed: this.#sealedGroups.length };
  }

  /** Drops everything staged after `m`. */
  rollback(m: PlacementMark): void {
    for (const [k, g] of this.#appends) {
      const n = m.appends.get(k);
      if (n === undefined) this.#appends.delete(k);
      else g.records.length = n;
    }
    this.#sealedGroups.length = m.sealed;
  }

  /** Places every staged record (packed groups first, then appends), staging frames, block infos and entries. */
  async place(s: TxnState): Promise<void> {
    await this.#placeSealed(s);
    await this.#placeAppends(s);
  }

  /**
   * Each open block's records in order; the open blocks of a group commit (one per user, or per session) are placed
   * concurrently (a lane may wait for its open-block ref and info to be read). Each lane touches only its own
   * blocks; what lanes share (the block id allocator, the accounting, the op list) is changed synchronously between
   * awaits, so only which lane gets which fresh block id depends on timing. Frames only start compressing here
   * (`writeFrame`); the commit collects them with `settleFrames`.
   */
  async #placeAppends(s: TxnState): Promise<void> {
    await Promise.all([...this.#appends].map(([openKey, g]) => this.#placeLane(s, openKey, g)));
  }

  async #placeLane(s: TxnState, openKey: string, g: AppendGroup): Promise<void> {
    const cf = s.ctx.cf;
    {
      let id = s.ctx.openRefs.get(openKey);
      if (id === undefined) {
        const refValue = await cf.alloc.get(openKey);
        id = refValue === undefined ? null : decodeOpenBlockRef(refValue, `open block ref ${JSON.stringify(openKey)}`);
      }
      const committedRef = id;
      let info: BlockInfo | null = null;
      if (id !== null) {
        info = await stagedBlockInfo(s, id);
        if (info.state !== 'open') info = null; // stale ref: a fresh block is started
      }
      // A relocated group is kept whole: when it does not fit beside what the open relocation block holds, that
      // block is sealed and the group starts a fresh one (a group larger than a block spills over).
      if (g.lane === 'relocation' && info !== null) {
        let add = 0;
        for (const r of g.records) add += r.bytes.length;
        const o = s.ctx.options;
        if (totalSlots(info) + g.records.length > o.blockCapacity || info.rawBytes + add > o.blockMaxBytes) {
          setBlockInfo(s, info, { ...info, state: 'sealed', sealedAt: s.now });
          info = null;
        }
      }
      let i = 0;
      while (i < g.records.length) {
        let blockId: number;
        if (info === null) blockId = s.ctx.ids.take();
        else blockId = info.blockId;
        let slots = info === null ? 0 : totalSlots(info);
        let bytes = info === null ? 0 : info.rawBytes;
        const batch: PendingRecord[] = [];
        while (i < g.records.length) {
          const r = g.records[i]!;
          if (!fits(s, slots + batch.length, bytes, r.bytes.length)) break;
          batch.push(r);
          bytes += r.bytes.length;
          i++;
        }
        if (batch.length === 0) {
          // The open block is full (capacity reached by earlier writes): seal it as is and start another.
          if (info !== null) setBlockInfo(s, info, { ...info, state: 'sealed', sealedAt: s.now });
          info = null;
          continue;
        }
        slots += batch.length;
        const seal = !fits(s, slots, bytes, 1);
        writeFrame(s, info, blockId, g.userId, LANE_ORIGIN[g.lane], batch, seal);
        info = seal ? null : (s.infos.get(blockId) ?? null);
      }
      // The ref is written only when it changes (most appends go on filling the same open block).
      const ref = info === null ? null : info.blockId;
      if (ref !== committedRef) {
        if (ref === null) s.ops.push({ type: 'del', sublevel: cf.alloc, key: openKey });
        else s.ops.push({ type: 'put', sublevel: cf.alloc, key: openKey, value: encodeOpenBlockRef(ref) });
      }
      this.openRefs.set(openKey, info === null ? null : info.blockId);
    }
  }

  async #placeSealed(s: TxnState): Promise<void> {
    const o = s.ctx.options;
    for (const { userId, origin, records, split } of this.#sealedGroups) {
      const sizes: number[][] = [];
      let at = 0;
      for (const n of split) {
        sizes.push(records.slice(at, at + n).map((r) => r.bytes.length));
        at += n;
      }
      for (const block of layoutGroups(sizes, o.blockCapacity, o.blockMaxBytes)) {
        writeFrame(s, null, s.ctx.ids.take(), userId, origin, block.map((i) => records[i]!), true);
      }
    }
  }
}

function fits(s: TxnState, slots: number, bytes: number, addBytes: number): boolean {
  const o = s.ctx.options;
  return slots < o.blockCapacity && (slots === 0 || bytes + addBytes <= o.blockMaxBytes);
}

/**
 * Stages one frame of `recs` as the next frame of block `blockId` (`info` null: a new block), sealing the block when
 * `seal`; directory entries of the records get their slots. `prebuilt` is a frame a GC worker already encoded.
 *
 * Otherwise the frame's compression is only started here (a thread-pool round trip): the block info is staged with
 * the frame's stored size still zero, and `settleFrames` adds it once the compressed frame is there. Everything the
 * commit stages in between (directory entries, the candidate-index delta) thus runs while the frame compresses,
 * and every frame of a commit compresses in parallel.
 */
export function writeFrame(
  s: TxnState,
  info: BlockInfo | null,
  blockId: number,
  userId: string,
  origin: BlockOrigin,
  recs: PendingRecord[],
  seal: boolean,
  prebuilt?: EncodedFrame,
): void {
  const frameNo = info === null ? 0 : info.frameSlots.length;
  let rawBytes = 0;
  for (const r of recs) rawBytes += r.bytes.length;
  let storedBytes = 0;
  if (prebuilt !== undefined) {
    rawBytes = prebuilt.rawBytes;
    storedBytes = prebuilt.value.length;
    s.frames.put(blockId, frameNo, prebuilt.value);
  } else {
    const value = encodeFrame(blockId, frameNo, userId, recs.map((r) => r.bytes), s.ctx.options.zstdLevel).then((f) => f.value);
    // Awaited by settleFrames; a commit that fails before that must not leave a rejection unhandled.
    value.catch(() => undefined);
    s.pendingFrames.push({ blockId, frameNo, value });
  }
  const sessions = new Set(recs.map((r) => r.sessionId));
  let sessionId: string;
  if (info === null) sessionId = sessions.size === 1 ? (recs[0]?.sessionId ?? '') : '';
  else sessionId = info.sessionId !== '' && sessions.size === 1 && sessions.has(info.sessionId) ? info.sessionId : '';
  const liveRecs = recs.filter((r) => r.entry !== null);
  let liveBytes = 0;
  for (const r of liveRecs) liveBytes += r.bytes.length;
  const base: BlockInfo = info ?? {
    blockId,
    userId,
    sessionId,
    state: 'open',
    origin,
    frameSlots: [],
    frameBytes: [],
    liveSlots: 0,
    liveBytes: 0,
    rawBytes: 0,
    storedBytes: 0,
    createdAt: s.now,
    lastWriteAt: s.now,
    sealedAt: null,
    releasedAt: null,
  };
  const next: BlockInfo = {
    ...base,
    sessionId,
    state: seal ? 'sealed' : 'open',
    frameSlots: [...base.frameSlots, recs.length],
    frameBytes: [...base.frameBytes, storedBytes],
    liveSlots: base.liveSlots + liveRecs.length,
    liveBytes: base.liveBytes + liveBytes,
    rawBytes: base.rawBytes + rawBytes,
    storedBytes: base.storedBytes + storedBytes,
    lastWriteAt: s.now,
    sealedAt: seal ? s.now : null,
  };
  if (info === null) s.acct.blocksCreated++;
  setBlockInfo(s, info, next);
  s.acct.engineBytesWritten += rawBytes;
  recs.forEach((r, slot) => {
    if (r.dirKey !== null && r.entry !== null) {
      s.dirs.set(r.dirKey, { ...r.entry, location: { blockId, frame: frameNo, slot } });
    }
  });
}

/**
 * Waits for the frames `writeFrame` started compressing and stages them, in the order they were placed; each
 * block's info (and the accounting) gains the frames' stored sizes. Before the commit's release pass and block infos.
 */
export async function settleFrames(s: TxnState): Promise<void> {
  const jobs = s.pendingFrames.splice(0);
  if (jobs.length === 0) return;
  const values = await Promise.all(jobs.map((j) => j.value));
  jobs.forEach((j, i) => {
    const value = values[i]!;
    s.frames.put(j.blockId, j.frameNo, value);
    const cur = s.infos.get(j.blockId)!;
    const frameBytes = [...cur.frameBytes];
    frameBytes[j.frameNo] = value.length;
    setBlockInfo(s, cur, { ...cur, frameBytes, storedBytes: cur.storedBytes + value.length });
  });
}

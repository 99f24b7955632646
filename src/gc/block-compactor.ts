import { layoutGroups } from '../block/pack-layout.js';
import { decodeBlockInfo, invalidRatio, totalSlots, type BlockInfo } from '../record/block-info.js';
import { decodeDirEntry, sameLocation } from '../record/dir-entry.js';
import { dirKey, frameKey, parseBlockKey, refString } from '../store/keys.js';
import type { StoreCore } from '../store/store-core.js';
import type { PendingRecord, Txn } from '../store/txn/txn.js';
import type { AffinityChunk, AffinityModel } from './affinity-model.js';
import type { ExtractedRecord } from './gc-protocol.js';
import type { GcPool } from './gc-pool.js';

export interface GcPassOptions {
  /** θ: minimum invalid ratio of a victim. */
  readonly threshold: number;
  /** Rate limit: victims per pass. */
  readonly maxBlocks: number;
  /**
   * Also take sealed blocks whose live slots are below this fraction of the block capacity, whatever their φ, when
   * a user has at least two of them: merging under-filled blocks (left by relocation and by the last block of
   * earlier passes) is the only way their fill comes back. 0 = φ alone (blocks with no dead slot are never touched).
   */
  readonly mergeBelowFill?: number;
  /** Block capacity (for mergeBelowFill). */
  readonly capacity?: number;
  /** Restrict to one user. */
  readonly userId?: string;
}

export interface GcReport {
  /** Sealed blocks at or above θ when the pass started. */
  readonly candidates: number;
  /** Blocks chosen (cost-benefit order, capped by maxBlocks). */
  readonly victims: number;
  readonly blocksReleased: number;
  readonly blocksWritten: number;
  readonly chunksMoved: number;
  /** Chunks that changed while the pass worked on them (compare-and-swap lost): left where they are now. */
  readonly conflicts: number;
  /** Partitions whose affinity model failed; they were packed in temporal order instead. */
  readonly affinityFallbacks: number;
  /** Victims left where they are because a frame of theirs is damaged (verify() names it). */
  readonly damagedBlocks: number;
}

/**
 * LFS cost-benefit score of cleaning a block: (1 − u) · age / (1 + u), with u the live fraction of its bytes
 * and age the time since its last change. Cleaning pays most for blocks that are mostly dead (little to copy)
 * and have been stable (their remaining live data is unlikely to die soon, so the copy is not wasted).
 * φ alone would pick a hot block that is about to empty by itself.
 */
export function costBenefit(info: BlockInfo, now: number): number {
  const u = info.rawBytes === 0 ? 0 : info.liveBytes / info.rawBytes;
  const age = Math.max(1, now - info.lastWriteAt);
  return ((1 - u) * age) / (1 + u);
}

/**
 * What a pass keeps per candidate block: a few fields, not the whole BlockInfo, so that a pass over a large
 * store holds O(candidate blocks) small objects.
 */
export interface Victim {
  readonly blockId: number;
  readonly userId: string;
  readonly frames: number;
  readonly slots: number;
}

/**
 * Victims compacted together (one extraction, one affinity grouping, one commit): at most this many blocks, and
 * no more slots than GC_BATCH_SLOTS (a batch always takes at least one block). Bounds a pass's memory: one
 * batch's frames and records are held at once, whatever the number of victims. (Affinity grouping is quadratic
 * in the live chunks of a batch, so the slot cap bounds its time too.)
 */
export const GC_BATCH_BLOCKS = 64;
export const GC_BATCH_SLOTS = 1024;

/**
 * GC's victim decision: sealed blocks with φ ≥ θ, best cost-benefit first; then, with `mergeBelowFill`, under-filled
 * sealed blocks of users that have at least two (emptiest first), which merge into fuller ones.
 */
export async function findVictims(core: StoreCore, opts: GcPassOptions): Promise<{ candidates: number; victims: Victim[] }> {
  const now = core.options.now();
  const found: { victim: Victim; score: number }[] = [];
  const underFilled = new Map<string, { victim: Victim; fill: number }[]>();
  const mergeBelow = (opts.mergeBelowFill ?? 0) * (opts.capacity ?? core.options.blockCapacity);
  for await (const [k, v] of core.cf.blockInfo.iterator()) {
    let info: BlockInfo;
    try {
      info = decodeBlockInfo(v, `block info ${k}`);
    } catch {
      continue; // a damaged block info (verify() names it) must not stop GC of every other block
    }
    if (info.state !== 'sealed') continue;
    if (opts.userId !== undefined && info.userId !== opts.userId) continue;
    const victim = { blockId: info.blockId, userId: info.userId, frames: info.frameSlots.length, slots: totalSlots(info) };
    if (invalidRatio(info) >= opts.threshold) found.push({ victim, score: costBenefit(info, now) });
    // Under-filled by slots but not by bytes: a block sealed by its byte budget gains nothing from a merge.
    else if (info.liveSlots < mergeBelow && info.liveBytes < (opts.mergeBelowFill ?? 0) * core.options.blockMaxBytes) {
      const list = underFilled.get(info.userId);
      if (list === undefined) underFilled.set(info.userId, [{ victim, fill: info.liveSlots }]);
      else list.push({ victim, fill: info.liveSlots });
    }
  }
  found.sort((a, b) => b.score - a.score || a.victim.blockId - b.victim.blockId);
  const merges = [...underFilled.values()].filter((l) => l.length >= 2).flat();
  merges.sort((a, b) => a.fill - b.fill || a.victim.blockId - b.victim.blockId);
  const victims = [...found.map((f) => f.victim), ...merges.map((m) => m.victim)].slice(0, opts.maxBlocks);
  return { candidates: found.length + merges.length, victims };
}

/**
 * One pass of block compaction (the Akashic paper, Algorithm 2 lines 11–24), per user: extract the victims' live chunks
 * (in a worker), partition them by namespace, group each partition by affinity, pack the groups in temporal
 * order into fresh sealed blocks (in a worker), and commit on the engine thread with a compare-and-swap on
 * every directory entry. Victims whose live slots all moved are released by that commit.
 */
export async function runGcPass(core: StoreCore, pool: GcPool, affinity: AffinityModel, opts: GcPassOptions): Promise<GcReport> {
  const { candidates, victims } = await findVictims(core, opts);
  const byUser = new Map<string, Victim[]>();
  for (const v of victims) {
    const list = byUser.get(v.userId);
    if (list === undefined) byUser.set(v.userId, [v]);
    else list.push(v);
  }
  const report = { candidates, victims: victims.length, blocksReleased: 0, blocksWritten: 0, chunksMoved: 0, conflicts: 0, affinityFallbacks: 0, damagedBlocks: 0 };
  for (const [userId, blocks] of byUser) {
    for (let at = 0; at < blocks.length; ) {
      let end = at + 1;
      let slots = blocks[at]!.slots;
      while (end < blocks.length && end - at < GC_BATCH_BLOCKS && slots + blocks[end]!.slots <= GC_BATCH_SLOTS) slots += blocks[end++]!.slots;
      const r = await compactUser(core, pool, affinity, userId, blocks.slice(at, end));
      at = end;
      report.blocksReleased += r.released;
      report.blocksWritten += r.written;
      report.chunksMoved += r.moved;
      report.conflicts += r.conflicts;
      report.affinityFallbacks += r.fallbacks;
      report.damagedBlocks += r.damaged;
    }
  }
  if (victims.length > 0) {
    await core.transact(async (txn) => {
      txn.acct.gcRuns++;
    });
  }
  return report;
}

async function compactUser(
  core: StoreCore,
  pool: GcPool,
  affinity: AffinityModel,
  userId: string,
  victims: readonly Victim[],
): Promise<{ released: number; written: number; moved: number; conflicts: number; fallbacks: number; damaged: number }> {
  const keys: string[] = [];
  for (const b of victims) for (let f = 0; f < b.frames; f++) keys.push(frameKey(b.blockId, f));
  const values = await core.cf.blocks.getMany(keys);
  // A victim released meanwhile (relocation emptied it) has no frames left: skip those frames.
  const victimFrames = keys.flatMap((key, i) => (values[i] === undefined ? [] : [{ key, value: values[i]! }]));
  const extracted = await pool.extract({ kind: 'extract', frames: victimFrames });
  // A victim with a damaged frame stays as it is: moving only its readable slots would hide the damage from no
  // one and gain little; one damaged block must not stop GC for the rest of the user's blocks either.
  const damagedIds = new Set(extracted.damaged.map((d) => parseBlockKey(d.key.slice(0, d.key.indexOf('.')))));
  const records = extracted.records.filter((r) => !damagedIds.has(r.blockId));
  const blocks = victims.filter((b) => !damagedIds.has(b.blockId));

  const dkeys = records.map((r) => dirKey(userId, r.sessionId, r.chunkId));
  const entries = dkeys.length === 0 ? [] : await core.cf.dir.getMany(dkeys);
  const live: { rec: ExtractedRecord; key: string; meta: AffinityChunk }[] = [];
  records.forEach((rec, i) => {
    const v = entries[i];
    if (v === undefined) return;
    let e;
    try {
      e = decodeDirEntry(v, `directory entry ${JSON.stringify(dkeys[i])}`);
    } catch {
      return; // a damaged entry (verify() names it): its record stays where it is, and so does its block
    }
    if (e.state !== 'live' || e.version !== rec.version) return;
    if (!sameLocation(e.location, { blockId: rec.blockId, frame: rec.frame, slot: rec.slot })) return;
    live.push({
      rec,
      key: dkeys[i]!,
      meta: { id: refString(rec.sessionId, rec.chunkId), sessionId: rec.sessionId, createdAt: e.createdAt, tokenCount: e.tokenCount, keywords: e.keywords, ...(e.embedding === undefined ? {} : { embedding: e.embedding }) },
    });
  });
  const blockIdsBefore = blocks.map((b) => b.blockId);
  if (live.length === 0) {
    // Nothing live to move: the commit below only has to release the victims (their counters say so).
    return { ...(await releaseOnly(core, blockIdsBefore)), damaged: damagedIds.size };
  }

  // Partition by namespace: the session when blocks are per session, the whole user otherwise.
  const partitions = new Map<string, typeof live>();
  for (const l of live) {
    const p = core.options.crossSessionBlocks ? '' : l.rec.sessionId;
    const list = partitions.get(p);
    if (list === undefined) partitions.set(p, [l]);
    else list.push(l);
  }
  let fallbacks = 0;
  const ordered: (typeof live)[] = [];
  for (const part of partitions.values()) {
    const byId = new Map(part.map((l) => [l.meta.id, l]));
    const co = await core.coAccess(userId, [...byId.keys()]);
    let groups: string[][];
    try {
      groups = await affinity.group(part.map((l) => l.meta), co);
      const seen = new Set(groups.flat());
      if (seen.size !== byId.size || groups.flat().length !== byId.size || ![...seen].every((id) => byId.has(id))) {
        throw new Error('affinity groups do not cover every chunk exactly once');
      }
    } catch {
      fallbacks++;
      groups = [[...byId.keys()]];
    }
    for (const g of groups) {
      const items = g.map((id) => byId.get(id)!);
      items.sort((a, b) => a.meta.createdAt - b.meta.createdAt || (a.rec.chunkId < b.rec.chunkId ? -1 : 1));
      ordered.push(items);
    }
  }
  ordered.sort((a, b) => a[0]!.meta.createdAt - b[0]!.meta.createdAt);
  const flat = ordered.flat();
  const layout = layoutGroups(
    ordered.map((g) => g.map((l) => l.rec.bytes.length)),
    core.options.blockCapacity,
    core.options.blockMaxBytes,
  );
  const firstId = await core.reserveBlockIds(layout.length);
  const { frames } = await pool.pack({
    kind: 'pack',
    zstdLevel: core.options.zstdLevel,
    blocks: layout.map((idx, b) => ({ blockId: firstId + b, userId, records: idx.map((i) => flat[i]!.rec.bytes) })),
  });

  let moved = 0;
  let conflicts = 0;
  let committed: Txn | null = null;
  await core.transact(async (txn) => {
    committed = txn;
    txn.noteReserved(firstId + layout.length);
    const now = await txn.dirEntries(flat.map((l) => l.key));
    const ok = flat.map((l, i) => {
      const e = now[i];
      return e !== null && e !== undefined && e.state === 'live' && e.version === l.rec.version && sameLocation(e.location, l.rec);
    });
    for (let i = 0; i < flat.length; i++) {
      if (ok[i]) await txn.invalidate(now[i]!.location!, now[i]!.recordBytes);
    }
    for (let b = 0; b < layout.length; b++) {
      const recs: PendingRecord[] = layout[b]!.map((i) => {
        const l = flat[i]!;
        const e = now[i]!;
        return { bytes: l.rec.bytes, dirKey: ok[i] ? l.key : null, entry: ok[i] ? e : null, sessionId: l.rec.sessionId };
      });
      const f = frames[b]!;
      await txn.addPrebuiltBlock(f.blockId, userId, 'gc', { value: Buffer.from(f.value), rawBytes: f.rawBytes }, recs);
    }
    moved = ok.filter(Boolean).length;
    conflicts = flat.length - moved;
    txn.acct.gcMovedChunks += moved;
  });
  const released = (committed as Txn | null)?.released.filter((id) => blockIdsBefore.includes(id)).length ?? 0;
  return { released, written: layout.length, moved, conflicts, fallbacks, damaged: damagedIds.size };
}

async function releaseOnly(core: StoreCore, blockIds: readonly number[]): Promise<{ released: number; written: number; moved: number; conflicts: number; fallbacks: number }> {
  let committed: Txn | null = null;
  await core.transact(async (txn) => {
    committed = txn;
    for (const id of blockIds) await txn.blockInfo(id);
  });
  const released = (committed as Txn | null)?.released.length ?? 0;
  return { released, written: 0, moved: 0, conflicts: 0, fallbacks: 0 };
}

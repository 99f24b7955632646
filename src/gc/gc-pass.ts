import { layoutGroups } from '../block/group-layout.js';
import { decodeDirEntry, sameLocation } from '../record/dir-entry.js';
import { dirKey, frameKey, parseBlockKey, refString } from '../store/kv/keys.js';
import type { FrameRef } from '../store/frame-store.js';
import type { StoreCore } from '../store/store-core.js';
import type { PendingRecord, Txn } from '../store/txn/txn.js';
import type { AffinityChunk, AffinityModel } from '../api/affinity-model.js';
import type { ExtractedRecord } from './gc-protocol.js';
import type { GcPool } from './gc-pool.js';
import { findVictims, type GcPassOptions, type Victim } from './victim-selection.js';

export type { GcPassOptions } from './victim-selection.js';
import type { GcReport } from '../api/reports.js';

/**
 * Victims collected together (one extraction, one affinity grouping, one commit): at most this many blocks, and
 * no more slots than GC_BATCH_SLOTS (a batch always takes at least one block). Bounds a pass's memory: one
 * batch's frames and records are held at once, whatever the number of victims. (Affinity grouping is quadratic
 * in the live chunks of a batch, so the slot cap bounds its time too.)
 */
export const GC_BATCH_BLOCKS = 64;
export const GC_BATCH_SLOTS = 1024;

/**
 * One GC pass (the Akashic paper, Algorithm 2 lines 11–24), per user: extract the victims' live chunks
 * (in a worker), partition them by namespace, group each partition by affinity, pack the groups in temporal
 * order into fresh sealed blocks (in a worker), and commit on the engine thread with a compare-and-swap on
 * every directory entry. Victims whose live slots all moved are released by that commit. `affinityFor` gives the
 * affinity model that groups one user's chunks.
 */
export async function runGcPass(core: StoreCore, pool: GcPool, affinityFor: (userId: string) => AffinityModel, opts: GcPassOptions): Promise<GcReport> {
  const { eligible, victims } = await findVictims(core, opts);
  const byUser = new Map<string, Victim[]>();
  for (const v of victims) {
    const list = byUser.get(v.userId);
    if (list === undefined) byUser.set(v.userId, [v]);
    else list.push(v);
  }
  const report = { eligible, victims: victims.length, blocksReleased: 0, blocksWritten: 0, chunksMoved: 0, conflicts: 0, affinityFallbacks: 0, damagedBlocks: 0 };
  for (const [userId, blocks] of byUser) {
    for (let at = 0; at < blocks.length; ) {
      let end = at + 1;
      let slots = blocks[at]!.slots;
      while (end < blocks.length && end - at < GC_BATCH_BLOCKS && slots + blocks[end]!.slots <= GC_BATCH_SLOTS) slots += blocks[end++]!.slots;
      const r = await collectUserBatch(core, pool, affinityFor(userId), userId, blocks.slice(at, end));
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
    // A pass is counted once, in the accounting of the first user it collected (totals sum over users).
    await core.transact(victims[0]!.userId, async (txn) => {
      txn.acct.gcRuns++;
    });
  }
  return report;
}

async function collectUserBatch(
  core: StoreCore,
  pool: GcPool,
  affinity: AffinityModel,
  userId: string,
  victims: readonly Victim[],
): Promise<{ released: number; written: number; moved: number; conflicts: number; fallbacks: number; damaged: number }> {
  const refs: FrameRef[] = [];
  for (const b of victims) for (let f = 0; f < b.frames; f++) refs.push({ userId, blockId: b.blockId, frame: f });
  const keys = refs.map((r) => frameKey(r.blockId, r.frame));
  const values = await core.frames.getMany(refs);
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
    return { ...(await releaseOnly(core, userId, blockIdsBefore)), damaged: damagedIds.size };
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
  const { first: firstId, epoch } = await core.reserveBlockIds(layout.length);
  const { frames } = await pool.encodeBlocks({
    kind: 'encode-blocks',
    zstdLevel: core.options.zstdLevel,
    blocks: layout.map((idx, b) => ({ blockId: firstId + b, userId, records: idx.map((i) => flat[i]!.rec.bytes) })),
  });

  let moved = 0;
  let conflicts = 0;
  let committed: Txn | null = null;
  await core.transact(userId, async (txn) => {
    committed = txn;
    // Another process took a range since the ids were reserved (fencing only): they may be its; leave this batch
    // of victims to the next pass.
    if (core.blockIdEpoch !== epoch) return;
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

async function releaseOnly(core: StoreCore, userId: string, blockIds: readonly number[]): Promise<{ released: number; written: number; moved: number; conflicts: number; fallbacks: number }> {
  let committed: Txn | null = null;
  await core.transact(userId, async (txn) => {
    committed = txn;
    for (const id of blockIds) await txn.blockInfo(id);
  });
  const released = (committed as Txn | null)?.released.length ?? 0;
  return { released, written: 0, moved: 0, conflicts: 0, fallbacks: 0 };
}

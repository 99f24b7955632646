/**
 * The decide half of a GC pass (as LevelDB's PickCompaction): which sealed blocks are victims, in what order.
 * The commit half is `gc-pass.ts`.
 */
import { slotInvalidRatio, type BlockInfo } from '../record/block-info.js';
import { reclaimableBlock, sealedBlockInfos, underFilled, type MergeRule, type ReclaimableBlock } from '../store/reclaimable-blocks.js';
import type { StoreCore } from '../store/store-core.js';

export interface GcPassOptions {
  /** θ: minimum invalid ratio of a victim. */
  readonly threshold: number;
  /** Rate limit: victims per pass. */
  readonly maxBlocks: number;
  /** Restrict to one user. */
  readonly userId?: string;
}

/**
 * LFS cost-benefit score of cleaning a block: (1 − u) · age / (1 + u), with u the live fraction of its bytes
 * and age the time since its last change. Cleaning pays most for blocks that are mostly dead (little to copy)
 * and have been stable (their remaining live data is unlikely to die soon, so the copy is not wasted).
 * φ alone would pick a hot block that is about to empty by itself.
 */
export function costBenefit(info: Pick<BlockInfo, 'rawBytes' | 'liveBytes' | 'lastWriteAt'>, now: number): number {
  const u = info.rawBytes === 0 ? 0 : info.liveBytes / info.rawBytes;
  const age = Math.max(1, now - info.lastWriteAt);
  return ((1 - u) * age) / (1 + u);
}

/**
 * What a pass keeps per victim block: a few fields, not the whole BlockInfo, so that a pass over a large
 * store holds O(victims) small objects.
 */
export interface Victim {
  readonly blockId: number;
  readonly userId: string;
  readonly frames: number;
  readonly slots: number;
}

/**
 * GC's victim decision: sealed blocks with φ ≥ θ, best cost-benefit first; then, with the store's
 * `gc.mergeBelowFill`, under-filled sealed blocks of users that have at least two (emptiest first), which merge into
 * fuller ones. Only reclaimable blocks can qualify (`store/reclaimable-blocks.ts`), and the store keeps those in
 * memory: a pass reads no block info (the first one builds the set with one scan).
 */
export async function findVictims(core: StoreCore, opts: GcPassOptions): Promise<{ eligible: number; victims: Victim[] }> {
  const now = core.options.now();
  const blocks = await core.reclaimableBlocks();
  return chooseVictims(blocks ?? (await scanReclaimable(core)), core.reclaimable.rule, opts, now);
}

/**
 * The same decision from a scan of every block info (what a pass did before the store kept the set; still its path
 * when the set overflowed its memory bound). Exported as the oracle of the set's tests.
 */
export async function findVictimsByScan(core: StoreCore, opts: GcPassOptions): Promise<{ eligible: number; victims: Victim[] }> {
  const now = core.options.now();
  return chooseVictims(await scanReclaimable(core), core.reclaimable.rule, opts, now);
}

async function scanReclaimable(core: StoreCore): Promise<ReclaimableBlock[]> {
  const out: ReclaimableBlock[] = [];
  for await (const info of sealedBlockInfos(core.cf.blockInfo)) out.push(reclaimableBlock(info));
  return out;
}

/** The victim rule over sealed blocks (any superset of the reclaimable ones gives the same answer). */
function chooseVictims(blocks: Iterable<ReclaimableBlock>, rule: MergeRule, opts: GcPassOptions, now: number): { eligible: number; victims: Victim[] } {
  const found: { victim: Victim; score: number }[] = [];
  const underFilledByUser = new Map<string, { victim: Victim; fill: number }[]>();
  for (const b of blocks) {
    if (opts.userId !== undefined && b.userId !== opts.userId) continue;
    const victim = { blockId: b.blockId, userId: b.userId, frames: b.frames, slots: b.slots };
    if (slotInvalidRatio(b.slots, b.liveSlots) >= opts.threshold) found.push({ victim, score: costBenefit(b, now) });
    else if (underFilled(b, rule)) {
      const list = underFilledByUser.get(b.userId);
      if (list === undefined) underFilledByUser.set(b.userId, [{ victim, fill: b.liveSlots }]);
      else list.push({ victim, fill: b.liveSlots });
    }
  }
  found.sort((a, b) => b.score - a.score || a.victim.blockId - b.victim.blockId);
  const merges = [...underFilledByUser.values()].filter((l) => l.length >= 2).flat();
  merges.sort((a, b) => a.fill - b.fill || a.victim.blockId - b.victim.blockId);
  const victims = [...found.map((f) => f.victim), ...merges.map((m) => m.victim)].slice(0, opts.maxBlocks);
  return { eligible: found.length + merges.length, victims };
}

/**
 * The decide half of a GC pass (as LevelDB's PickCompaction): which sealed blocks are victims, in what order.
 * The commit half is `gc-pass.ts`.
 */
import { decodeBlockInfo, invalidRatio, totalSlots, type BlockInfo } from '../record/block-info.js';
import type { StoreCore } from '../store/store-core.js';

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
 * GC's victim decision: sealed blocks with φ ≥ θ, best cost-benefit first; then, with `mergeBelowFill`, under-filled
 * sealed blocks of users that have at least two (emptiest first), which merge into fuller ones.
 */
export async function findVictims(core: StoreCore, opts: GcPassOptions): Promise<{ eligible: number; victims: Victim[] }> {
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
  return { eligible: found.length + merges.length, victims };
}

import { decodeBlockInfo, totalSlots, type BlockInfo } from '../record/block-info.js';
import type { Family } from './kv/column-families.js';

/**
 * Every sealed block's info, in key order, from one scan of the block-info family. A damaged info is skipped
 * (verify() names it): it must not stop GC of every other block.
 */
export async function* sealedBlockInfos(family: Family): AsyncGenerator<BlockInfo> {
  for await (const [k, v] of family.iterator()) {
    let info: BlockInfo;
    try {
      info = decodeBlockInfo(v, `block info ${k}`);
    } catch {
      continue;
    }
    if (info.state === 'sealed') yield info;
  }
}

/**
 * What GC's victim decision reads of a block (`gc/victim-selection.ts`): a few fields, not the whole BlockInfo.
 */
export interface ReclaimableBlock {
  readonly blockId: number;
  readonly userId: string;
  /** Frames of the block (a pass reads them all). */
  readonly frames: number;
  /** Slots of the block, live and dead. */
  readonly slots: number;
  readonly liveSlots: number;
  readonly liveBytes: number;
  readonly rawBytes: number;
  readonly lastWriteAt: number;
}

/** The store's merge rule (`gc.mergeBelowFill`), fixed for as long as the store is open. */
export interface MergeRule {
  /** Fraction of a block's capacity (slots and bytes) below which a sealed block is under-filled; 0 = off. */
  readonly mergeBelowFill: number;
  readonly blockCapacity: number;
  readonly blockMaxBytes: number;
}

/**
 * Under-filled by slots and by bytes (a block sealed by its byte budget gains nothing from a merge). The merge half
 * of GC's victim rule, decided here so that the set below and the decision agree by construction.
 */
export function underFilled(b: Pick<BlockInfo, 'liveSlots' | 'liveBytes'>, rule: MergeRule): boolean {
  return b.liveSlots < rule.mergeBelowFill * rule.blockCapacity && b.liveBytes < rule.mergeBelowFill * rule.blockMaxBytes;
}

/**
 * Whether a block can ever be a GC victim under this merge rule, whatever the pass's θ (θ > 0): sealed, and with
 * a dead slot (φ > 0) or under-filled. A sealed block with every slot live and a fair fill is never one, and
 * stays so until a commit changes its info.
 */
export function reclaimable(info: BlockInfo, rule: MergeRule): boolean {
  return info.state === 'sealed' && (info.liveSlots < totalSlots(info) || underFilled(info, rule));
}

/**
 * Above this many reclaimable blocks the set gives up and GC scans the block infos on every pass, as it did before
 * the set existed: memory stays bounded (one small object per entry) however the store is used.
 */
export const RECLAIMABLE_MAX_BLOCKS = 1_000_000;

/**
 * The sealed blocks that can be GC victims, in memory, so that a GC pass costs in proportion to them rather than to
 * the store (a store of clean blocks: nothing read at all). Built by one scan of the block infos on first use and
 * kept true by the commit path (`txn/txn-commit.ts` calls `note` for every block info a committed batch wrote).
 * Not persisted: nothing on disk changes, and a reopen builds it again.
 *
 * REQUIRES: the store's write lock for `build` and `note` (so no commit lands between a build's scan and its use).
 * `blocks()` may be read without it: it returns what the last committed batch left.
 */
export class ReclaimableBlocks {
  readonly #rule: MergeRule;
  /** null: not built yet, or given up (`overflowed`). */
  #blocks: Map<number, ReclaimableBlock> | null = null;
  #overflowed = false;

  constructor(rule: MergeRule) {
    this.#rule = rule;
  }

  get rule(): MergeRule {
    return this.#rule;
  }

  /** True once built, until it overflows. */
  get ready(): boolean {
    return this.#blocks !== null;
  }

  /** True when the set gave up (more than RECLAIMABLE_MAX_BLOCKS): callers scan the block infos instead. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** One scan of the block-info family (`sealedBlockInfos`). REQUIRES: the write lock. */
  async build(family: Family): Promise<void> {
    if (this.#blocks !== null || this.#overflowed) return;
    const blocks = new Map<number, ReclaimableBlock>();
    for await (const info of sealedBlockInfos(family)) {
      if (!reclaimable(info, this.#rule)) continue;
      blocks.set(info.blockId, reclaimableBlock(info));
      if (blocks.size > RECLAIMABLE_MAX_BLOCKS) {
        this.#overflowed = true;
        return;
      }
    }
    this.#blocks = blocks;
  }

  /**
   * A committed batch wrote `info` (or deleted it: `gone`). A no-op before the set is built. REQUIRES: the write
   * lock, and the batch has landed.
   */
  note(info: BlockInfo, gone: boolean): void {
    const blocks = this.#blocks;
    if (blocks === null) return;
    if (!gone && reclaimable(info, this.#rule)) {
      blocks.set(info.blockId, reclaimableBlock(info));
      if (blocks.size > RECLAIMABLE_MAX_BLOCKS) {
        this.#blocks = null;
        this.#overflowed = true;
      }
    } else blocks.delete(info.blockId);
  }

  /**
   * Another process changed the user's blocks: the set is dropped and built again by the next GC pass (one scan),
   * since which of the user's blocks are reclaimable now is unknown here. REQUIRES: the write lock.
   */
  forgetUser(_userId: string): void {
    if (!this.#overflowed) this.#blocks = null;
  }

  /** The reclaimable blocks as the last committed batch left them. REQUIRES: `ready`. */
  blocks(): Iterable<ReclaimableBlock> {
    if (this.#blocks === null) throw new Error('reclaimable blocks read before they were built');
    return this.#blocks.values();
  }
}

/** What the victim decision keeps of a block info. */
export function reclaimableBlock(info: BlockInfo): ReclaimableBlock {
  return {
    blockId: info.blockId,
    userId: info.userId,
    frames: info.frameSlots.length,
    slots: totalSlots(info),
    liveSlots: info.liveSlots,
    liveBytes: info.liveBytes,
    rawBytes: info.rawBytes,
    lastWriteAt: info.lastWriteAt,
  };
}

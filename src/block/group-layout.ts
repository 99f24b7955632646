/**
 * Decides which records share a block when records are packed into fresh sealed blocks (relocation, GC).
 * Input: groups of record sizes, in the order they must be laid out. Output: blocks as lists of flat record
 * indices. A group is kept whole in one block where it fits; a new block starts when the next group would
 * overflow the one being filled; a group larger than a block spills over consecutive blocks.
 */
export function layoutGroups(groups: readonly (readonly number[])[], capacity: number, maxBytes: number): number[][] {
  const blocks: number[][] = [];
  let cur: number[] = [];
  let curBytes = 0;
  let index = 0;
  const emit = (): void => {
    if (cur.length > 0) blocks.push(cur);
    cur = [];
    curBytes = 0;
  };
  for (const g of groups) {
    let gBytes = 0;
    for (const s of g) gBytes += s;
    if (cur.length > 0 && (cur.length + g.length > capacity || curBytes + gBytes > maxBytes)) emit();
    for (const s of g) {
      if (cur.length > 0 && (cur.length >= capacity || curBytes + s > maxBytes)) emit();
      cur.push(index++);
      curBytes += s;
    }
  }
  emit();
  return blocks;
}

/** Fewest blocks that could hold `n` records under the slot capacity (bytes permitting). */
export function lowerBoundBlocks(n: number, capacity: number): number {
  return Math.ceil(n / capacity);
}

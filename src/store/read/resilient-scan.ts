import type { AbstractSnapshot } from 'abstract-level';
import type { Family } from '../kv/column-families.js';

/** A key range of one column family, optionally read from a snapshot. */
export interface ScanRange {
  readonly gte?: string;
  readonly lt?: string;
  readonly snapshot?: AbstractSnapshot;
}

/**
 * Iterates the entries of `family` in key order and keeps going past unreadable regions: when LevelDB fails to
 * read a table block (classic-level reads without checksum verification, so what fails is a snappy block that no
 * longer decompresses or a block that no longer parses), the failure goes to `onError` and the scan resumes
 * just after the last key it read. LevelDB's two-level table iterator skips a data block it cannot read when it
 * seeks, so the entries of the damaged block are lost to the scan and the rest is read. A failure that makes no
 * progress twice in a row (an unreadable index block, say) ends the scan.
 *
 * Used by `verify()` and `salvage()`, which must see everything that is still readable. Normal reads do not use
 * it: they must fail, not skip.
 * @internal
 */
export async function* resilientEntries(
  family: Family,
  range: ScanRange,
  onError: (err: unknown, afterKey: string | null) => void,
): AsyncGenerator<[string, Buffer]> {
  let after: string | null = null;
  let stalled = 0;
  for (;;) {
    const opts: { gte?: string; gt?: string; lt?: string; snapshot?: AbstractSnapshot } = {};
    if (after === null) {
      if (range.gte !== undefined) opts.gte = range.gte;
    } else {
      opts.gt = after;
    }
    if (range.lt !== undefined) opts.lt = range.lt;
    if (range.snapshot !== undefined) opts.snapshot = range.snapshot;
    const it = family.iterator(opts);
    let progressed = false;
    try {
      for (;;) {
        const e = await it.next();
        if (e === undefined) return;
        progressed = true;
        stalled = 0;
        after = e[0];
        yield e;
      }
    } catch (err) {
      onError(err, after);
      if (!progressed && ++stalled >= 2) return;
    } finally {
      await it.close().catch(() => undefined);
    }
  }
}

/**
 * Re-checks the keys a point lookup (get/getMany) did not find with a one-key range scan, in place. LevelDB point
 * lookups consult the table's bloom filter and classic-level reads it without checksum verification, so a damaged
 * filter block makes lookups miss keys that exist, silently. Scans do not use the filter. Meant for paths where a
 * miss is unexpected (reading chunks a listing named), where it costs one scan per miss and nothing otherwise.
 * @internal
 */
export async function confirmMisses(family: Family, keys: readonly string[], values: (Buffer | undefined)[], snapshot?: AbstractSnapshot): Promise<void> {
  for (let i = 0; i < keys.length; i++) {
    if (values[i] !== undefined) continue;
    const key = keys[i]!;
    const range = snapshot === undefined ? { gte: key, lte: key } : { gte: key, lte: key, snapshot };
    for await (const [, v] of family.iterator(range)) values[i] = v;
  }
}

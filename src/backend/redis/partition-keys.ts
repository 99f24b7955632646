/**
 * The Redis keys of one partition (docs/format.md, "Redis key layout"). Every key of a partition carries the same
 * hash tag, `{<prefix>:<partition>}`, so Redis Cluster places them in one slot and one script may touch them all.
 * Frozen: changing a suffix orphans stored data.
 */
export interface PartitionKeys {
  /** Sorted set of the partition's keys, all with score 0: ordered by their bytes, read by ZRANGEBYLEX. */
  readonly order: string;
  /** Hash: key → value. */
  readonly values: string;
  /** Hash: `n` the partition's version, bumped by every batch that writes it. */
  readonly version: string;
  /** List: the ids of the latest batches applied (a retried batch is recognized and not applied twice). */
  readonly recent: string;
}

export function partitionKeys(prefix: string, partition: string): PartitionKeys {
  const tag = `{${prefix}:${partition}}`;
  return { order: tag + ':z', values: tag + ':h', version: tag + ':v', recent: tag + ':r' };
}

/**
 * The keys of one partition's copy held by a consistent read (`snapshot`: that read's id): the same roles as
 * `partitionKeys` (order, values, version; `recent` is the copy's marker), under the partition's hash tag. They
 * expire by themselves (see FREEZE_PARTITION) and are deleted when the read ends.
 */
export function frozenKeys(prefix: string, partition: string, snapshot: string): PartitionKeys {
  const tag = `{${prefix}:${partition}}:s:${snapshot}`;
  return { order: tag + ':z', values: tag + ':h', version: tag + ':v', recent: tag + ':m' };
}

/**
 * The set of partitions that hold data, kept in the global partition's slot so that a scan across partitions
 * (listings, verify, dump) knows where to look without SCANning the cluster.
 */
export function registryKey(prefix: string): string {
  return `{${prefix}:}:p`;
}

/** Batch ids remembered per partition for retries. A retry comes within seconds, after at most a few other batches. */
export const RECENT_BATCHES = 64;

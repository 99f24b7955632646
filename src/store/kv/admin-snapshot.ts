import type { AbstractSnapshot } from 'abstract-level';
import type { AnyLevel } from '../../api/store-options.js';

/**
 * Whether the backend's admin snapshots are per partition (`db.supports.frozenPartitionSnapshots`): each partition
 * is read as of one instant, different partitions at different instants. LevelDB's snapshots are one instant for
 * the whole database, so this is false there.
 */
export function hasFrozenPartitions(db: AnyLevel): boolean {
  return (db.supports as unknown as Record<string, unknown>)['frozenPartitionSnapshots'] === true;
}

/**
 * The snapshot an admin read (verify, dump, inspect) takes so that it sees every user whole while applications
 * write: the backend's point-in-time snapshot (classic-level, memory-level), or, on a backend without one (Redis),
 * a snapshot that freezes each partition the first time it is read (every user as of one of its commits). The
 * engine's own reads keep the backend's default snapshot, which on Redis reads the latest data at no cost.
 * The caller closes it.
 */
export function adminSnapshot(db: AnyLevel): AbstractSnapshot {
  return hasFrozenPartitions(db) ? db.snapshot({ frozenPartitions: true } as never) : db.snapshot();
}

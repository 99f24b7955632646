/**
 * The upgrade of a database of format 5 (or older) to format 6, where every key of every per-user family starts
 * with its user (docs/format.md, "Database format"), so that every commit touches one user's partition.
 *
 * Requires: no concurrent writer (called from open, before the store is handed out). Every step is idempotent and
 * the format record is written only after all of them (by the open), so a crash anywhere makes the next writable
 * open run the upgrade again from the start. Memory: one id → user entry per block, and one batch.
 */
import { AkashicError } from '../../errors.js';
import { decodeAccounting, emptyAccounting, encodeAccounting, type Accounting } from '../../record/accounting.js';
import { decodeBlockInfo } from '../../record/block-info.js';
import { decodeDirEntry } from '../../record/dir-entry.js';
import { encodeExpiryMark } from '../../record/engine-records.js';
import { HISTORY_AGE_MARK, decodeHistoryVersion } from '../../record/history-version.js';
import type { BatchOp, BatchWriter } from './batch-writer.js';
import type { ColumnFamilies } from './column-families.js';
import { historyAgeKey, parseHistoryKey } from '../write/history.js';
import { META_ACCOUNTING_KEY, SEP, accountingKey, blockInfoKey, expiryKey, frameStoreKey, parseDirKey } from './keys.js';

/** Operations per batch while upgrading. */
const UPGRADE_BATCH_OPS = 20_000;

/** Format-5 keys: a bare block id (`binfo`) and a block id with a frame number (`blk`). */
const OLD_BLOCK_INFO_KEY = /^[0-9a-f]{12}$/;
const OLD_FRAME_KEY = /^([0-9a-f]{12})\.([0-9a-f]{4})$/;

/**
 * Rewrites a format-5 database in format 6: block infos to `user ␀ blockId`, key-value frames to
 * `user ␀ blockId.frame`, the expiry index and the history age index rebuilt user-first (both are derived: from the
 * directory and from the kept versions), and the accounting split per user — each user's byte and history figures
 * from its block infos and kept versions, while the database-wide record keeps the counters of events before the
 * upgrade (bytes ingested and written, chunks written, relocations, GC runs, retrievals, blocks created and
 * released) with its byte and history figures zeroed, so totals stay sums. Opened read-only, a database that
 * needs the upgrade is refused with AKASHIC_FORMAT_VERSION (nothing is changed).
 */
export async function upgradeToFormat6(cf: ColumnFamilies, writer: BatchWriter, readOnly: boolean): Promise<void> {
  if (readOnly) {
    throw new AkashicError('AKASHIC_FORMAT_VERSION', 'this database was written in format 5 (or older); open it writable once to upgrade it to format 6, then read-only opens work');
  }
  let ops: BatchOp[] = [];
  const flush = async (): Promise<void> => {
    if (ops.length === 0) return;
    await writer.write(ops);
    ops = [];
  };
  const push = async (op: BatchOp): Promise<void> => {
    ops.push(op);
    if (ops.length >= UPGRADE_BATCH_OPS) await flush();
  };
  const users = new Map<string, Accounting>();
  const acctOf = (userId: string): Accounting => {
    let a = users.get(userId);
    if (a === undefined) users.set(userId, (a = emptyAccounting()));
    return a;
  };

  // Block infos (an iterator reads a snapshot: the keys written meanwhile are not visited).
  const owner = new Map<number, string>();
  for await (const [k, v] of cf.blockInfo.iterator()) {
    const info = decodeBlockInfo(v, `block info ${JSON.stringify(k)}`);
    owner.set(info.blockId, info.userId);
    if (info.state !== 'released') {
      const a = acctOf(info.userId);
      a.liveBytes += info.liveBytes;
      a.storedRawBytes += info.rawBytes;
      a.storedBytes += info.storedBytes;
    }
    if (!OLD_BLOCK_INFO_KEY.test(k)) continue;
    await push({ type: 'put', sublevel: cf.blockInfo, key: blockInfoKey(info.userId, info.blockId), value: v });
    await push({ type: 'del', sublevel: cf.blockInfo, key: k });
  }
  // Frames kept in the key-value store (frame files address blocks by id alone: they stay as they are). A frame of
  // a block without an info is left where it is.
  for await (const [k, v] of cf.blocks.iterator()) {
    const m = OLD_FRAME_KEY.exec(k);
    if (m === null) continue;
    const userId = owner.get(parseInt(m[1]!, 16));
    if (userId === undefined) continue;
    await push({ type: 'put', sublevel: cf.blocks, key: frameStoreKey(userId, parseInt(m[1]!, 16), parseInt(m[2]!, 16)), value: v });
    await push({ type: 'del', sublevel: cf.blocks, key: k });
  }
  await flush();

  // The expiry index, rebuilt from the directory's live expiring chunks.
  await cf.expiry.clear();
  for await (const [k, v] of cf.dir.iterator()) {
    const p = parseDirKey(k);
    if (p === null) continue; // verify() names it
    const e = decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`, p.sessionId);
    if (e.state === 'live' && e.expiresAt !== undefined) {
      await push({ type: 'put', sublevel: cf.expiry, key: expiryKey(e.expiresAt, p.userId, p.sessionId, p.chunkId), value: encodeExpiryMark() });
    }
  }
  await flush();

  // The history age index, rebuilt from the kept versions (which also give each user's history figures).
  await cf.history.clear({ gte: 't' + SEP, lt: 't\u0001' });
  for await (const [k, v] of cf.history.iterator({ gte: 'v' + SEP, lt: 'v\u0001' })) {
    const p = parseHistoryKey(k);
    if (p === null) continue; // verify() names it
    const h = decodeHistoryVersion(v, `history ${JSON.stringify(k)}`);
    const a = acctOf(p.userId);
    a.historyVersions++;
    a.historyBytes += h.recordBytes;
    await push({ type: 'put', sublevel: cf.history, key: historyAgeKey(h.supersededAt, p.userId, p.sessionId, p.chunkId, p.version), value: HISTORY_AGE_MARK });
  }
  await flush();

  // Accounting: per user, then the database-wide record without the figures that moved to the users.
  for (const [userId, a] of users) await push({ type: 'put', sublevel: cf.alloc, key: accountingKey(userId), value: encodeAccounting(a) });
  const old = await cf.meta.get(META_ACCOUNTING_KEY);
  if (old !== undefined) {
    const carried = decodeAccounting(old, 'accounting');
    for (const f of ['liveBytes', 'storedRawBytes', 'storedBytes', 'historyVersions', 'historyBytes'] as const) carried[f] = 0;
    await push({ type: 'put', sublevel: cf.meta, key: META_ACCOUNTING_KEY, value: encodeAccounting(carried) });
  }
  await flush();
}

/**
 * History: the superseded versions of chunks (docs/format.md, "History"). An update or delete of a live chunk
 * copies the version it ends into the `hist` family, compressed, in the same batch; reads "as of" a time and
 * `history()` read them back. Retention: at most `historyVersions` per chunk (enforced by the write that adds one)
 * and, with `historyMaxAgeMs`, an age limit swept before every GC pass through a time-ordered age index.
 *
 * Keys (column family `hist`):
 *   `v ␀ user ␀ session ␀ ulid ␀ version(10 decimal digits)` → HistoryVersion
 *   `t ␀ supersededAt(16 hex digits, ms) ␀ user ␀ session ␀ ulid ␀ version` → HistoryAgeMark
 */
import { compress, decompress } from '../../block/zstd-binding.js';
import type { AbstractSnapshot } from 'abstract-level';
import { corruption } from '../../errors.js';
import { decodeChunkRecord, encodeChunkRecord, type ChunkRecord } from '../../record/chunk-record.js';
import type { DirEntry } from '../../record/dir-entry.js';
import { HISTORY_AGE_MARK, decodeHistoryVersion, encodeHistoryVersion, type HistoryVersion, type SupersedeCause } from '../../record/history-version.js';
import type { Family } from '../kv/column-families.js';
import { SEP, afterPrefix, expiryTime, prefixRange } from '../kv/keys.js';
import { dueUsers } from '../read/due-users.js';
import type { ResolvedStoreOptions } from '../../api/store-options.js';
import type { Txn } from '../txn/txn.js';
import type { ChunkVersion, RestoredVersion } from '../../api/results.js';

const VERSION_DIGITS = 10;

export function historyKey(userId: string, sessionId: string, chunkId: string, version: number): string {
  return 'v' + SEP + userId + SEP + sessionId + SEP + chunkId + SEP + String(version).padStart(VERSION_DIGITS, '0');
}

export function historyAgeKey(at: number, userId: string, sessionId: string, chunkId: string, version: number): string {
  return 't' + SEP + userId + SEP + expiryTime(at) + SEP + sessionId + SEP + chunkId + SEP + String(version).padStart(VERSION_DIGITS, '0');
}

/** The `v` keys of one chunk, of one session, or of one user. */
export function historyRange(userId: string, sessionId?: string, chunkId?: string): { gte: string; lt: string } {
  const parts = ['v', userId, ...(sessionId === undefined ? [] : [sessionId]), ...(chunkId === undefined ? [] : [chunkId])];
  return prefixRange(...parts);
}

export interface HistoryKeyParts {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly version: number;
}

/** Splits a `v` key; null for anything else. */
export function parseHistoryKey(key: string): HistoryKeyParts | null {
  const p = key.split(SEP);
  if (p.length !== 5 || p[0] !== 'v' || p[4]!.length !== VERSION_DIGITS) return null;
  const version = Number(p[4]);
  if (!Number.isInteger(version) || version < 1) return null;
  return { userId: p[1]!, sessionId: p[2]!, chunkId: p[3]!, version };
}

/** Splits a `t` key (`t ␀ user ␀ supersededAt ␀ session ␀ ulid ␀ version`, database format 6); null for anything else. */
export function parseHistoryAgeKey(key: string): (HistoryKeyParts & { at: number }) | null {
  const p = key.split(SEP);
  if (p.length !== 6 || p[0] !== 't' || !/^[0-9a-f]{16}$/.test(p[2]!)) return null;
  const rest = parseHistoryKey(['v', p[1], p[3], p[4], p[5]].join(SEP));
  const at = parseInt(p[2]!, 16);
  return rest === null ? null : { ...rest, at };
}

/**
 * Stages the version a write ends (`entry` with its record `bytes`) as history, in the transaction's batch, and
 * drops the chunk's oldest kept versions beyond the retention. No-op when history is off.
 * REQUIRES: the write lock (inside a Txn); the chunk is touched once by this transaction.
 */
export async function stageSuperseded(
  txn: Txn,
  options: ResolvedStoreOptions,
  ref: { userId: string; sessionId: string; chunkId: string },
  entry: DirEntry,
  bytes: Uint8Array,
  cause: SupersedeCause,
  supersededBy: { sessionId: string; chunkId: string } | null,
  reason?: string,
): Promise<void> {
  const keep = options.historyVersions;
  if (keep === 0) return;
  const { userId, sessionId, chunkId } = ref;
  const hist = txn.cf.history;
  // Retention by count: keep the newest keep−1 already stored, so with this one there are `keep`.
  let kept = 0;
  for await (const [k, v] of hist.iterator({ ...historyRange(userId, sessionId, chunkId), reverse: true })) {
    kept++;
    if (kept < keep) continue;
    const old = decodeHistoryVersion(v, `history ${JSON.stringify(k)}`);
    dropVersion(txn, hist, k, old, { userId, sessionId, chunkId, version: old.version });
  }
  const stored = await compress(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), options.zstdLevel);
  const h: HistoryVersion = {
    version: entry.version,
    validFrom: entry.updatedAt,
    supersededAt: txn.now,
    cause,
    supersededBy,
    recordBytes: bytes.length,
    codec: 'zstd',
    record: stored,
    ...(reason === undefined ? {} : { reason }),
  };
  txn.raw({ type: 'put', sublevel: hist, key: historyKey(userId, sessionId, chunkId, entry.version), value: encodeHistoryVersion(h) });
  txn.raw({ type: 'put', sublevel: hist, key: historyAgeKey(txn.now, userId, sessionId, chunkId, entry.version), value: HISTORY_AGE_MARK });
  txn.acct.historyVersions++;
  txn.acct.historyBytes += bytes.length;
  txn.acct.engineBytesWritten += bytes.length;
}

/**
 * Stages one restored version (dump/load) unless history already keeps it: its `v` entry, its age entry and the
 * counters. Returns whether it was staged. Retention by count is left to the caller; by age, to the next sweep.
 * REQUIRES: the write lock (inside a Txn); the chunk is touched once by this transaction.
 */
export async function stageRestoredVersion(txn: Txn, options: ResolvedStoreOptions, v: RestoredVersion): Promise<boolean> {
  const { userId, sessionId, chunkId, version } = v.record;
  const key = historyKey(userId, sessionId, chunkId, version);
  const hist = txn.cf.history;
  if ((await hist.get(key)) !== undefined) return false;
  const bytes = encodeChunkRecord(v.record);
  const h: HistoryVersion = {
    version,
    validFrom: v.validFrom,
    supersededAt: v.validUntil,
    cause: v.cause,
    supersededBy: v.supersededBy === null ? null : { sessionId: v.supersededBy.sessionId, chunkId: v.supersededBy.chunkId },
    ...(v.reason === undefined ? {} : { reason: v.reason }),
    recordBytes: bytes.length,
    codec: 'zstd',
    record: await compress(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), options.zstdLevel),
  };
  txn.raw({ type: 'put', sublevel: hist, key, value: encodeHistoryVersion(h) });
  txn.raw({ type: 'put', sublevel: hist, key: historyAgeKey(v.validUntil, userId, sessionId, chunkId, version), value: HISTORY_AGE_MARK });
  txn.acct.historyVersions++;
  txn.acct.historyBytes += bytes.length;
  txn.acct.engineBytesWritten += bytes.length;
  return true;
}

/** Stages the removal of one kept version and its age entry, and moves the history counters. */
function dropVersion(txn: Txn, hist: Family, key: string, h: HistoryVersion, p: HistoryKeyParts): void {
  txn.raw({ type: 'del', sublevel: hist, key });
  txn.raw({ type: 'del', sublevel: hist, key: historyAgeKey(h.supersededAt, p.userId, p.sessionId, p.chunkId, p.version) });
  txn.acct.historyVersions = Math.max(0, txn.acct.historyVersions - 1);
  txn.acct.historyBytes = Math.max(0, txn.acct.historyBytes - h.recordBytes);
}

/**
 * Stages the removal of every kept version of one chunk (an expired chunk is gone with its history).
 * REQUIRES: the write lock (inside a Txn).
 */
export async function dropChunkHistory(txn: Txn, ref: { userId: string; sessionId: string; chunkId: string }): Promise<number> {
  const hist = txn.cf.history;
  let n = 0;
  for await (const [k, v] of hist.iterator(historyRange(ref.userId, ref.sessionId, ref.chunkId))) {
    const p = parseHistoryKey(k);
    if (p === null) continue;
    dropVersion(txn, hist, k, decodeHistoryVersion(v, `history ${JSON.stringify(k)}`), p);
    n++;
  }
  return n;
}

/**
 * Drops versions of one user superseded at or before `before` (age retention), at most `max`, in one transaction
 * of that user. Cost: one range read of the user's age index up to `before`, one point read per dropped version.
 */
export async function sweepHistoryAge(txn: Txn, userId: string, before: number, max: number): Promise<{ dropped: number; more: boolean }> {
  const hist = txn.cf.history;
  let dropped = 0;
  for await (const k of hist.keys({ gte: prefixRange('t', userId).gte, lt: afterPrefix('t', userId, expiryTime(before)) })) {
    if (dropped === max) return { dropped, more: true };
    const p = parseHistoryAgeKey(k);
    if (p === null || p.at > before) continue;
    const vk = historyKey(p.userId, p.sessionId, p.chunkId, p.version);
    const v = await hist.get(vk);
    if (v === undefined) {
      txn.raw({ type: 'del', sublevel: hist, key: k }); // stale age entry
      continue;
    }
    dropVersion(txn, hist, vk, decodeHistoryVersion(v, `history ${JSON.stringify(vk)}`), p);
    dropped++;
  }
  return { dropped, more: false };
}

/** The users with a version due for the age sweep (two key reads per user with history: `dueUsers`). */
export function historyAgeDueUsers(hist: Family, before: number): AsyncGenerator<string> {
  return dueUsers(hist, 't', expiryTime(before));
}

/** Decompresses a kept version's record and checks it is the version its key names. */
export async function versionRecord(h: HistoryVersion, p: { userId: string; sessionId: string; chunkId: string }, what: string): Promise<ChunkRecord> {
  const bytes = h.codec === 'zstd' ? await decompress(Buffer.from(h.record.buffer, h.record.byteOffset, h.record.byteLength)) : h.record;
  if (bytes.length !== h.recordBytes) throw corruption(`${what}: record is ${bytes.length} bytes, expected ${h.recordBytes}`);
  const r = decodeChunkRecord(bytes, what);
  if (r.userId !== p.userId || r.sessionId !== p.sessionId || r.chunkId !== p.chunkId || r.version !== h.version) {
    throw corruption(`${what} holds ${r.userId}/${r.sessionId}/${r.chunkId} v${r.version}`);
  }
  return r;
}

/** The kept versions of one chunk, newest first, decoded (records not yet decompressed). */
export async function readKeptVersions(
  hist: Family,
  ref: { userId: string; sessionId: string; chunkId: string },
  snapshot?: AbstractSnapshot,
): Promise<{ key: string; h: HistoryVersion }[]> {
  const out: { key: string; h: HistoryVersion }[] = [];
  const range = { ...historyRange(ref.userId, ref.sessionId, ref.chunkId), reverse: true };
  for await (const [k, v] of hist.iterator(snapshot === undefined ? range : { ...range, snapshot })) {
    out.push({ key: k, h: decodeHistoryVersion(v, `history ${JSON.stringify(k)}`) });
  }
  return out;
}

/** A kept version as a read returns it. */
export async function toChunkVersion(h: HistoryVersion, ref: { userId: string; sessionId: string; chunkId: string }, what: string): Promise<ChunkVersion> {
  return {
    record: await versionRecord(h, ref, what),
    version: h.version,
    validFrom: h.validFrom,
    validUntil: h.supersededAt,
    cause: h.cause,
    supersededBy: h.supersededBy === null ? null : { userId: ref.userId, ...h.supersededBy },
    ...(h.reason === undefined ? {} : { reason: h.reason }),
  };
}

/** Whether a kept version was the current one at `asOf`. */
export function keptAt(h: HistoryVersion, asOf: number): boolean {
  return h.validFrom <= asOf && asOf < h.supersededAt;
}

/**
 * Purge hook: erases every kept version of the scope (and its age entries) in the purge's transaction, and names
 * the ranges to compact.
 */
export const historyPurgeHook = {
  async stage(txn: Txn, scope: { readonly userId: string; readonly sessionId: string | null }): Promise<{ deleted: number; ranges: [string, string][] }> {
    const hist = txn.cf.history;
    const range = scope.sessionId === null ? historyRange(scope.userId) : historyRange(scope.userId, scope.sessionId);
    const ranges: [string, string][] = [[hist.prefix + range.gte, hist.prefix + range.lt]];
    let deleted = 0;
    let minAge: string | null = null;
    let maxAge: string | null = null;
    for await (const [k, v] of hist.iterator(range)) {
      const p = parseHistoryKey(k);
      if (p === null) {
        txn.raw({ type: 'del', sublevel: hist, key: k });
        continue;
      }
      const h = decodeHistoryVersion(v, `history ${JSON.stringify(k)}`);
      dropVersion(txn, hist, k, h, p);
      const ak = historyAgeKey(h.supersededAt, p.userId, p.sessionId, p.chunkId, p.version);
      if (minAge === null || ak < minAge) minAge = ak;
      if (maxAge === null || ak > maxAge) maxAge = ak;
      deleted += 2;
    }
    if (minAge !== null) ranges.push([hist.prefix + minAge, hist.prefix + maxAge! + SEP]);
    return { deleted, ranges };
  },
};

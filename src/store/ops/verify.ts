import type { AbstractSnapshot } from 'abstract-level';
import { decodeFrame } from '../../block/frame-codec.js';
import { isAkashicError } from '../../errors.js';
import { decodeAccounting } from '../../record/accounting.js';
import { usageRowsProblem } from '../../record/model-usage-rows.js';
import { decodeBlockInfo, totalSlots, type BlockInfo } from '../../record/block-info.js';
import { decodeChunkRecord } from '../../record/chunk-record.js';
import { decodeDirEntry, type DirEntry } from '../../record/dir-entry.js';
import { decodeAllocator, decodeEngineMeta, decodeOpenBlockRef } from '../../record/engine-records.js';
import { ALLOC_NEXT_KEY, META_ACCOUNTING_KEY, META_ENGINE_KEY, SEP, blockInfoKey, blockKey, dirKey, frameKey, parseBlockInfoKey, parseDirKey, prefixRange } from '../kv/keys.js';
import { adminSnapshot, hasFrozenPartitions } from '../kv/admin-snapshot.js';
import { resilientEntries } from '../read/resilient-scan.js';
import { indexedChunk, pendingKey } from '../index/candidate-index.js';
import { KeySetDigest, pendingKeySet, verifyCandidateIndex } from './verify-index.js';
import { verifyExpiryAndHistory } from './verify-history.js';
import type { StoreCore } from '../store-core.js';
import type { Problem, ProblemKind, VerifyReport } from '../../api/reports.js';

/** What the directory says about one block: live entries pointing into it and their record bytes. */
interface DirCount {
  n: number;
  bytes: number;
}

/** A block whose directory count did not match its slots: pass 3 names the entries that point into it. */
interface BadBlock {
  readonly state: 'no-info' | 'released' | 'present';
  readonly frames: number;
  /** Frames that are missing or do not decode. */
  readonly badFrames: Map<number, 'missing' | 'damaged'>;
}

type Add = (p: Problem) => void;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Checks every invariant and reports each violation precisely; never throws for damage it finds.
 * Invariants: each live directory entry resolves to a slot of a non-released block holding exactly that record
 * (ids, version, size); block counters match the directory; frames decode with valid checksums and match their
 * block info; no block holds records of two users; released blocks have no frames; accounting totals equal the
 * sum over blocks; the allocator is past every block id; open-block refs point at open blocks of their user.
 *
 * Everything is read from one snapshot (`adminSnapshot`), so verify may run while the store is being written: on
 * LevelDB one instant of the whole database; on Redis each user as of one instant (every check but the
 * allocator's compares state of one user, and commits are atomic per user). The allocator is read last and as of
 * now there, since it is global: ids only grow, so it must be past every block any user's instant holds.
 * LevelDB read failures (a damaged table) are reported as 'storage' problems and the scan resumes after them.
 *
 * Memory: O(blocks) — two numbers per block that live directory entries point into — plus one decoded frame and
 * its directory entries at a time, plus the problems found. Nothing is kept per chunk:
 *   pass 1 walks the directory and counts live entries and their bytes per block;
 *   pass 2 walks the block infos; for each frame it looks up, with one getMany, the directory entries of the
 *     records the frame holds, and counts the entries that point exactly at their record's slot; a block whose
 *     count from pass 1 differs from that has entries pointing at the wrong slots (or at a block that is
 *     released, missing, or has damaged frames);
 *   pass 3 (only when pass 2 found such blocks) walks the directory again and names those entries — including
 *     an entry that resolves but that pass 2's point lookup missed, the mark of a damaged LevelDB filter block.
 */
export async function verifyStore(core: StoreCore, progress?: (done: number) => void): Promise<VerifyReport> {
  const snapshot = adminSnapshot(core.db);
  try {
    return await verifySnapshot(core, snapshot, progress);
  } finally {
    await snapshot.close();
  }
}

async function verifySnapshot(core: StoreCore, snapshot: AbstractSnapshot, progress?: (done: number) => void): Promise<VerifyReport> {
  const problems: Problem[] = [];
  const add: Add = (p) => {
    problems.push(p);
  };
  const storageError = (what: string) => (err: unknown, after: string | null) => {
    add({ kind: 'storage', message: `${what}: read failed${after === null ? '' : ` after key ${JSON.stringify(after)}`}: ${message(err)}` });
  };
  const guard = async (kind: ProblemKind, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      add({ kind: isAkashicError(err) ? kind : 'storage', message: message(err) });
    }
  };
  const cf = core.cf;
  const at = { snapshot };
  await guard('engine-meta', async () => {
    const v = await cf.meta.get(META_ENGINE_KEY, at);
    if (v === undefined) add({ kind: 'engine-meta', message: 'engine meta record is missing' });
    else decodeEngineMeta(v, 'engine meta');
  });

  // Pass 1: the directory, counted per block.
  const perBlock = new Map<number, DirCount>();
  let chunks = 0;
  const indexDigest = new KeySetDigest();
  // Memory: the pending keys, bounded by users × the posting merge's threshold.
  const pending = core.indexReady ? await pendingKeySet(cf.candidates, snapshot) : new Set<string>();
  for await (const [k, v] of resilientEntries(cf.dir, at, storageError('directory'))) {
    const entry = liveEntry(k, v, add);
    if (entry === null) continue;
    chunks++;
    const ids = parseDirKey(k)!;
    const indexed = indexedChunk(ids.userId, ids.sessionId, ids.chunkId, entry)!;
    indexDigest.addChunk(indexed, !pending.has(pendingKey(indexed)));
    const id = entry.location!.blockId;
    const c = perBlock.get(id);
    if (c === undefined) perBlock.set(id, { n: 1, bytes: entry.recordBytes });
    else {
      c.n++;
      c.bytes += entry.recordBytes;
    }
  }

  // Pass 2: every block, one frame at a time.
  const bad = new Map<number, BadBlock>();
  let blocks = 0;
  let frames = 0;
  let records = 0;
  let maxId = 0;
  /** Per user: the byte figures its block infos sum to (its accounting record must say the same). */
  const totals = new Map<string, { live: number; raw: number; stored: number }>();
  for await (const [k, v] of resilientEntries(cf.blockInfo, at, storageError('block infos'))) {
    const parsed = parseBlockInfoKey(k);
    if (parsed === null) {
      add({ kind: 'block-info', message: `malformed block info key ${JSON.stringify(k)}` });
      continue;
    }
    const blockId = parsed.blockId;
    maxId = Math.max(maxId, blockId);
    blocks++;
    progress?.(blocks);
    let info: BlockInfo;
    try {
      info = decodeBlockInfo(v, `block info ${blockKey(blockId)}`);
      if (info.blockId !== blockId || info.userId !== parsed.userId) throw new Error(`block info ${JSON.stringify(k)} holds block ${blockKey(info.blockId)} of user ${JSON.stringify(info.userId)}`);
    } catch (err) {
      add({ kind: 'block-info', message: message(err), blockId });
      // Its chunks are still readable (reads never need block infos): they are not dangling, the info is damaged.
      perBlock.delete(blockId);
      continue;
    }
    const dir = perBlock.get(blockId) ?? { n: 0, bytes: 0 };
    perBlock.delete(blockId); // what is left at the end points at blocks without an info
    const counts = { frames: 0, records: 0 };
    await guard('storage', async () => {
      const b = await checkBlock(core, snapshot, info, dir, add, counts);
      if (b !== null) bad.set(blockId, b);
    });
    frames += counts.frames;
    records += counts.records;
    if (info.state !== 'released') {
      let t = totals.get(info.userId);
      if (t === undefined) totals.set(info.userId, (t = { live: 0, raw: 0, stored: 0 }));
      t.live += info.liveBytes;
      t.raw += info.rawBytes;
      t.stored += info.storedBytes;
    }
  }
  for (const id of perBlock.keys()) bad.set(id, { state: 'no-info', frames: 0, badFrames: new Map() });
  perBlock.clear();

  // Pass 3: name the directory entries that point into the blocks pass 2 found wanting.
  if (bad.size > 0) {
    const frameCache = new Map<string, Buffer[] | null>();
    for await (const [k, v] of resilientEntries(cf.dir, at, () => undefined)) {
      let entry: DirEntry | null;
      try {
        entry = parseDirKey(k) === null ? null : decodeDirEntry(v, k);
      } catch {
        entry = null; // reported by pass 1
      }
      if (entry === null || entry.state !== 'live') continue;
      const b = bad.get(entry.location!.blockId);
      if (b !== undefined) await guard('slot-mismatch', () => nameEntry(core, snapshot, k, entry, b, frameCache, add));
    }
  }

  // The candidate index against the directory (a format-1 database opened read-only has none yet).
  if (core.indexReady) {
    await guard('candidate-index', () => verifyCandidateIndex(cf.candidates, snapshot, indexDigest, (p) => add({ kind: 'candidate-index', ...p })));
  }

  await guard('history', () => verifyExpiryAndHistory(core, snapshot, add, storageError));

  await guard('accounting', async () => {
    // Database format 6: one record per user; the format-5 record an upgrade carried over holds no byte figures.
    const carried = await cf.meta.get(META_ACCOUNTING_KEY, at);
    if (carried !== undefined) {
      const c = decodeAccounting(carried, 'accounting carried over from format 5');
      if (c.liveBytes !== 0 || c.storedRawBytes !== 0 || c.storedBytes !== 0) add({ kind: 'accounting', message: 'the accounting carried over from format 5 still holds byte figures' });
      if (c.modelUsage.length > 0) add({ kind: 'accounting', message: 'the accounting carried over from format 5 holds model usage' });
    }
    const seen = new Set<string>();
    for await (const [k, v] of resilientEntries(cf.alloc, { ...prefixRange('acct'), snapshot }, storageError('accounting'))) {
      const userId = k.slice('acct'.length + 1);
      seen.add(userId);
      const a = decodeAccounting(v, `accounting of ${JSON.stringify(userId)}`);
      const t = totals.get(userId) ?? { live: 0, raw: 0, stored: 0 };
      const cmp = (name: string, stored: number, actual: number): void => {
        if (stored !== actual) add({ kind: 'accounting', message: `accounting.${name} of ${JSON.stringify(userId)} is ${stored}, its blocks sum to ${actual}` });
      };
      cmp('liveBytes', a.liveBytes, t.live);
      cmp('storedRawBytes', a.storedRawBytes, t.raw);
      cmp('storedBytes', a.storedBytes, t.stored);
      const usage = usageRowsProblem(a.modelUsage);
      if (usage !== null) add({ kind: 'accounting', message: `the model usage in the accounting of ${JSON.stringify(userId)}: ${usage}` });
    }
    for (const [userId, t] of totals) {
      if (!seen.has(userId) && (t.live !== 0 || t.raw !== 0 || t.stored !== 0)) add({ kind: 'accounting', message: `the accounting record of ${JSON.stringify(userId)} is missing` });
    }
  });
  await guard('allocator', async () => {
    const v = await cf.alloc.get(ALLOC_NEXT_KEY, hasFrozenPartitions(core.db) ? {} : at);
    const next = v === undefined ? 1 : decodeAllocator(v, 'allocator state');
    if (blocks > 0 && next <= maxId) add({ kind: 'allocator', message: `allocator next id ${next} is not past block ${blockKey(maxId)}` });
  });
  for await (const [k, v] of resilientEntries(cf.alloc, { gte: 'open' + SEP, lt: 'open\u0001', snapshot }, storageError('open-block refs'))) {
    await guard('open-block-ref', async () => {
      const id = decodeOpenBlockRef(v, `open block ref ${JSON.stringify(k)}`);
      const user = k.split(SEP)[1]!;
      const raw = await cf.blockInfo.get(blockInfoKey(user, id), at);
      const info = raw === undefined ? null : decodeBlockInfo(raw, `block info ${blockKey(id)}`);
      if (info === null || info.state !== 'open' || info.userId !== user) {
        add({ kind: 'open-block-ref', message: `${JSON.stringify(k)} points at block ${blockKey(id)}, which is not an open block of that user`, key: k, blockId: id });
      }
    });
  }
  return { ok: problems.length === 0, problems, checked: { blocks, frames, chunks, records } };
}

/** Decodes a directory entry; reports a malformed key or value and returns null for it and for tombstones. */
function liveEntry(k: string, v: Buffer, add: Add): DirEntry | null {
  if (parseDirKey(k) === null) {
    add({ kind: 'directory-entry', message: `malformed directory key ${JSON.stringify(k)}`, key: k });
    return null;
  }
  try {
    const e = decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
    return e.state === 'live' ? e : null;
  } catch (err) {
    add({ kind: 'directory-entry', message: message(err), key: k });
    return null;
  }
}

/**
 * Checks one block against its info and the directory. Returns what pass 3 needs when the directory entries
 * pointing into this block are not exactly the ones its slots match, else null.
 */
async function checkBlock(
  core: StoreCore,
  snapshot: AbstractSnapshot,
  info: BlockInfo,
  dir: DirCount,
  add: Add,
  counts: { frames: number; records: number },
): Promise<BadBlock | null> {
  const blockId = info.blockId;
  const name = `block ${blockKey(blockId)}`;
  const at = { snapshot };
  if (info.state === 'released') {
    for await (const f of core.frames.framesOf(info.userId, blockId, snapshot)) {
      add({ kind: 'released-block-has-frames', message: `released ${name} still has frame ${frameKey(blockId, f)}`, blockId });
    }
    return dir.n > 0 ? { state: 'released', frames: 0, badFrames: new Map() } : null;
  }
  if (dir.n !== info.liveSlots || dir.bytes !== info.liveBytes) {
    add({ kind: 'block-counters', message: `${name} says ${info.liveSlots} live slots / ${info.liveBytes} B; the directory has ${dir.n} / ${dir.bytes} B`, blockId });
  }
  if (info.liveSlots > totalSlots(info)) add({ kind: 'block-counters', message: `${name} has more live slots than slots`, blockId });
  const badFrames = new Map<number, 'missing' | 'damaged'>();
  let matched = 0;
  let raw = 0;
  let stored = 0;
  for (let f = 0; f < info.frameSlots.length; f++) {
    const key = frameKey(blockId, f);
    const [value] = await core.frames.getMany([{ userId: info.userId, blockId, frame: f }], snapshot);
    if (value === undefined) {
      add({ kind: 'block-frame', message: `${name} frame ${f} is missing`, blockId });
      badFrames.set(f, 'missing');
      continue;
    }
    stored += value.length;
    let decoded;
    try {
      decoded = await decodeFrame(value, `block frame ${key}`);
    } catch (err) {
      add({ kind: 'block-frame', message: message(err), blockId });
      badFrames.set(f, 'damaged');
      continue;
    }
    counts.frames++;
    counts.records += decoded.records.length;
    if (decoded.records.length !== info.frameSlots[f]) add({ kind: 'block-counters', message: `${name} frame ${f} holds ${decoded.records.length} records, block info says ${info.frameSlots[f]}`, blockId });
    if (decoded.userId !== info.userId) add({ kind: 'block-mixes-users', message: `${name} frame ${f} belongs to user ${JSON.stringify(decoded.userId)}, block to ${JSON.stringify(info.userId)}`, blockId });
    const ids: ({ key: string; version: number; bytes: number } | null)[] = decoded.records.map((bytes, slot) => {
      raw += bytes.length;
      try {
        const r = decodeChunkRecord(bytes, `${key} slot ${slot}`);
        if (r.userId !== info.userId) add({ kind: 'block-mixes-users', message: `${key} slot ${slot} holds user ${JSON.stringify(r.userId)} in a block of ${JSON.stringify(info.userId)}`, blockId });
        return { key: dirKey(r.userId, r.sessionId, r.chunkId), version: r.version, bytes: bytes.length };
      } catch (err) {
        add({ kind: 'slot-mismatch', message: message(err), blockId });
        return null;
      }
    });
    const wanted = ids.filter((x) => x !== null);
    const values = wanted.length === 0 ? [] : await core.cf.dir.getMany(wanted.map((x) => x.key), at);
    let w = 0;
    ids.forEach((x, slot) => {
      if (x === null) return;
      const v = values[w++];
      if (v === undefined) return;
      let e: DirEntry;
      try {
        e = decodeDirEntry(v, x.key);
      } catch {
        return; // reported by pass 1
      }
      const loc = e.location;
      if (e.state !== 'live' || loc === null || loc.blockId !== blockId || loc.frame !== f || loc.slot !== slot) return; // a dead slot
      matched++;
      if (e.version !== x.version || e.recordBytes !== x.bytes) {
        add({ kind: 'slot-mismatch', message: `${key} slot ${slot} holds v${x.version} (${x.bytes} B); ${JSON.stringify(x.key)} expects v${e.version} (${e.recordBytes} B)`, key: x.key, blockId });
      }
    });
  }
  if (badFrames.size === 0) {
    if (raw !== info.rawBytes) add({ kind: 'block-counters', message: `${name} records total ${raw} B, block info says ${info.rawBytes} B`, blockId });
    if (stored !== info.storedBytes) add({ kind: 'block-counters', message: `${name} frames total ${stored} B, block info says ${info.storedBytes} B`, blockId });
  }
  return matched === dir.n ? null : { state: 'present', frames: info.frameSlots.length, badFrames };
}

/** Pass 3: says why a live entry pointing into a bad block does not resolve (nothing when it does). */
async function nameEntry(
  core: StoreCore,
  snapshot: AbstractSnapshot,
  key: string,
  entry: DirEntry,
  b: BadBlock,
  cache: Map<string, Buffer[] | null>,
  add: Add,
): Promise<void> {
  const { blockId, frame, slot } = entry.location!;
  const name = `block ${blockKey(blockId)}`;
  const dangling = (why: string): void => add({ kind: 'dangling-directory-entry', message: `${JSON.stringify(key)} ${why}`, key, blockId });
  if (b.state === 'no-info') return dangling(`points at ${name}, which does not exist`);
  if (b.state === 'released') return dangling(`points at released ${name}`);
  if (frame >= b.frames) return dangling(`points at frame ${frame} of ${name}, which has ${b.frames}`);
  const fk = frameKey(blockId, frame);
  const badFrame = b.badFrames.get(frame);
  if (badFrame === 'missing') return dangling(`points into missing frame ${fk}`);
  if (badFrame === 'damaged') {
    add({ kind: 'slot-mismatch', message: `${JSON.stringify(key)} lives in damaged frame ${fk}`, key, blockId });
    return;
  }
  let recs = cache.get(fk);
  if (recs === undefined) {
    const [v] = await core.frames.getMany([{ userId: parseDirKey(key)!.userId, blockId, frame }], snapshot);
    recs = v === undefined ? null : (await decodeFrame(v, `block frame ${fk}`)).records;
    // A handful of frames at most: bad blocks are rare and their entries are near each other in key order.
    if (cache.size >= 16) cache.clear();
    cache.set(fk, recs);
  }
  if (recs === null) return dangling(`points into missing frame ${fk}`);
  const bytes = recs[slot];
  if (bytes === undefined) {
    add({ kind: 'slot-mismatch', message: `${JSON.stringify(key)} points at slot ${slot} of ${fk}, which has ${recs.length}`, key, blockId });
    return;
  }
  const r = decodeChunkRecord(bytes, `${fk} slot ${slot}`);
  if (dirKey(r.userId, r.sessionId, r.chunkId) === key) {
    // The entry resolves, yet pass 2 did not match it: either its version differs (reported by pass 2) or the
    // point lookup of pass 2 missed a key this scan sees, which is what a damaged LevelDB filter block does.
    if ((await core.cf.dir.get(key, { snapshot })) === undefined) {
      add({ kind: 'storage', message: `${JSON.stringify(key)} is listed by a scan but a point lookup misses it (damaged LevelDB filter or index block)`, key, blockId });
    }
    return;
  }
  add({ kind: 'slot-mismatch', message: `${fk} slot ${slot} holds ${r.userId}/${r.sessionId}/${r.chunkId} v${r.version}; ${JSON.stringify(key)} expects v${entry.version}`, key, blockId });
}

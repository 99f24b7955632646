import { decodeFrame } from '../block/frame-codec.js';
import { isAkashicError } from '../errors.js';
import { decodeAccounting } from '../record/accounting.js';
import { decodeBlockInfo, totalSlots, type BlockInfo } from '../record/block-info.js';
import { decodeChunkRecord } from '../record/chunk-record.js';
import { decodeDirEntry } from '../record/dir-entry.js';
import { decodeAllocator, decodeEngineMeta, decodeOpenBlockRef } from '../record/engine-records.js';
import { ALLOC_NEXT_KEY, META_ACCOUNTING_KEY, META_ENGINE_KEY, blockKey, frameKey, parseBlockKey, parseDirKey } from './keys.js';
import type { StoreCore } from './store-core.js';

/** Stable problem kinds reported by verify(). */
export type ProblemKind =
  | 'engine-meta'
  | 'accounting'
  | 'allocator'
  | 'block-info'
  | 'block-frame'
  | 'block-counters'
  | 'block-mixes-users'
  | 'released-block-has-frames'
  | 'directory-entry'
  | 'dangling-directory-entry'
  | 'slot-mismatch'
  | 'open-block-ref'
  | 'storage';

export interface Problem {
  readonly kind: ProblemKind;
  readonly message: string;
  readonly blockId?: number;
  readonly key?: string;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly problems: Problem[];
  readonly checked: { blocks: number; frames: number; chunks: number; records: number };
}

interface Expected {
  key: string;
  frame: number;
  slot: number;
  sessionId: string;
  chunkId: string;
  version: number;
  bytes: number;
}

/**
 * Checks every invariant and reports each violation precisely; never throws for damage it finds.
 * Invariants: each live directory entry resolves to a slot of a non-released block holding exactly that record
 * (ids, version, size); block counters match the directory; frames decode with valid checksums and match their
 * block info; no block holds records of two users; released blocks have no frames; accounting totals equal the
 * sum over blocks; the allocator is past every block id; open-block refs point at open blocks of their user.
 *
 * Memory: one entry per live chunk (the expected slots) plus one block's frames at a time.
 */
export async function verifyStore(core: StoreCore, progress?: (done: number) => void): Promise<VerifyReport> {
  const problems: Problem[] = [];
  const add = (p: Problem): void => {
    problems.push(p);
  };
  const guard = async (kind: ProblemKind, extra: Omit<Problem, 'kind' | 'message'>, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      add({ kind: isAkashicError(err) ? kind : 'storage', message: err instanceof Error ? err.message : String(err), ...extra });
    }
  };
  const cf = core.cf;
  await guard('engine-meta', {}, async () => {
    const v = await cf.meta.get(META_ENGINE_KEY);
    if (v === undefined) add({ kind: 'engine-meta', message: 'engine meta record is missing' });
    else decodeEngineMeta(v, 'engine meta');
  });

  // Pass 1: the directory, grouped by block.
  const expected = new Map<number, Expected[]>();
  let chunks = 0;
  await guard('storage', {}, async () => {
    for await (const [k, v] of cf.dir.iterator()) {
      const p = parseDirKey(k);
      if (p === null) {
        add({ kind: 'directory-entry', message: `malformed directory key ${JSON.stringify(k)}`, key: k });
        continue;
      }
      try {
        const e = decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
        if (e.state !== 'live') continue;
        chunks++;
        const loc = e.location!;
        const list = expected.get(loc.blockId) ?? [];
        list.push({ key: k, frame: loc.frame, slot: loc.slot, sessionId: p.sessionId, chunkId: p.chunkId, version: e.version, bytes: e.recordBytes });
        expected.set(loc.blockId, list);
      } catch (err) {
        add({ kind: 'directory-entry', message: (err as Error).message, key: k });
      }
    }
  });

  // Pass 2: every block, one at a time.
  const infos = new Map<number, BlockInfo>();
  let frames = 0;
  let records = 0;
  let maxId = 0;
  const totals = { live: 0, raw: 0, stored: 0 };
  await guard('storage', {}, async () => {
    for await (const [k, v] of cf.blockInfo.iterator()) {
      const blockId = parseBlockKey(k);
      maxId = Math.max(maxId, blockId);
      let info: BlockInfo;
      try {
        info = decodeBlockInfo(v, `block info ${k}`);
      } catch (err) {
        add({ kind: 'block-info', message: (err as Error).message, blockId });
        continue;
      }
      infos.set(blockId, info);
      progress?.(infos.size);
      await checkBlock(core, info, expected.get(blockId) ?? [], add, (n) => {
        frames++;
        records += n;
      });
      if (info.state !== 'released') {
        totals.live += info.liveBytes;
        totals.raw += info.rawBytes;
        totals.stored += info.storedBytes;
      }
    }
  });
  for (const [blockId, list] of expected) {
    const info = infos.get(blockId);
    if (info === undefined) {
      for (const e of list) add({ kind: 'dangling-directory-entry', message: `${JSON.stringify(e.key)} points at block ${blockKey(blockId)}, which does not exist`, key: e.key, blockId });
    }
  }

  await guard('accounting', {}, async () => {
    const v = await cf.meta.get(META_ACCOUNTING_KEY);
    if (v === undefined) {
      if (infos.size > 0) add({ kind: 'accounting', message: 'accounting record is missing' });
      return;
    }
    const a = decodeAccounting(v, 'accounting');
    const cmp = (name: string, stored: number, actual: number): void => {
      if (stored !== actual) add({ kind: 'accounting', message: `accounting.${name} is ${stored}, blocks sum to ${actual}` });
    };
    cmp('liveBytes', a.liveBytes, totals.live);
    cmp('storedRawBytes', a.storedRawBytes, totals.raw);
    cmp('storedBytes', a.storedBytes, totals.stored);
  });
  await guard('allocator', {}, async () => {
    const v = await cf.alloc.get(ALLOC_NEXT_KEY);
    const next = v === undefined ? 1 : decodeAllocator(v, 'allocator state');
    if (infos.size > 0 && next <= maxId) add({ kind: 'allocator', message: `allocator next id ${next} is not past block ${blockKey(maxId)}` });
  });
  await guard('open-block-ref', {}, async () => {
    for await (const [k, v] of cf.alloc.iterator({ gt: 'open', lt: 'open\uffff' })) {
      try {
        const id = decodeOpenBlockRef(v, `open block ref ${JSON.stringify(k)}`);
        const info = infos.get(id);
        const user = k.split('\u0000')[1];
        if (info === undefined || info.state !== 'open' || info.userId !== user) {
          add({ kind: 'open-block-ref', message: `${JSON.stringify(k)} points at block ${blockKey(id)}, which is not an open block of that user`, key: k, blockId: id });
        }
      } catch (err) {
        add({ kind: 'open-block-ref', message: (err as Error).message, key: k });
      }
    }
  });
  return { ok: problems.length === 0, problems, checked: { blocks: infos.size, frames, chunks, records } };
}

async function checkBlock(core: StoreCore, info: BlockInfo, exp: readonly Expected[], add: (p: Problem) => void, counted: (n: number) => void): Promise<void> {
  const blockId = info.blockId;
  const name = `block ${blockKey(blockId)}`;
  if (info.state === 'released') {
    for (const e of exp) add({ kind: 'dangling-directory-entry', message: `${JSON.stringify(e.key)} points at released ${name}`, key: e.key, blockId });
    for await (const k of core.cf.blocks.keys({ gte: blockKey(blockId) + '.', lt: blockKey(blockId) + '/' })) {
      add({ kind: 'released-block-has-frames', message: `released ${name} still has frame ${k}`, blockId });
    }
    return;
  }
  let liveBytes = 0;
  for (const e of exp) liveBytes += e.bytes;
  if (exp.length !== info.liveSlots || liveBytes !== info.liveBytes) {
    add({ kind: 'block-counters', message: `${name} says ${info.liveSlots} live slots / ${info.liveBytes} B; the directory has ${exp.length} / ${liveBytes} B`, blockId });
  }
  if (info.liveSlots > totalSlots(info)) add({ kind: 'block-counters', message: `${name} has more live slots than slots`, blockId });
  const byFrame = new Map<number, Expected[]>();
  for (const e of exp) byFrame.set(e.frame, [...(byFrame.get(e.frame) ?? []), e]);
  let raw = 0;
  let stored = 0;
  for (let f = 0; f < info.frameSlots.length; f++) {
    const key = frameKey(blockId, f);
    const value = await core.cf.blocks.get(key);
    const slotsHere = byFrame.get(f) ?? [];
    if (value === undefined) {
      add({ kind: 'block-frame', message: `${name} frame ${f} is missing`, blockId });
      for (const e of slotsHere) add({ kind: 'dangling-directory-entry', message: `${JSON.stringify(e.key)} points into missing frame ${key}`, key: e.key, blockId });
      continue;
    }
    stored += value.length;
    let decoded;
    try {
      decoded = await decodeFrame(value, `block frame ${key}`);
    } catch (err) {
      add({ kind: 'block-frame', message: (err as Error).message, blockId });
      for (const e of slotsHere) add({ kind: 'slot-mismatch', message: `${JSON.stringify(e.key)} lives in damaged frame ${key}`, key: e.key, blockId });
      continue;
    }
    counted(decoded.records.length);
    if (decoded.records.length !== info.frameSlots[f]) add({ kind: 'block-counters', message: `${name} frame ${f} holds ${decoded.records.length} records, block info says ${info.frameSlots[f]}`, blockId });
    if (decoded.userId !== info.userId) add({ kind: 'block-mixes-users', message: `${name} frame ${f} belongs to user ${JSON.stringify(decoded.userId)}, block to ${JSON.stringify(info.userId)}`, blockId });
    decoded.records.forEach((bytes, slot) => {
      raw += bytes.length;
      try {
        const r = decodeChunkRecord(bytes, `${key} slot ${slot}`);
        if (r.userId !== info.userId) add({ kind: 'block-mixes-users', message: `${key} slot ${slot} holds user ${JSON.stringify(r.userId)} in a block of ${JSON.stringify(info.userId)}`, blockId });
        const e = slotsHere.find((x) => x.slot === slot);
        if (e !== undefined && (r.sessionId !== e.sessionId || r.chunkId !== e.chunkId || r.version !== e.version || bytes.length !== e.bytes)) {
          add({ kind: 'slot-mismatch', message: `${key} slot ${slot} holds ${r.sessionId}/${r.chunkId} v${r.version}; ${JSON.stringify(e.key)} expects v${e.version}`, key: e.key, blockId });
        }
      } catch (err) {
        add({ kind: 'slot-mismatch', message: (err as Error).message, blockId });
      }
    });
    for (const e of slotsHere) {
      if (e.slot >= decoded.records.length) add({ kind: 'slot-mismatch', message: `${JSON.stringify(e.key)} points at slot ${e.slot} of ${key}, which has ${decoded.records.length}`, key: e.key, blockId });
    }
  }
  if (raw !== info.rawBytes) add({ kind: 'block-counters', message: `${name} records total ${raw} B, block info says ${info.rawBytes} B`, blockId });
  if (stored !== info.storedBytes) add({ kind: 'block-counters', message: `${name} frames total ${stored} B, block info says ${info.storedBytes} B`, blockId });
  for (const e of exp) {
    if (e.frame >= info.frameSlots.length) add({ kind: 'dangling-directory-entry', message: `${JSON.stringify(e.key)} points at frame ${e.frame} of ${name}, which has ${info.frameSlots.length}`, key: e.key, blockId });
  }
}

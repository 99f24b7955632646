import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AkashicStore } from '../engine/akashic-store.js';
import { AkashicError } from '../errors.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import { activeTurnLog } from '../engine/internal-seams.js';
import { chunkOrderKey, lineType, namespaceOrderKey, parseChunkLine, parseHeaderLine, parseTurnLine, parseVersionLine, type DumpedTurn, type DumpHeader } from './dump-format.js';
import type { RestoredVersion } from '../api/results.js';

/** One rejected line of a dump file. */
export interface LoadProblem {
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
}

export interface DumpValidation {
  readonly ok: boolean;
  /** The first `maxProblems` problems, in line order. */
  readonly problems: LoadProblem[];
  /** All problems found, including those not kept. */
  readonly problemCount: number;
  readonly header: DumpHeader | null;
  /** Chunk lines that passed. */
  readonly chunks: number;
  /** Version lines that passed. */
  readonly versions: number;
  /** Turn lines that passed. */
  readonly turns: number;
  readonly lines: number;
}

export interface ValidateOptions {
  /** Problems kept in the result (all are counted). Default 1000. */
  readonly maxProblems?: number;
}

async function* numberedLines(path: string): AsyncGenerator<{ n: number; text: string }> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const text of rl) {
      n++;
      yield { n, text };
    }
  } finally {
    rl.close();
  }
}

/**
 * Validates every line of a dump file without touching any database: the header (first non-blank line), then
 * each chunk line (JSON, required and unknown fields, types, ids, base64, engine limits), strict key order
 * (which also rules out duplicates, with memory bounded by one line), the header's filter, and the header's
 * chunk count (a truncated file fails). Blank lines are ignored.
 */
export async function validateDumpFile(path: string, opts: ValidateOptions = {}): Promise<DumpValidation> {
  const maxProblems = opts.maxProblems ?? 1000;
  const problems: LoadProblem[] = [];
  let problemCount = 0;
  const bad = (line: number, reason: string): void => {
    problemCount++;
    if (problems.length < maxProblems) problems.push({ line, reason });
  };
  let header: DumpHeader | null = null;
  let headerLineNo = 0;
  let sawHeader = false;
  let chunks = 0;
  let chunkLines = 0;
  let turns = 0;
  let turnLines = 0;
  let lines = 0;
  let versions = 0;
  let versionLines = 0;
  let prev: Buffer | null = null;
  // The chunk whose lines are being read: its chunk line (live version) if any, its last version line.
  let group: { hasChunk: boolean; live: number; last: number; lastCause: string | null; lastLine: number } | null = null;
  const closeGroup = (): void => {
    if (group !== null && !group.hasChunk && group.last > 0 && group.lastCause !== 'delete') {
      bad(group.lastLine, 'the version lines of a chunk without a chunk line (a deleted chunk) must end with its deletion (cause "delete")');
    }
    group = null;
  };
  // `scope` null: not checked (a version line goes with its chunk, whose scope is its current or last version's).
  const outsideFilter = (userId: string, sessionId: string, scope: { agentId?: string; runId?: string } | null): boolean =>
    header !== null &&
    ((header.user !== null && userId !== header.user) ||
      (header.session !== null && sessionId !== header.session) ||
      (scope !== null && header.agent !== null && scope.agentId !== header.agent) ||
      (scope !== null && header.run !== null && scope.runId !== header.run));
  // Turn lines: the current namespace and the turn ids seen in it (one active chunk's worth).
  let prevNs: Buffer | null = null;
  let nsTurnIds = new Set<string>();
  for await (const { n, text } of numberedLines(path)) {
    lines = n;
    if (text.trim() === '') continue;
    if (!sawHeader) {
      sawHeader = true;
      headerLineNo = n;
      try {
        header = parseHeaderLine(text);
      } catch (err) {
        bad(n, reasonOf(err));
      }
      continue;
    }
    const type = lineType(text);
    if (turnLines === 0 && type === 'version') {
      versionLines++;
      let v: RestoredVersion;
      try {
        v = parseVersionLine(text);
      } catch (err) {
        bad(n, reasonOf(err));
        continue;
      }
      const r = v.record;
      const key = chunkOrderKey(r);
      const order = prev === null ? 1 : Buffer.compare(key, prev);
      if (header !== null && header.format < 3) bad(n, `a version line in a format-${header.format} dump`);
      else if (order < 0) bad(n, 'out of order: version lines follow their chunk (or each other) in (userId, sessionId, chunkId) order, as dump writes them');
      else if (order === 0 && group !== null && r.version <= group.last) bad(n, `version ${r.version} of ${r.userId}/${r.sessionId}/${r.chunkId} after version ${group.last}: versions go oldest first, each once`);
      else if (order === 0 && group !== null && group.hasChunk && r.version >= group.live) bad(n, `version ${r.version} of ${r.userId}/${r.sessionId}/${r.chunkId} is not older than its live version ${group.live}`);
      else if (outsideFilter(r.userId, r.sessionId, null)) bad(n, `version of ${r.userId}/${r.sessionId} is outside the header's filter`);
      else versions++;
      if (order > 0) {
        closeGroup();
        group = { hasChunk: false, live: 0, last: 0, lastCause: null, lastLine: n };
        prev = key;
      }
      if (group !== null && order >= 0) {
        group.last = Math.max(group.last, r.version);
        group.lastCause = v.cause;
        group.lastLine = n;
      }
      continue;
    }
    if (turnLines > 0 || type === 'turn') {
      if (turnLines === 0) closeGroup();
      turnLines++;
      let t: DumpedTurn;
      try {
        t = parseTurnLine(text);
      } catch (err) {
        bad(n, reasonOf(err));
        continue;
      }
      const ns = namespaceOrderKey(t);
      const order = prevNs === null ? 1 : Buffer.compare(ns, prevNs);
      if (order > 0) nsTurnIds = new Set();
      if (header !== null && header.format === 1) bad(n, 'a turn line in a format-1 dump');
      else if (order < 0) bad(n, 'out of order: turn lines must be grouped by (userId, sessionId) in key order, as dump writes them');
      else if (nsTurnIds.has(t.turnId)) bad(n, `duplicate turn ${t.userId}/${t.sessionId}/${t.turnId}`);
      else if (outsideFilter(t.userId, t.sessionId, t)) {
        bad(n, `turn of ${t.userId}/${t.sessionId} is outside the header's filter`);
      } else {
        turns++;
      }
      nsTurnIds.add(t.turnId);
      if (order > 0) prevNs = ns;
      continue;
    }
    chunkLines++;
    let r: ChunkRecord;
    try {
      r = parseChunkLine(text);
    } catch (err) {
      bad(n, reasonOf(err));
      continue;
    }
    const key = chunkOrderKey(r);
    closeGroup();
    if (prev !== null && Buffer.compare(prev, key) >= 0) {
      bad(n, Buffer.compare(prev, key) === 0 ? `duplicate chunk ${r.userId}/${r.sessionId}/${r.chunkId}` : 'out of order: chunk lines must be sorted by (userId, sessionId, chunkId) as dump writes them');
    } else if (outsideFilter(r.userId, r.sessionId, r)) {
      bad(n, `chunk ${r.userId}/${r.sessionId} is outside the header's filter`);
    } else {
      chunks++;
    }
    group = { hasChunk: true, live: r.version, last: 0, lastCause: null, lastLine: n };
    prev = key;
  }
  closeGroup();
  if (!sawHeader) bad(1, 'empty file: expected a header line');
  else if (header !== null && header.chunks !== chunkLines) {
    bad(headerLineNo, `header says ${header.chunks} chunks, the file has ${chunkLines} chunk lines (truncated or edited?)`);
  } else if (header !== null && header.versions !== versionLines) {
    bad(headerLineNo, `header says ${header.versions} versions, the file has ${versionLines} version lines (truncated or edited?)`);
  } else if (header !== null && header.turns !== turnLines) {
    bad(headerLineNo, `header says ${header.turns} turns, the file has ${turnLines} turn lines (truncated or edited?)`);
  }
  problems.sort((a, b) => a.line - b.line);
  return { ok: problemCount === 0, problems, problemCount, header, chunks, versions, turns, lines };
}

function reasonOf(err: unknown): string {
  if (err instanceof AkashicError) return err.message;
  throw err;
}

export interface ApplyOptions {
  /** Records per restore call (one atomic batch, one user). Default 64. */
  readonly batchSize?: number;
  /** A batch is also cut once its text and payload reach this many bytes. Default 8 MiB. */
  readonly batchBytes?: number;
  /** Called after each batch with chunk lines applied so far. */
  readonly onProgress?: (done: number) => void;
}

export interface LoadResult {
  readonly chunks: number;
  /** Records written. */
  readonly restored: number;
  /** Records whose version (or a newer one) was already stored: unchanged. */
  readonly skipped: number;
  readonly batches: number;
  /** Version lines applied through `restoreHistory` (a version history already kept is left as it is). */
  readonly versions: number;
  /** Active turns appended to their namespace's active chunk. */
  readonly turns: number;
  /** Active turns whose id the namespace's active chunk already held (a load run again): unchanged. */
  readonly turnsSkipped: number;
}

/**
 * Restores the chunk lines of a dump file that `validateDumpFile` accepted, in batches of one user's records
 * through `store.restore`, then appends its turn lines to their namespaces' active chunks (a turn whose id the
 * active chunk already holds is skipped). Each batch is atomic, and both steps are idempotent, so a load that
 * stops half way (crash, I/O error) is finished by running it again.
 *
 * Requires: the file passed validation and has not changed since (a line that fails now throws mid-load).
 */
export async function applyDumpFile(store: AkashicStore, path: string, opts: ApplyOptions = {}): Promise<LoadResult> {
  const batchSize = opts.batchSize ?? 64;
  const batchBytes = opts.batchBytes ?? 8 * 1024 * 1024;
  let batch: ChunkRecord[] = [];
  let bytes = 0;
  let user = '';
  const totals = { chunks: 0, restored: 0, skipped: 0, batches: 0, versions: 0, turns: 0, turnsSkipped: 0 };
  let versions: RestoredVersion[] = [];
  const log = store[activeTurnLog];
  let turns: DumpedTurn[] = [];
  let held: Set<string> | null = null;
  const flushTurns = async (): Promise<void> => {
    if (turns.length === 0) return;
    const { userId, sessionId } = turns[0]!;
    held ??= new Set((await log.read(userId, sessionId)).map((t) => t.turnId));
    const fresh = turns.filter((t) => !held!.has(t.turnId));
    totals.turnsSkipped += turns.length - fresh.length;
    if (fresh.length > 0) {
      await log.append(userId, sessionId, fresh.map(({ userId: _u, sessionId: _s, ...turn }) => turn));
      for (const t of fresh) held.add(t.turnId);
    }
    totals.turns += fresh.length;
    turns = [];
  };
  // Records first, then versions: a version restored where no directory entry exists may bring a tombstone back,
  // which must not happen for a chunk whose live record is in the same batch.
  const flush = async (): Promise<void> => {
    if (batch.length === 0 && versions.length === 0) return;
    if (batch.length > 0) {
      const results = await store.restore(user, batch);
      for (const r of results) {
        if (r.skipped === true) totals.skipped++;
        else totals.restored++;
      }
    }
    if (versions.length > 0) await store.restoreHistory(user, versions);
    totals.chunks += batch.length;
    totals.versions += versions.length;
    totals.batches++;
    batch = [];
    versions = [];
    bytes = 0;
    opts.onProgress?.(totals.chunks);
  };
  let first = true;
  for await (const { text } of numberedLines(path)) {
    if (text.trim() === '') continue;
    if (first) {
      first = false;
      continue;
    }
    if (lineType(text) === 'turn') {
      await flush();
      const t = parseTurnLine(text);
      const prev = turns[0];
      if (prev !== undefined && (prev.userId !== t.userId || prev.sessionId !== t.sessionId)) {
        await flushTurns();
        held = null;
      }
      turns.push(t);
      if (turns.length >= batchSize) await flushTurns();
      continue;
    }
    const v = lineType(text) === 'version' ? parseVersionLine(text) : null;
    const r = v === null ? parseChunkLine(text) : v.record;
    if (r.userId !== user) {
      await flush();
      user = r.userId;
    }
    if (v === null) batch.push(r);
    else versions.push(v);
    bytes += r.text.length + (r.payload?.length ?? 0);
    if (batch.length + versions.length >= batchSize || bytes >= batchBytes) await flush();
  }
  await flush();
  await flushTurns();
  return totals;
}

export interface LoadOutcome {
  readonly validation: DumpValidation;
  /** Null when validation failed: then no database was opened and nothing was applied. */
  readonly result: LoadResult | null;
}

/**
 * Loads a dump file in two passes: validates every line, and only when all pass opens the target (through
 * `openTarget`, so a bad file never even creates or locks the database) and applies it. The store
 * `openTarget` returns is closed before this returns.
 *
 * @example
 *   const { validation, result } = await loadDump('dump.jsonl', () => openStoreForTool('./memory', { create: true }));
 */
export async function loadDump(
  path: string,
  openTarget: () => Promise<AkashicStore>,
  opts: ValidateOptions & ApplyOptions & { readonly onValidated?: (v: DumpValidation) => void } = {},
): Promise<LoadOutcome> {
  const validation = await validateDumpFile(path, opts);
  opts.onValidated?.(validation);
  if (!validation.ok) return { validation, result: null };
  const store = await openTarget();
  try {
    return { validation, result: await applyDumpFile(store, path, opts) };
  } finally {
    await store.close();
  }
}

/**
 * Copies a stream (stdin) to a file in a fresh temporary directory, so a load can read its input twice
 * (validate everything, then apply). Call `cleanup` when done.
 */
export async function spoolToTempFile(input: Readable): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'akashic-load-'));
  const path = join(dir, 'input.jsonl');
  const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(input, createWriteStream(path));
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { path, cleanup };
}

import type { AkashicStore } from '../engine/akashic-store.js';
import { readOnlyScans, type ListedEntry, type SnapshotView } from '../engine/internal-seams.js';
import { corruption } from '../errors.js';
import { checkId } from '../api/ids.js';
import { chunkLine, headerLine, turnLine, versionLine, type DumpedTurn } from './dump-format.js';
import type { RestoredVersion } from '../api/results.js';
import { compileScope, type ScopeTest } from '../api/scope-filter.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

export interface DumpOptions {
  /** Only this user's chunks. */
  readonly userId?: string;
  /** Only the given session's chunks (of every user, or of `userId`). */
  readonly sessionId?: string;
  /** Only chunks (and active turns) of this agent. */
  readonly agentId?: string;
  /** Only chunks (and active turns) of this run. */
  readonly runId?: string;
  /** Chunks whose bodies are fetched together (one read per page). Bounds memory. Default 256. */
  readonly pageSize?: number;
  /** Called after each page with chunks written so far and the total in scope. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface DumpResult {
  /** Chunk lines (live chunks). */
  readonly chunks: number;
  /** Version lines (superseded versions kept by history). */
  readonly versions: number;
  /** Active turns (MemAttention's turns not compacted yet) written after the chunks. */
  readonly turns: number;
}

/**
 * Live directory entries in scope, in key order, from one snapshot view. Holds one entry at a time.
 * @internal
 */
export async function* liveEntries(view: SnapshotView, userId: string | null, sessionId: string | null): AsyncGenerator<ListedEntry> {
  for await (const e of view.entries(userId, sessionId)) if (e.entry.state === 'live') yield e;
}

/** What the dump holds of one directory entry: its record when live, and its kept versions. */
interface DumpedChunk {
  readonly entry: ListedEntry;
  readonly versions: readonly RestoredVersion[];
}

/**
 * The entries in scope (live ones, and deleted ones whose kept history ends with their deletion), in key order,
 * each with its kept versions, oldest first. A tombstone without such history is not dumped: there is nothing of
 * it to restore.
 */
async function* chunksInScope(view: SnapshotView, userId: string | null, sessionId: string | null, scope: ScopeTest): AsyncGenerator<DumpedChunk> {
  for await (const e of view.entries(userId, sessionId)) {
    if (scope !== null && !scope(e.entry)) continue;
    const versions = await view.keptVersions(e);
    if (dumped(e, versions.at(-1)?.cause ?? null)) yield { entry: e, versions };
  }
}

/** Whether an entry in scope is dumped: live, or deleted with kept history that ends with its deletion. */
function dumped(e: ListedEntry, newestCause: RestoredVersion['cause'] | null): boolean {
  return e.entry.state === 'live' || newestCause === 'delete';
}

/** What `chunksInScope` would yield, counted from directory entries and history values only (no body is read). */
async function countInScope(view: SnapshotView, userId: string | null, sessionId: string | null, scope: ScopeTest): Promise<{ chunks: number; versions: number }> {
  let chunks = 0;
  let versions = 0;
  for await (const e of view.entries(userId, sessionId)) {
    if (scope !== null && !scope(e.entry)) continue;
    const marks = await view.keptVersionMarks(e);
    if (e.entry.state === 'live') chunks++;
    if (dumped(e, marks.newestCause)) versions += marks.count;
  }
  return { chunks, versions };
}

/** The active turns of the snapshot in scope, in key order (namespace, then arrival). */
async function* turnsInScope(view: SnapshotView, userId: string | null, sessionId: string | null, scope: ScopeTest): AsyncGenerator<DumpedTurn> {
  for await (const t of view.activeTurns()) {
    if ((userId === null || t.userId === userId) && (sessionId === null || t.sessionId === sessionId) && (scope === null || scope(t))) {
      yield {
        userId: t.userId,
        sessionId: t.sessionId,
        turnId: t.turnId,
        role: t.role,
        text: t.text,
        at: t.at,
        tokenCount: t.tokenCount,
        ...(t.agentId === undefined ? {} : { agentId: t.agentId }),
        ...(t.runId === undefined ? {} : { runId: t.runId }),
      };
    }
  }
}

/**
 * Writes a logical dump (see dump-format.ts) of the chunks in scope (live ones with their kept versions, deleted
 * ones' kept versions) and active turns to `sink`, all read from ONE explicit LevelDB snapshot, so the dump is
 * consistent even while another handle of this process writes, relocates or collects garbage. Memory is bounded by
 * one page of records and their kept versions plus the store's frame cache: the directory is walked in pages and
 * each page's bodies are fetched together from the same snapshot.
 *
 * The directory is walked twice so the header can state the counts: the first walk reads directory entries and
 * history values only, no chunk or version body.
 *
 * @example
 *   await dumpStore(store, process.stdout, { userId: 'alice', agentId: 'planner' });
 */
export async function dumpStore(store: AkashicStore, sink: LineSink, opts: DumpOptions = {}): Promise<DumpResult> {
  const userId = opts.userId === undefined ? null : checkId(opts.userId, 'userId');
  const sessionId = opts.sessionId === undefined ? null : checkId(opts.sessionId, 'sessionId');
  const agentId = opts.agentId === undefined ? null : checkId(opts.agentId, 'agentId');
  const runId = opts.runId === undefined ? null : checkId(opts.runId, 'runId');
  const scope = compileScope({ ...(agentId === null ? {} : { agentId }), ...(runId === null ? {} : { runId }) }, 'dump');
  const pageSize = opts.pageSize ?? 256;
  const scans = store[readOnlyScans];
  const out = lineWriter(sink);
  const view = scans.snapshot();
  try {
    const { chunks: total, versions } = await countInScope(view, userId, sessionId, scope);
    let turns = 0;
    for await (const _ of turnsInScope(view, userId, sessionId, scope)) turns++;
    await out.line(headerLine({ engineVersion: scans.meta.engineVersion, user: userId, session: sessionId, agent: agentId, run: runId, chunks: total, versions, turns }));
    opts.onProgress?.(0, total);
    let done = 0;
    let versionsDone = 0;
    let page: DumpedChunk[] = [];
    let pageVersions = 0;
    const flush = async (): Promise<void> => {
      const live = page.filter((c) => c.entry.entry.state === 'live');
      const records = await view.records(live.map((c) => c.entry));
      let k = 0;
      for (const c of page) {
        if (c.entry.entry.state === 'live') await out.line(chunkLine(records[k++]!));
        for (const v of c.versions) await out.line(versionLine(v));
        versionsDone += c.versions.length;
      }
      done += live.length;
      page = [];
      pageVersions = 0;
      opts.onProgress?.(done, total);
    };
    for await (const c of chunksInScope(view, userId, sessionId, scope)) {
      page.push(c);
      pageVersions += c.versions.length;
      if (page.length >= pageSize || pageVersions >= pageSize) await flush();
    }
    if (page.length > 0) await flush();
    if (done !== total || versionsDone !== versions) {
      throw corruption(`the snapshot listed ${total} live chunks and ${versions} versions on the first walk, ${done} and ${versionsDone} on the second`);
    }
    let turnsDone = 0;
    for await (const t of turnsInScope(view, userId, sessionId, scope)) {
      await out.line(turnLine(t));
      turnsDone++;
    }
    if (turnsDone !== turns) throw corruption(`the snapshot listed ${turns} active turns on the first walk and ${turnsDone} on the second`);
    return { chunks: done, versions, turns };
  } finally {
    await view.close();
  }
}

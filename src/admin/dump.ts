import type { AkashicStore } from '../engine/akashic-store.js';
import { readOnlyScans, type ListedEntry, type SnapshotView } from '../engine/internal-seams.js';
import { corruption } from '../errors.js';
import { checkId } from '../store/ids.js';
import { chunkLine, headerLine, turnLine, type DumpedTurn } from './dump-format.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

export interface DumpOptions {
  /** Only this user's chunks. */
  readonly userId?: string;
  /** Only this session's chunks (of every user, or of `userId`). */
  readonly sessionId?: string;
  /** Chunks whose bodies are fetched together (one read per page). Bounds memory. Default 256. */
  readonly pageSize?: number;
  /** Called after each page with chunks written so far and the total in scope. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface DumpResult {
  readonly chunks: number;
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

/** The active turns of the snapshot in scope, in key order (namespace, then arrival). */
async function* turnsInScope(view: SnapshotView, userId: string | null, sessionId: string | null): AsyncGenerator<DumpedTurn> {
  for await (const t of view.activeTurns()) {
    if ((userId === null || t.userId === userId) && (sessionId === null || t.sessionId === sessionId)) {
      yield { userId: t.userId, sessionId: t.sessionId, turnId: t.turnId, role: t.role, text: t.text, at: t.at, tokenCount: t.tokenCount };
    }
  }
}

/**
 * Writes a logical dump (see dump-format.ts) of the live chunks and active turns in scope to `sink`, all read from ONE explicit
 * LevelDB snapshot, so the dump is consistent even while another handle of this process writes, relocates or
 * collects garbage. Memory is bounded by one page of records plus the store's frame cache: the directory is
 * walked in pages and each page's bodies are fetched together from the same snapshot.
 *
 * The directory is walked twice (bodies are not read in the first walk) so the header can state the count.
 *
 * @example
 *   await dumpStore(store, process.stdout, { userId: 'alice' });
 */
export async function dumpStore(store: AkashicStore, sink: LineSink, opts: DumpOptions = {}): Promise<DumpResult> {
  const userId = opts.userId === undefined ? null : checkId(opts.userId, 'userId');
  const sessionId = opts.sessionId === undefined ? null : checkId(opts.sessionId, 'sessionId');
  const pageSize = opts.pageSize ?? 256;
  const scans = store[readOnlyScans];
  const out = lineWriter(sink);
  const view = scans.snapshot();
  try {
    let total = 0;
    for await (const _ of liveEntries(view, userId, sessionId)) total++;
    let turns = 0;
    for await (const _ of turnsInScope(view, userId, sessionId)) turns++;
    await out.line(headerLine({ engineVersion: scans.meta.engineVersion, user: userId, session: sessionId, chunks: total, turns }));
    opts.onProgress?.(0, total);
    let done = 0;
    let page: ListedEntry[] = [];
    const flush = async (): Promise<void> => {
      for (const record of await view.records(page)) await out.line(chunkLine(record));
      done += page.length;
      page = [];
      opts.onProgress?.(done, total);
    };
    for await (const e of liveEntries(view, userId, sessionId)) {
      page.push(e);
      if (page.length >= pageSize) await flush();
    }
    if (page.length > 0) await flush();
    if (done !== total) throw corruption(`the snapshot listed ${total} live chunks on the first walk and ${done} on the second`);
    let turnsDone = 0;
    for await (const t of turnsInScope(view, userId, sessionId)) {
      await out.line(turnLine(t));
      turnsDone++;
    }
    if (turnsDone !== turns) throw corruption(`the snapshot listed ${turns} active turns on the first walk and ${turnsDone} on the second`);
    return { chunks: done, turns };
  } finally {
    await view.close();
  }
}

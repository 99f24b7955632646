import type { AbstractSnapshot } from 'abstract-level';
import type { AkashicStore } from '../engine/akashic-store.js';
import { corruption } from '../errors.js';
import { decodeDirEntry, type DirEntry } from '../record/dir-entry.js';
import { readSlots } from '../store/block-reader.js';
import { checkId } from '../store/ids.js';
import { parseDirKey, prefixRange } from '../store/keys.js';
import type { StoreCore } from '../store/store-core.js';
import { chunkLine, headerLine } from './dump-format.js';
import { lineWriter, type LineSink } from './line-sink.js';

export interface DumpOptions {
  /** Only this user's chunks. */
  readonly userId?: string;
  /** Only this session's chunks (of every user, or of `userId`). */
  readonly sessionId?: string;
  /** Chunks whose bodies are fetched together (one readSlots per page). Bounds memory. Default 256. */
  readonly pageSize?: number;
  /** Called after each page with chunks written so far and the total in scope. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface DumpResult {
  readonly chunks: number;
}

interface LiveEntry {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly entry: DirEntry;
}

/**
 * Live directory entries in scope, in key order, read from `snapshot`. Holds one entry at a time.
 * @internal
 */
export async function* liveEntries(core: StoreCore, snapshot: AbstractSnapshot, userId: string | null, sessionId: string | null): AsyncGenerator<LiveEntry> {
  const range = userId === null ? {} : sessionId === null ? prefixRange(userId) : prefixRange(userId, sessionId);
  for await (const [k, v] of core.cf.dir.iterator({ ...range, snapshot })) {
    const p = parseDirKey(k);
    if (p === null) throw corruption(`malformed directory key ${JSON.stringify(k)}`);
    if (sessionId !== null && p.sessionId !== sessionId) continue;
    const entry = decodeDirEntry(v, `directory entry ${JSON.stringify(k)}`);
    if (entry.state === 'live') yield { ...p, entry };
  }
}

/**
 * Writes a logical dump (see dump-format.ts) of the live chunks in scope to `sink`, all read from ONE explicit
 * LevelDB snapshot, so the dump is consistent even while another handle of this process writes, relocates or
 * collects garbage. Memory is bounded by one page of records plus the store's frame cache: the directory is
 * walked in pages and each page's bodies are fetched with one readSlots under the same snapshot.
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
  const core = store.core;
  const out = lineWriter(sink);
  const snapshot = core.db.snapshot();
  try {
    let total = 0;
    for await (const _ of liveEntries(core, snapshot, userId, sessionId)) total++;
    await out.line(headerLine({ engineVersion: core.meta.engineVersion, user: userId, session: sessionId, chunks: total }));
    opts.onProgress?.(0, total);
    let done = 0;
    let page: LiveEntry[] = [];
    const flush = async (): Promise<void> => {
      const slots = await readSlots(core.cf.blocks, core.cache, page.map((e) => e.entry.location!), snapshot);
      for (let i = 0; i < page.length; i++) {
        const e = page[i]!;
        await out.line(chunkLine(core.checkRecord(slots.records[i]!, e.entry, e.userId, e.sessionId, e.chunkId)));
      }
      done += page.length;
      page = [];
      opts.onProgress?.(done, total);
    };
    for await (const e of liveEntries(core, snapshot, userId, sessionId)) {
      page.push(e);
      if (page.length >= pageSize) await flush();
    }
    if (page.length > 0) await flush();
    if (done !== total) throw corruption(`the snapshot listed ${total} live chunks on the first walk and ${done} on the second`);
    return { chunks: done };
  } finally {
    await snapshot.close();
  }
}

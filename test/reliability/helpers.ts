/** Shared fixtures of the reliability suites: seeded stores and a full logical snapshot of a store. */
import type { AkashicStore, ChunkRecord, StoreStats } from '../../src/index.js';
import { readOnlyScans } from '../../src/engine/internal-seams.js';
import { text } from '../support/backends.js';

export interface Seeded {
  readonly userId: string;
  readonly sessionId: string;
  readonly chunkId: string;
  readonly text: string;
}

/** Puts `perUser` chunks for each user over two sessions, in multi-op writes of `batch`; returns them in order. */
export async function seedStore(store: AkashicStore, users: readonly string[], perUser: number, batch = 1): Promise<Seeded[]> {
  const out: Seeded[] = [];
  for (const userId of users) {
    for (let i = 0; i < perUser; i += batch) {
      const n = Math.min(batch, perUser - i);
      const ops = Array.from({ length: n }, (_, j) => ({ op: 'put' as const, sessionId: `s${(i + j) % 2}`, text: `${userId} #${i + j} ${text(i + j, 12)}`, keywords: [`k${(i + j) % 3}`] }));
      const rs = await store.write(userId, ops);
      rs.forEach((r, j) => out.push({ userId, sessionId: r.sessionId, chunkId: r.chunkId, text: ops[j]!.text }));
    }
  }
  return out;
}

/** Everything a caller can observe: stats (minus disk size) and every chunk of every user, deleted ones included. */
export interface StoreSnapshot {
  readonly stats: Omit<StoreStats, 'diskBytes'>;
  readonly chunks: { readonly key: string; readonly state: string; readonly version: number; readonly record: ChunkRecord | null }[];
  readonly activeTurns: number;
}

export async function snapshotStore(store: AkashicStore): Promise<StoreSnapshot> {
  const { diskBytes: _disk, ...stats } = await store.stats();
  const chunks: StoreSnapshot['chunks'][number][] = [];
  for (const userId of await store.users()) {
    const entries = [];
    for await (const e of store.list(userId, { includeDeleted: true })) entries.push(e);
    const live = entries.filter((e) => e.entry.state === 'live');
    const read = await store.getMany(userId, live.map((e) => ({ sessionId: e.sessionId, chunkId: e.chunkId })));
    let i = 0;
    for (const e of entries) {
      const record = e.entry.state === 'live' ? (read.chunks[i++] ?? null) : null;
      chunks.push({ key: `${userId}/${e.sessionId}/${e.chunkId}`, state: e.entry.state, version: e.entry.version, record });
    }
  }
  let activeTurns = 0;
  const view = store[readOnlyScans].snapshot();
  try {
    for await (const _ of view.activeTurns()) activeTurns++;
  } finally {
    await view.close();
  }
  // Reads bump the retrieval counters; a snapshot must not count its own reads.
  return { stats: { ...stats, retrievals: 0, blocksPerRetrieval: null }, chunks, activeTurns };
}

/** A copy of `buf` with the byte at `at` (or the middle) flipped. */
export function flipped(buf: Uint8Array, at = Math.floor(buf.length / 2)): Buffer {
  const out = Buffer.from(buf);
  out[at] = out[at]! ^ 0x40;
  return out;
}

/**
 * The oracle of the multi-process full-API test: from the processes' logs of acknowledged operations and the
 * store's final state, the list of everything that disagrees.
 *
 * Time: every entry carries `t0` (before the call) and `t1` (its acknowledgement), from one machine's clock. An
 * operation on a user is REMOVED when a purge of that user started after it was acknowledged (its effects must be
 * gone), UNCERTAIN when a purge of the user overlapped it and none started after it (either outcome is right), and
 * KEPT otherwise (its effects must be there).
 *
 * Turns: every turn found anywhere was issued (acknowledged, or failed and so maybe landed); every turn is in at
 * most one place — one active turn, or the provenance of one live chunk, of its own session — so no two live
 * chunks come from the same turn (the definition of a duplicate chunk here) and no compaction is half applied (a
 * turn both compacted and still active, or a chunk naming a turn its text does not hold); every kept acknowledged
 * turn is found; no removed one is; a turn acknowledged before an acknowledged endSession of its session started is
 * no longer active.
 *
 * Notes (store-level chunks): no two acknowledged updates of a chunk returned the same version (a lost update);
 * a chunk with a kept acknowledged delete is gone; otherwise its live version is at least the newest acknowledged
 * one, and its text is the text acknowledged with that version (or that of a failed update that may have landed);
 * a chunk a removed operation touched is gone; every live note was written by some put or update.
 */
import type { AkashicStore } from '../../src/index.js';
import { activeTurnLog } from '../../src/engine/internal-seams.js';

export interface LogEntry {
  readonly p: number;
  readonly k: string;
  readonly user: string;
  readonly session?: string;
  readonly t0: number;
  readonly t1: number;
  readonly turnId?: string;
  readonly role?: string;
  readonly text?: string;
  readonly chunkId?: string;
  readonly version?: number;
  readonly expectVersion?: number;
  readonly foreign?: number;
  readonly code?: string;
  readonly tried?: Partial<LogEntry>;
  readonly counts?: Record<string, number>;
  readonly backgroundErrors?: number;
  readonly conflictsRetried?: number;
}

export interface FinalState {
  /** Active turns per `user/session`. */
  readonly active: { readonly ns: string; readonly turnId: string; readonly role: string; readonly text: string }[];
  /** Live chunks of every session. */
  readonly chunks: { readonly ns: string; readonly session: string; readonly chunkId: string; readonly kind: string; readonly text: string; readonly version: number; readonly provenance: readonly string[] }[];
}

export const NOTES_SESSION = 'notes';

/** The final state of `users`, from a store opened on the deployment. */
export async function readFinalState(store: AkashicStore, users: readonly string[], turnSessions: readonly string[]): Promise<FinalState> {
  const active: FinalState['active'][number][] = [];
  const chunks: FinalState['chunks'][number][] = [];
  for (const user of users) {
    for (const session of turnSessions) {
      for (const t of await store[activeTurnLog].read(user, session)) active.push({ ns: `${user}/${session}`, turnId: t.turnId, role: t.role, text: t.text });
    }
    const refs: { sessionId: string; chunkId: string }[] = [];
    for await (const e of store.list(user)) refs.push({ sessionId: e.sessionId, chunkId: e.chunkId });
    const read = await store.getMany(user, refs);
    for (const r of read.chunks) {
      if (r === null) continue;
      chunks.push({ ns: `${r.userId}/${r.sessionId}`, session: r.sessionId, chunkId: r.chunkId, kind: r.kind, text: r.text, version: r.version, provenance: r.provenance });
    }
  }
  return { active, chunks };
}

type Fate = 'kept' | 'removed' | 'uncertain';

export function checkMixedRun(entries: readonly LogEntry[], state: FinalState): string[] {
  const problems: string[] = [];
  const purges = new Map<string, LogEntry[]>();
  for (const e of entries) if (e.k === 'purge') purges.set(e.user, [...(purges.get(e.user) ?? []), e]);
  // A failed purge may have landed: it makes everything before its end uncertain.
  for (const e of entries) if (e.k === 'fail' && e.tried?.k === 'purge') purges.set(e.tried.user!, [...(purges.get(e.tried.user!) ?? []), { ...e, user: e.tried.user!, k: 'purge' }]);
  const fate = (user: string, op: { t0: number; t1: number }): Fate => {
    const ps = purges.get(user) ?? [];
    if (ps.some((p) => p.k === 'purge' && p.t0 > op.t1 && !isFailed(p))) return 'removed';
    if (ps.some((p) => p.t0 <= op.t1 && p.t1 >= op.t0) || ps.some((p) => isFailed(p) && p.t0 > op.t1)) return 'uncertain';
    return 'kept';
  };

  // Turns.
  const acked = new Map<string, LogEntry>();
  const maybe = new Map<string, Partial<LogEntry>>();
  for (const e of entries) {
    if (e.k === 'turn') acked.set(e.turnId!, e);
    if (e.k === 'fail' && e.tried?.k === 'turn') maybe.set(e.tried.turnId!, e.tried);
  }
  const places = new Map<string, string[]>();
  const note = (id: string, place: string): void => {
    places.set(id, [...(places.get(id) ?? []), place]);
  };
  for (const a of state.active) {
    note(a.turnId, `active ${a.ns}`);
    const want = acked.get(a.turnId) ?? maybe.get(a.turnId);
    if (want === undefined) continue;
    if (`${want.user}/${want.session}` !== a.ns || want.text !== a.text || want.role !== a.role) problems.push(`active turn ${a.turnId} in ${a.ns} differs from what was appended`);
  }
  for (const c of state.chunks) {
    if (c.session === NOTES_SESSION) continue;
    for (const id of c.provenance) {
      note(id, `chunk ${c.chunkId} (${c.ns})`);
      const want = acked.get(id) ?? maybe.get(id);
      if (want === undefined) continue;
      if (`${want.user}/${want.session}` !== c.ns) problems.push(`turn ${id} of ${want.user}/${want.session} was compacted into chunk ${c.chunkId} of ${c.ns}`);
      if (!c.text.includes(`${want.role}: ${want.text}`)) problems.push(`chunk ${c.chunkId} names turn ${id} in its provenance but its text does not hold the turn (half-applied compaction)`);
    }
  }
  for (const [id, where] of places) {
    if (where.length > 1) problems.push(`turn ${id} is in ${where.length} places (duplicate chunk or half-applied compaction): ${where.join(', ')}`);
    if (!acked.has(id) && !maybe.has(id)) problems.push(`turn ${id} was never appended (found in ${where.join(', ')})`);
  }
  const ends = entries.filter((e) => e.k === 'end');
  for (const [id, t] of acked) {
    const f = fate(t.user, t);
    const where = places.get(id);
    if (f === 'kept' && where === undefined) problems.push(`acknowledged turn ${id} of ${t.user}/${t.session} is lost`);
    if (f === 'removed' && where !== undefined) problems.push(`turn ${id} of ${t.user} survived a purge that started after it was acknowledged (in ${where.join(', ')})`);
    if (f === 'kept' && where?.[0]?.startsWith('active') === true) {
      const end = ends.find((e) => e.user === t.user && e.session === t.session && e.t0 > t.t1);
      if (end !== undefined) problems.push(`turn ${id} is still active though an endSession of ${t.user}/${t.session} acknowledged after it compacted the session`);
    }
  }

  // Notes.
  interface NoteOps {
    user: string;
    put?: LogEntry;
    updates: LogEntry[];
    deletes: LogEntry[];
    failedTexts: Set<string>;
  }
  const notes = new Map<string, NoteOps>();
  const noteOf = (user: string, id: string): NoteOps => {
    let n = notes.get(id);
    if (n === undefined) notes.set(id, (n = { user, updates: [], deletes: [], failedTexts: new Set() }));
    return n;
  };
  const putTexts = new Set<string>();
  for (const e of entries) {
    if (e.k === 'put') {
      noteOf(e.user, e.chunkId!).put = e;
      putTexts.add(e.text!);
    }
    if (e.k === 'update') noteOf(e.user, e.chunkId!).updates.push(e);
    if (e.k === 'delete') noteOf(e.user, e.chunkId!).deletes.push(e);
    if (e.k === 'fail' && e.tried?.k === 'put') putTexts.add(e.tried.text!);
    if (e.k === 'fail' && e.tried?.k === 'update') noteOf(e.tried.user!, e.tried.chunkId!).failedTexts.add(e.tried.text!);
  }
  const live = new Map(state.chunks.filter((c) => c.session === NOTES_SESSION).map((c) => [c.chunkId, c]));
  for (const [id, n] of notes) {
    const ops = [...(n.put === undefined ? [] : [n.put]), ...n.updates, ...n.deletes];
    const versions = [...(n.put === undefined ? [] : [n.put]), ...n.updates].map((e) => e.version!);
    if (new Set(versions).size !== versions.length) problems.push(`note ${id}: two acknowledged writes returned the same version (lost update): ${versions.join(', ')}`);
    if (n.deletes.length > 1) problems.push(`note ${id} was deleted ${n.deletes.length} times`);
    const fates = ops.map((e) => fate(n.user, e));
    const c = live.get(id);
    if (fates.includes('removed')) {
      if (c !== undefined) problems.push(`note ${id} of ${n.user} survived a purge that started after it was written`);
      continue;
    }
    if (fates.includes('uncertain')) continue;
    if (n.deletes.length > 0) {
      if (c !== undefined) problems.push(`note ${id} was deleted (acknowledged) but is live at version ${c.version}`);
      continue;
    }
    if (c === undefined) {
      problems.push(`note ${id} of ${n.user} is lost (acknowledged writes: ${versions.join(', ')})`);
      continue;
    }
    const newest = Math.max(...versions);
    if (c.version < newest) problems.push(`note ${id} is at version ${c.version}, older than the acknowledged version ${newest}`);
    const same = [...(n.put === undefined ? [] : [n.put]), ...n.updates].find((e) => e.version === c.version);
    if (same !== undefined && same.text !== c.text) problems.push(`note ${id} at version ${c.version} does not hold the text acknowledged with that version`);
    if (same === undefined && !n.failedTexts.has(c.text)) problems.push(`note ${id} at version ${c.version} holds a text no write gave it`);
  }
  for (const [id, c] of live) {
    if (!notes.has(id) && !putTexts.has(c.text)) problems.push(`live note ${id} was never written`);
  }
  const texts = [...live.values()].map((c) => c.text);
  if (new Set(texts).size !== texts.length) problems.push('two live notes hold the same text (a duplicated put)');
  const foreign = entries.filter((e) => e.k === 'recall' && (e.foreign ?? 0) > 0);
  if (foreign.length > 0) problems.push(`${foreign.length} recalls returned chunks of another user`);
  return problems;
}

function isFailed(e: LogEntry): boolean {
  return e.code !== undefined;
}

/**
 * The crash test's oracle: the logical state the database must hold after a prefix of a plan's operations, and
 * the comparison of a reopened database against it.
 *
 * Store-level users: a model of every chunk ever created (by logical name), advanced op by op. Relocation, GC
 * and recall change nothing logically, so they are no-ops here; what they must not do (lose, resurrect, mix or
 * corrupt chunks) shows up as a difference from the model or as a verify() problem.
 *
 * MemAttention users: the model compactor decides what a chunk's text is, so the oracle checks the invariant
 * that matters instead of the exact chunks: every acknowledged turn is in exactly one place (the session's
 * active chunk, or the provenance of exactly one live memory chunk of that session whose text contains it), no
 * other turn exists, the in-flight op's turns are all there or none is, and turns compacted by an acknowledged
 * `endSession` never come back to the active chunk.
 */
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import type { ChunkRecord } from '../../src/record/chunk-record.js';
import { activeTurnLog } from '../../src/engine/internal-seams.js';
import { payloadOf, scopeKey, scopeOf, textOf, turnScopeOf, turnText, type ContentSpec, type TurnSpec } from './content.js';
import { MEMORY_SESSIONS, MEMORY_USERS, STORE_USERS, type PlanOp, type SubOp } from './plan.js';

export interface ModelChunk {
  readonly name: string;
  readonly user: string;
  readonly session: string;
  /** Null until the id the engine generated is known (a put without an id whose ack was not seen yet). */
  chunkId: string | null;
  state: 'live' | 'deleted';
  version: number;
  content: ContentSpec;
  /** Texts of the versions updates and the delete ended, oldest first (what history must keep, up to its retention). */
  past: readonly string[];
  /** Written by restore: history is not compared (a restore writes versions without their predecessors). */
  restored: boolean;
}

/** Superseded versions the store keeps per chunk (the default history retention the crash test runs with). */
const HISTORY_VERSIONS = 16;

/** What an acknowledged op returned, as the child logs it. */
export type AckResult = { readonly chunkIds?: readonly string[]; readonly versions?: readonly number[] } & Record<string, unknown>;

export class StoreModel {
  readonly #chunks: Map<string, ModelChunk>;

  constructor(chunks: Map<string, ModelChunk> = new Map()) {
    this.#chunks = chunks;
  }

  clone(): StoreModel {
    const m = new Map<string, ModelChunk>();
    for (const [k, c] of this.#chunks) m.set(k, { ...c });
    return new StoreModel(m);
  }

  get(name: string): ModelChunk | undefined {
    return this.#chunks.get(name);
  }

  all(user: string): ModelChunk[] {
    return [...this.#chunks.values()].filter((c) => c.user === user);
  }

  live(user: string): ModelChunk[] {
    return this.all(user).filter((c) => c.state === 'live');
  }

  get size(): number {
    return this.#chunks.size;
  }

  /**
   * Applies one op. With `ack` (the child's logged result), binds generated chunk ids and checks the versions
   * the engine reported; returns the mismatches (empty when the ack agrees with the model).
   */
  apply(op: PlanOp, ack: AckResult | null): string[] {
    const errors: string[] = [];
    const sub = (o: SubOp, user: string, i: number): void => {
      const gotId = ack?.chunkIds?.[i];
      const gotVersion = ack?.versions?.[i];
      switch (o.t) {
        case 'put': {
          const chunkId = o.chunkId ?? (typeof gotId === 'string' ? gotId : null);
          if (o.chunkId !== undefined && gotId !== undefined && gotId !== o.chunkId) errors.push(`put ${o.name} returned id ${gotId}, asked for ${o.chunkId}`);
          this.#chunks.set(o.name, { name: o.name, user, session: o.session, chunkId, state: 'live', version: 1, content: o.content, past: [], restored: false });
          if (gotVersion !== undefined && gotVersion !== 1) errors.push(`put ${o.name} returned version ${gotVersion}`);
          return;
        }
        case 'update': {
          const c = this.#chunks.get(o.ref.name);
          if (c === undefined || c.state !== 'live') {
            errors.push(`update of ${o.ref.name}, which the model does not hold live`);
            return;
          }
          c.version++;
          c.past = [...c.past, textOf(c.content)];
          c.content = { ...c.content, ...o.text };
          if (gotVersion !== undefined && gotVersion !== c.version) errors.push(`update of ${o.ref.name} returned version ${gotVersion}, model says ${c.version}`);
          return;
        }
        case 'delete': {
          const c = this.#chunks.get(o.ref.name);
          if (c === undefined || c.state !== 'live') {
            errors.push(`delete of ${o.ref.name}, which the model does not hold live`);
            return;
          }
          c.state = 'deleted';
          c.past = [...c.past, textOf(c.content)];
          if (gotVersion !== undefined && gotVersion !== c.version) errors.push(`delete of ${o.ref.name} returned version ${gotVersion}, model says ${c.version}`);
        }
      }
    };
    switch (op.t) {
      case 'put':
      case 'update':
      case 'delete':
        sub(op, op.user, 0);
        break;
      case 'write':
        op.ops.forEach((o, i) => sub(o, op.user, i));
        break;
      case 'restore':
        this.#chunks.set(op.name, { name: op.name, user: op.user, session: op.session, chunkId: op.chunkId, state: 'live', version: op.version, content: op.content, past: [], restored: true });
        if (ack?.versions?.[0] !== undefined && ack.versions[0] !== op.version) errors.push(`restore ${op.name} returned version ${ack.versions[0]}`);
        break;
      default:
        break; // relocation, GC and MemAttention ops change nothing a store-level user holds
    }
    return errors;
  }

  /** Binds an id found in the database to the one chunk whose id was not known. */
  bind(name: string, chunkId: string): void {
    const c = this.#chunks.get(name);
    if (c !== undefined) c.chunkId = chunkId;
  }

  chunks(): IterableIterator<ModelChunk> {
    return this.#chunks.values();
  }
}

/** One chunk as read back from the reopened database. */
export interface ActualChunk {
  readonly user: string;
  readonly session: string;
  readonly chunkId: string;
  readonly state: 'live' | 'deleted';
  readonly version: number;
  readonly record: ChunkRecord | null;
  /** Texts of the kept superseded versions, oldest first (`history()`). */
  readonly past: readonly string[];
}

/** Reads every store-level user's chunks (tombstones included) through the public API. */
export async function readStoreState(store: AkashicStore): Promise<ActualChunk[]> {
  const out: ActualChunk[] = [];
  for (const user of STORE_USERS) {
    const entries = [];
    for await (const e of store.list(user, { includeDeleted: true })) entries.push(e);
    const live = entries.filter((e) => e.entry.state === 'live');
    const read = await store.getMany(user, live.map((e) => ({ sessionId: e.sessionId, chunkId: e.chunkId })));
    const records = new Map(read.chunks.map((r) => [r!.sessionId + '\0' + r!.chunkId, r]));
    for (const e of entries) {
      const versions = await store.history(user, e.sessionId, e.chunkId);
      out.push({
        past: versions
          .filter((v) => v.validUntil !== null)
          .map((v) => v.record.text)
          .reverse(),
        user,
        session: e.sessionId,
        chunkId: e.chunkId,
        state: e.entry.state,
        version: e.entry.version,
        record: records.get(e.sessionId + '\0' + e.chunkId) ?? null,
      });
    }
  }
  return out;
}

const key = (user: string, session: string, chunkId: string): string => `${user}/${session}/${chunkId}`;

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a).equals(Buffer.from(b));
}

/** Differences between the model and the database (empty when equal). Binds at most one unknown id by text. */
export function compareStore(model: StoreModel, actual: readonly ActualChunk[]): { diffs: string[]; bound: [string, string][] } {
  const diffs: string[] = [];
  const bound: [string, string][] = [];
  const byKey = new Map(actual.map((a) => [key(a.user, a.session, a.chunkId), a]));
  const claimed = new Set<string>();
  const unbound: ModelChunk[] = [];
  const check = (m: ModelChunk, a: ActualChunk | undefined, k: string): void => {
    if (a === undefined) {
      diffs.push(`missing ${m.state} chunk ${m.name} (${k}, v${m.version})`);
      return;
    }
    if (a.state !== m.state || a.version !== m.version) {
      diffs.push(`${m.name} (${k}): database has ${a.state} v${a.version}, expected ${m.state} v${m.version}`);
      return;
    }
    if (m.state === 'live') {
      const r = a.record;
      if (r === null) diffs.push(`${m.name} (${k}): live entry without a readable record`);
      else if (r.text !== textOf(m.content)) diffs.push(`${m.name} (${k}): text differs`);
      else if (r.keywords.join(',') !== m.content.kw.join(',')) diffs.push(`${m.name} (${k}): keywords differ`);
      else if (r.kind !== m.content.kind) diffs.push(`${m.name} (${k}): kind ${r.kind}, expected ${m.content.kind}`);
      else if (!sameBytes(r.payload, payloadOf(m.content))) diffs.push(`${m.name} (${k}): payload differs`);
      else {
        const want = scopeOf(m.content);
        if (r.agentId !== want.agentId || r.runId !== want.runId || r.expiresAt !== want.expiresAt) {
          diffs.push(`${m.name} (${k}): scope/expiry ${JSON.stringify([r.agentId, r.runId, r.expiresAt])}, expected ${JSON.stringify([want.agentId, want.runId, want.expiresAt])}`);
        }
      }
    }
    if (!m.restored) {
      const want = m.past.slice(-HISTORY_VERSIONS);
      if (a.past.length !== want.length || a.past.some((t, i) => t !== want[i])) diffs.push(`${m.name} (${k}): history holds ${a.past.length} versions, expected ${want.length} (or other texts)`);
    }
  };
  for (const m of model.chunks()) {
    if (m.chunkId === null) {
      unbound.push(m);
      continue;
    }
    const k = key(m.user, m.session, m.chunkId);
    claimed.add(k);
    check(m, byKey.get(k), k);
  }
  for (const m of unbound) {
    const want = textOf(m.content);
    const hit = actual.find((a) => !claimed.has(key(a.user, a.session, a.chunkId)) && a.user === m.user && a.session === m.session && a.record?.text === want);
    if (hit === undefined) {
      diffs.push(`missing chunk ${m.name} (id never acknowledged) of ${m.user}/${m.session}`);
      continue;
    }
    const k = key(hit.user, hit.session, hit.chunkId);
    claimed.add(k);
    bound.push([m.name, hit.chunkId]);
    check(m, hit, k);
  }
  for (const a of actual) {
    const k = key(a.user, a.session, a.chunkId);
    if (!claimed.has(k)) diffs.push(`unexpected ${a.state} chunk ${k} v${a.version}${a.record === null ? '' : ` text ${JSON.stringify(a.record.text.slice(0, 40))}`}`);
  }
  return { diffs, bound };
}

/** The MemAttention side of the oracle. */
export class MemoryModel {
  /** Acknowledged turns: id → namespace, expected role/text and agent/run scope (`scopeKey`). */
  readonly acked = new Map<string, { ns: string; role: string; text: string; scope: string }>();
  /** Turns an acknowledged endSession compacted: they must never be active again. */
  readonly compacted = new Set<string>();

  /** Advances the model by an op that is known to have completed. */
  apply(op: PlanOp): void {
    if (op.t === 'turns') {
      for (const t of op.turns) this.acked.set(t.turnId, { ns: `${op.user}/${op.session}`, role: t.role, text: turnText(t), scope: scopeKey(turnScopeOf(t)) });
    } else if (op.t === 'end') {
      const ns = `${op.user}/${op.session}`;
      for (const [id, t] of this.acked) if (t.ns === ns) this.compacted.add(id);
    }
  }
}

/** The active turns and live memory chunks of the MemAttention users, read back from the database. */
export interface MemoryState {
  readonly active: { readonly ns: string; readonly turnId: string; readonly role: string; readonly text: string; readonly scope: string }[];
  readonly chunks: {
    readonly ns: string;
    readonly chunkId: string;
    readonly userId: string;
    readonly text: string;
    readonly provenance: readonly string[];
    readonly kind: string;
    readonly scope: string;
  }[];
}

export async function readMemoryState(store: AkashicStore): Promise<MemoryState> {
  const active: MemoryState['active'] = [];
  const chunks: MemoryState['chunks'] = [];
  for (const user of MEMORY_USERS) {
    for (const session of MEMORY_SESSIONS) {
      for (const t of await store[activeTurnLog].read(user, session)) active.push({ ns: `${user}/${session}`, turnId: t.turnId, role: t.role, text: t.text, scope: scopeKey(t) });
    }
    const entries = [];
    for await (const e of store.list(user)) entries.push(e);
    const read = await store.getMany(user, entries.map((e) => ({ sessionId: e.sessionId, chunkId: e.chunkId })));
    for (const r of read.chunks) {
      if (r !== null) {
        chunks.push({ ns: `${user}/${r.sessionId}`, chunkId: r.chunkId, userId: r.userId, text: r.text, provenance: r.provenance, kind: r.kind, scope: scopeKey(r) });
      }
    }
  }
  return { active, chunks };
}

/**
 * Checks the MemAttention invariants against the acknowledged turns plus, optionally, the in-flight op's
 * turns. Returns the problems and whether the in-flight turns are present.
 */
export function compareMemory(model: MemoryModel, state: MemoryState, inflight: readonly TurnSpec[]): { diffs: string[]; inflightPresent: boolean } {
  const diffs: string[] = [];
  const where = new Map<string, string[]>();
  const note = (id: string, place: string): void => {
    const list = where.get(id);
    if (list === undefined) where.set(id, [place]);
    else list.push(place);
  };
  const inflightIds = new Map(inflight.map((t) => [t.turnId, t]));
  const expectedInflight = (id: string, ns: string): { text: string; role: string; ns: string; scope: string } | undefined => {
    const t = inflightIds.get(id);
    return t === undefined ? undefined : { text: turnText(t), role: t.role, ns, scope: scopeKey(turnScopeOf(t)) };
  };
  for (const a of state.active) {
    note(a.turnId, `active ${a.ns}`);
    const want = model.acked.get(a.turnId) ?? expectedInflight(a.turnId, a.ns);
    if (want !== undefined && (want.text !== a.text || want.role !== a.role || want.ns !== a.ns)) diffs.push(`active turn ${a.turnId} in ${a.ns} differs from what was appended`);
    if (want !== undefined && want.scope !== a.scope) diffs.push(`active turn ${a.turnId} has scope ${a.scope}, appended with ${want.scope}`);
    if (model.compacted.has(a.turnId)) diffs.push(`turn ${a.turnId} is active again after an acknowledged endSession compacted it`);
  }
  for (const c of state.chunks) {
    if (!c.ns.startsWith(c.userId + '/')) diffs.push(`chunk ${c.chunkId} listed under ${c.ns} holds user ${c.userId}`);
    for (const id of c.provenance) {
      note(id, `chunk ${c.chunkId}`);
      const want = model.acked.get(id) ?? expectedInflight(id, c.ns);
      if (want === undefined) continue;
      if (want.ns !== c.ns) diffs.push(`turn ${id} of ${want.ns} was compacted into chunk ${c.chunkId} of ${c.ns}`);
      if (want.scope !== c.scope) diffs.push(`turn ${id} of scope ${want.scope} was compacted into chunk ${c.chunkId} of scope ${c.scope}`);
      if (!c.text.includes(`${want.role}: ${want.text}`)) diffs.push(`chunk ${c.chunkId} lists turn ${id} but its text does not hold it`);
    }
  }
  for (const [id, places] of where) {
    if (places.length > 1) diffs.push(`turn ${id} is in ${places.length} places: ${places.join(', ')}`);
    if (!model.acked.has(id) && !inflightIds.has(id)) diffs.push(`turn ${id} was never issued (found in ${places.join(', ')})`);
  }
  for (const id of model.acked.keys()) if (!where.has(id)) diffs.push(`acknowledged turn ${id} is lost`);
  const present = inflight.filter((t) => where.has(t.turnId)).length;
  if (present !== 0 && present !== inflight.length) diffs.push(`in-flight append is torn: ${present} of ${inflight.length} turns present`);
  return { diffs, inflightPresent: inflight.length > 0 && present === inflight.length };
}

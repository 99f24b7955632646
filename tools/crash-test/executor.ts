/**
 * Executes plan ops against a store (and a MemAttention layer) through the public API. Used by the crash test's
 * child and by the in-process concurrency test. Remembers the ids the engine generated for puts without one,
 * so later ops can refer to those chunks by name.
 */
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import type { WriteOp } from '../../src/api/requests.js';
import type { AkashicMemory } from '../../src/memattention/memory.js';
import type { ChunkRecord } from '../../src/record/chunk-record.js';
import { payloadOf, scopeOf, textOf, turnScopeOf, turnText, type ContentSpec } from './content.js';
import type { AckResult } from './oracle.js';
import type { ChunkRef, PlanOp, SubOp } from './plan.js';

export class PlanExecutor {
  readonly #store: AkashicStore;
  readonly #memory: AkashicMemory | null;
  readonly #ids = new Map<string, string>();

  constructor(store: AkashicStore, memory: AkashicMemory | null) {
    this.#store = store;
    this.#memory = memory;
  }

  /** The chunk id of a ref, or undefined while a put without an id has not been acknowledged. */
  idOf(ref: ChunkRef): string | undefined {
    return ref.chunkId ?? this.#ids.get(ref.name);
  }

  #id(ref: ChunkRef): string {
    const id = this.idOf(ref);
    if (id === undefined) throw new Error(`no chunk id known for ${ref.name}`);
    return id;
  }

  #writeOp(o: SubOp): WriteOp {
    switch (o.t) {
      case 'put':
        return o.chunkId === undefined ? { op: 'put', sessionId: o.session, ...content(o.content) } : { op: 'put', sessionId: o.session, chunkId: o.chunkId, ...content(o.content) };
      case 'update': {
        const base = { op: 'update' as const, sessionId: o.ref.session, chunkId: this.#id(o.ref), text: textOf(o.text), keywords: [...o.text.kw] };
        return o.expectVersion === undefined ? base : { ...base, expectVersion: o.expectVersion };
      }
      case 'delete': {
        const base = { op: 'delete' as const, sessionId: o.ref.session, chunkId: this.#id(o.ref) };
        return o.expectVersion === undefined ? base : { ...base, expectVersion: o.expectVersion };
      }
    }
  }

  /** Runs one op; resolves with what the oracle checks (ids and versions of writes), rejects like the API does. */
  async run(op: PlanOp): Promise<AckResult> {
    const store = this.#store;
    switch (op.t) {
      case 'put':
      case 'update':
      case 'delete':
      case 'write': {
        const subs = op.t === 'write' ? op.ops : [op];
        const results = await store.write(op.user, subs.map((s) => this.#writeOp(s)));
        subs.forEach((s, i) => {
          if (s.t === 'put') this.#ids.set(s.name, results[i]!.chunkId);
        });
        return { chunkIds: results.map((r) => r.chunkId), versions: results.map((r) => r.version) };
      }
      case 'restore': {
        const at = 1_600_000_000_000 + op.version;
        const record: ChunkRecord = {
          userId: op.user,
          sessionId: op.session,
          chunkId: op.chunkId,
          version: op.version,
          createdAt: at,
          updatedAt: at,
          tokenCount: 0,
          attributes: { restored: 'yes' },
          supersedes: [],
          provenance: [],
          ...content(op.content),
        };
        this.#ids.set(op.name, op.chunkId);
        const [r] = await store.restore(op.user, [record]);
        return { versions: [r!.version], skipped: r!.skipped === true };
      }
      case 'relocate': {
        const r = await store.relocate(op.user, op.refs.map((x) => ({ sessionId: x.session, chunkId: this.#id(x) })));
        return { moved: r.moved, skipped: r.skipped };
      }
      case 'gc': {
        const r = await store.gc({ threshold: op.threshold, maxBlocks: op.maxBlocks });
        return { moved: r.chunksMoved, released: r.blocksReleased };
      }
      case 'turns': {
        const memory = this.#needMemory();
        const turns = op.turns.map((t) => ({ role: t.role, text: turnText(t), turnId: t.turnId, ...turnScopeOf(t) }));
        const r =
          turns.length === 1
            ? await memory.appendTurn({ user: op.user, session: op.session, ...turns[0]! })
            : await memory.completeRequest({ user: op.user, session: op.session, turns });
        if (r.compactionError !== undefined) throw r.compactionError;
        return { compacted: r.compacted !== undefined, scheduled: r.compactionScheduled === true };
      }
      case 'end': {
        const r = await this.#needMemory().endSession({ user: op.user, session: op.session });
        return { compacted: r.compacted.length };
      }
      case 'recall': {
        const r = await this.#needMemory().recall({ user: op.user, session: op.session, query: op.query, scope: op.scope });
        // Isolation: a recall returns only the caller's chunks (and, with scope 'session', only that session's).
        for (const c of r.chunks) {
          if (c.userId !== op.user || (op.scope === 'session' && c.sessionId !== op.session)) {
            throw Object.assign(new Error(`recall of ${op.user}/${op.session} returned ${c.userId}/${c.sessionId}/${c.chunkId}`), { code: 'ISOLATION' });
          }
        }
        return { chunks: r.chunks.length, relocation: r.relocation.status };
      }
    }
  }

  #needMemory(): AkashicMemory {
    if (this.#memory === null) throw new Error('this op needs a MemAttention layer');
    return this.#memory;
  }
}

function content(c: ContentSpec): { text: string; keywords: string[]; kind: ContentSpec['kind']; payload: Uint8Array | null; agentId?: string; runId?: string; expiresAt?: number } {
  return { text: textOf(c), keywords: [...c.kw], kind: c.kind, payload: payloadOf(c), ...scopeOf(c) };
}

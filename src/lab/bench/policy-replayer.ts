/**
 * Replays a trace into one AkashicStore under one layout policy. Writes go through `write` with the recorded chunk
 * ids; each request is one `getMany` whose cost is taken before the relocation it may trigger; relocation mirrors
 * AkashicMemory's recall path (co-access, then COLOCATE under the rate limit); GC passes run at a fixed event
 * cadence instead of a timer, so a replay is deterministic.
 */
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { AkashicStore } from '../../engine/akashic-store.js';
import { OnlineRelocation } from '../../memattention/colocation.js';
import { CheckedModel } from '../../memattention/model-calls.js';
import { resolveMemoryOptions } from '../../memattention/options.js';
import { retrieve } from '../../memattention/recall.js';
import { ChunkPieceCache } from '../../memattention/chunk-pieces.js';
import { coldReopen } from '../../engine/internal-seams.js';
import { EmbeddedModel } from '../../model/embedded-model.js';
import { forgetKeywordListTerms } from '../../model/keywords.js';
import { loadOfflineWordVectors } from '../../model/word-vectors.js';
import type { ChunkRecord } from '../../record/chunk-record.js';
import type { ChunkRef, LocatedRef } from '../../api/chunk-input.js';
import { lowerBoundBlocks } from '../../block/group-layout.js';
import type { StoreStats } from '../../api/reports.js';
import type { WriteOp } from '../../api/requests.js';
import type { LayoutParams, PolicyName, PolicySpec } from './layout-policies.js';
import type { TraceWrite } from './trace.js';

/** Where a replay store lives. Disk stores are LevelDB tuned for cold measurement (see `openBenchLevel`). */
export type StoreBackend = { readonly kind: 'memory' } | { readonly kind: 'disk'; readonly path: string; readonly writeBufferSize: number };

/** A recorded batch as the engine's write operations. */
function toWriteOps(ev: TraceWrite): WriteOp[] {
  return ev.ops.map((o) => {
    if (o.op === 'delete') return { op: 'delete', sessionId: o.sessionId, chunkId: o.chunkId };
    const content = { kind: 'memory' as const, text: o.text, tokenCount: o.tokenCount, keywords: o.keywords, provenance: o.provenance };
    return o.op === 'put' ? { op: 'put', sessionId: o.sessionId, chunkId: o.chunkId, createdAt: o.createdAt, ...content } : { op: 'update', sessionId: o.sessionId, chunkId: o.chunkId, ...content };
  });
}

/**
 * A classic-level database for cold measurement: no LevelDB block cache (`cacheSize: 0`, so a dropped page cache
 * really means a cold read) and a small memtable, so a trace of a few megabytes lives in table files as a large
 * database's data would, not in the memtable.
 */
export function openBenchLevel(path: string, writeBufferSize: number): ClassicLevel<string, Buffer> {
  return new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer', cacheSize: 0, writeBufferSize });
}

/** MemAttention's default recall options (default model and bounds), as a recall through AkashicMemory uses them. */
const RECALL_OPTIONS = resolveMemoryOptions({});

/** What one request cost a policy store. */
export interface RequestCost {
  readonly blocksTouched: number;
  readonly lowerBound: number;
  readonly liveChunks: number;
  readonly engineBytesRead: number;
}

export class PolicyReplayer {
  readonly name: PolicyName;
  readonly spec: PolicySpec;
  readonly params: LayoutParams;
  readonly #store: AkashicStore;
  readonly #backend: StoreBackend;
  #model = new CheckedModel(new EmbeddedModel());
  /** What recall derives from chunk texts, as an AkashicMemory keeps it; forgotten with the store's caches. */
  #pieces = new ChunkPieceCache(RECALL_OPTIONS.tokenizer);
  readonly #relocation: OnlineRelocation;
  #events = 0;
  #lastChunks: (ChunkRecord | null)[] = [];
  gcPasses = 0;
  /** Why requests that passed `admit` did not relocate, counted. */
  readonly relocationSkips = new Map<string, number>();

  private constructor(name: PolicyName, spec: PolicySpec, params: LayoutParams, store: AkashicStore, backend: StoreBackend) {
    this.name = name;
    this.spec = spec;
    this.params = params;
    this.#store = store;
    this.#backend = backend;
    this.#relocation = new OnlineRelocation({ every: params.relocateEveryRecalls, tauAssoc: params.tauAssoc, minRecurrence: params.relocateMinRecurrence });
  }

  static async open(name: PolicyName, spec: PolicySpec, params: LayoutParams, backend: StoreBackend): Promise<PolicyReplayer> {
    // The embedded model's word vectors are loaded once per process, on the first SELECT: loaded here, so the
    // first measured (cold) recall does not pay for reading them (tens of MB, about a second).
    await loadOfflineWordVectors();
    return new PolicyReplayer(name, spec, params, await PolicyReplayer.#openStore(params, backend), backend);
  }

  static #openStore(params: LayoutParams, backend: StoreBackend): Promise<AkashicStore> {
    const db = backend.kind === 'memory' ? new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' }) : openBenchLevel(backend.path, backend.writeBufferSize);
    return AkashicStore.open({
      db,
      blockCapacity: params.blockCapacity,
      // Engine cache off: every request's frames come from the key-value store (cold reads; honest bytesRead).
      cacheBytes: 0,
      durability: 'relaxed',
      gc: { threshold: params.gcThreshold, intervalMs: 0, maxBlocksPerPass: params.gcMaxBlocks, mergeBelowFill: params.gcMergeBelowFill },
    });
  }

  get store(): AkashicStore {
    return this.#store;
  }

  /**
   * Makes the next read cold as far as this process can (the engine's cold-reopen hook: frame cache emptied,
   * LevelDB reopened so its memory maps go); the caller then drops the page cache. A memory store has nothing to
   * forget.
   */
  async forgetCaches(): Promise<void> {
    // A cold recall derives everything again, as a fresh AkashicMemory would: no model memo, no chunk pieces.
    this.#model = new CheckedModel(new EmbeddedModel());
    this.#pieces = new ChunkPieceCache(RECALL_OPTIONS.tokenizer);
    forgetKeywordListTerms();
    if (this.#backend.kind === 'memory') return;
    await this.#store[coldReopen]();
  }

  /** Applies one recorded batch, then the policy's write-time placement. */
  async write(ev: TraceWrite): Promise<void> {
    await this.#store.write(ev.user, toWriteOps(ev));
    if (this.spec.semanticPlacement) await this.#placeNear(ev);
    await this.#tick();
  }

  /** Semantic placement: each put moved next to the neighbours the trace recorded for it. */
  async #placeNear(ev: TraceWrite): Promise<void> {
    let p = 0;
    for (const o of ev.ops) {
      if (o.op !== 'put') continue;
      const near = ev.neighbours[p++] ?? [];
      if (near.length > 0) await this.#store.relocate(ev.user, [{ sessionId: o.sessionId, chunkId: o.chunkId }, ...near]);
    }
  }

  /**
   * Applies several users' batches at once, as a host that flushes many agents' buffered writes does: the writes
   * are issued together, so the engine's group commit may coalesce them into one LevelDB batch, and each batch of
   * puts of one user is written through the bulk path (many chunks per frame and per transaction). Then the
   * policy's write-time placement, and the GC cadence counted per operation as `write` counts it per event of one.
   */
  async writeConcurrent(evs: readonly TraceWrite[]): Promise<void> {
    await Promise.all(evs.map((ev) => this.#store.write(ev.user, toWriteOps(ev))));
    for (const ev of evs) {
      if (this.spec.semanticPlacement) await this.#placeNear(ev);
      for (let i = 0; i < ev.ops.length; i++) await this.#tick();
    }
  }

  /** Serves a request: one getMany. Its cost is what the layout gives before anything this request triggers. */
  async read(user: string, refs: readonly ChunkRef[]): Promise<RequestCost> {
    const r = await this.#store.getMany(user, refs);
    this.#lastChunks = r.chunks;
    const live = r.chunks.filter((c) => c !== null).length;
    return { blocksTouched: r.blocksTouched, lowerBound: lowerBoundBlocks(live, this.params.blockCapacity), liveChunks: live, engineBytesRead: r.bytesRead };
  }

  /** Where each chunk of a request is (the directory read a recall's candidate gathering does for its fetch). */
  async locate(user: string, refs: readonly ChunkRef[]): Promise<LocatedRef[]> {
    return (await this.#store.locate(user, refs)).filter((l): l is LocatedRef => l !== null);
  }

  /** Serves a request as a recall fetches it: by slot, from locations its candidates carried (`locate`). */
  async readBySlot(user: string, located: readonly LocatedRef[]): Promise<RequestCost> {
    const r = await this.#store.getManyBySlot(user, located);
    this.#lastChunks = r.chunks;
    const live = r.chunks.filter((c) => c !== null).length;
    return { blocksTouched: r.blocksTouched, lowerBound: lowerBoundBlocks(live, this.params.blockCapacity), liveChunks: live, engineBytesRead: r.bytesRead };
  }

  /**
   * Serves a request end to end as AkashicMemory.recall does (candidate gathering, SELECT, one getMany), for the
   * cold-recall figure; its cost is the fetch's, like `read`'s.
   */
  async recall(user: string, sessionId: string, query: string): Promise<RequestCost> {
    const r = await retrieve(this.#store, this.#model, RECALL_OPTIONS, { userId: user, sessionId, query, topP: RECALL_OPTIONS.topP, budget: 10_000_000, scope: 'user' }, this.#pieces);
    this.#lastChunks = r.chunks;
    return { blocksTouched: r.blocksTouched, lowerBound: lowerBoundBlocks(r.chunks.length, this.params.blockCapacity), liveChunks: r.chunks.length, engineBytesRead: 0 };
  }

  /** What the request triggers under this policy (call right after `read` of the same request). */
  async afterRequest(user: string, cost: RequestCost): Promise<void> {
    const chunks = this.#lastChunks.filter((c): c is ChunkRecord => c !== null);
    const refs = chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId }));
    if (this.spec.coAccess && refs.length > 0) await this.#store.recordCoAccess(user, refs);
    if (this.spec.relocation === 'colocate') {
      // The library's decision (AkashicMemory uses the same object), the engine's commit.
      if (this.#relocation.admit(user, chunks.length, cost.blocksTouched, this.params.blockCapacity) === null) {
        const r = await this.#relocation.run(this.#store, this.#model, user, chunks);
        if (r.status === 'skipped') this.relocationSkips.set(r.reason, (this.relocationSkips.get(r.reason) ?? 0) + 1);
      }
    } else if (this.spec.relocation === 'every-set') {
      if (chunks.length >= 2 && cost.blocksTouched > cost.lowerBound) await this.#store.relocate(user, refs);
    }
    await this.#tick();
  }

  /** Counts a request that read nothing (an empty set) towards the GC cadence. */
  async skip(): Promise<void> {
    await this.#tick();
  }

  async #tick(): Promise<void> {
    this.#events++;
    if (this.spec.gc && this.#events % this.params.gcEveryEvents === 0) {
      await this.#store.gc({ maxBlocks: this.params.gcMaxBlocks });
      this.gcPasses++;
    }
  }

  /** One last GC pass (background GC catching up once the trace is idle), then the engine's figures. */
  async finish(): Promise<StoreStats> {
    if (this.spec.gc) {
      await this.#store.gc({ maxBlocks: this.params.gcMaxBlocks });
      this.gcPasses++;
    }
    return this.#store.stats();
  }

  async close(): Promise<void> {
    await this.#store.close();
  }
}

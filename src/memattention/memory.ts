/**
 * AkashicMemory: the MemAttention layer over an AkashicStore (the Akashic paper §4.1, §4.3): active chunks per
 * (user, session), gate-triggered compaction with cross-chunk reconciliation, query-aware recall under a token
 * budget, and online co-access relocation.
 */
import { ulid, ulidModule } from '../util/ulid-module.js';
import type { AkashicStore } from '../engine/akashic-store.js';
import type { ChunkVersion } from '../api/results.js';
import { activeTurnLog, isConsumedElsewhere, modelUsageLedger, trustedCalls, type StoredTurn } from '../engine/internal-seams.js';
import { NextEvent } from '../util/next-event.js';
import { idleCompactions, type IdleCompactions } from './internal-seams.js';
import { AkashicError, invalidArgument } from '../errors.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import type { PurgeReport } from '../api/reports.js';
import { compileFilter, type ChunkFilter } from '../api/chunk-filter.js';
import { LIMITS } from '../api/chunk-input.js';
import { checkId } from '../api/ids.js';
import { keysOf, rejectUnknownKeys } from '../api/option-keys.js';
import { KeyedQueue } from '../util/keyed-queue.js';
import { SEP } from '../api/key-strings.js';
import { activeTokens, gatedPrefix, scopeGroups, type ActiveTurn } from './active-chunk.js';
import type { ActiveTurnValue } from '../record/engine-records.js';
import { checkTurn, type TurnInput } from './turn-input.js';
import { OnlineRelocation, type RelocationOutcome } from './colocation.js';
import { compactTurns, isRelatedChangedMeanwhile, type CompactionResult, type CompactorContext } from './compactor.js';
import { storage } from './layer-errors.js';
import { CheckedModel } from './model-calls.js';
import { floorOption, intOption, resolveMemoryOptions, scopeOption, type MemoryOptions, type MemoryScope, type ResolvedMemoryOptions } from './options.js';
import type { RecalledPassage } from './passages.js';
import { retrieve, type RecalledChunk } from './recall.js';
import { compileScope } from '../api/scope-filter.js';
import { countTokensYielding } from '../model/tokenizer.js';
import { EventChannel } from '../util/typed-events.js';
import { sumReceipts, withReceipts, type ModelCallReceipt, type ModelUsageStats } from '../util/model-usage.js';
import type { ModelUsageRecorder } from '../engine/model-usage-recorder.js';
import type { CompactionTrigger, MemoryEvents } from './memory-events.js';
import { WriteBackQueue, type JobFailure, type WriteBackQueueStats } from './write-back-queue.js';
import { ChunkPieceCache } from './chunk-pieces.js';
import type { WriteBackMode } from './options.js';

/** A namespace: one user's session. */
export interface SessionRef {
  readonly user: string;
  readonly session: string;
}

/** What `completeRequest` takes: a finished request's turns. */
export interface CompleteRequestInput extends SessionRef {
  readonly turns: readonly TurnInput[];
  readonly enableWriteback?: boolean;
  readonly agentId?: string;
  readonly runId?: string;
}

export type { TurnInput } from './turn-input.js';

export interface AppendResult {
  /** Ids of the appended turns, in order. */
  readonly turnIds: readonly string[];
  /**
   * Tokens in the active chunk when the append was acknowledged (`writeBack: 'await'`: after its compaction).
   */
  readonly activeTokens: number;
  /**
   * True when the gate fired and the compaction was handed to the write-back queue (`writeBack: 'background'`):
   * it runs after this call resolved; `flush()` waits for it, the `compaction` event reports it.
   */
  readonly compactionScheduled?: boolean;
  /** `writeBack: 'await'` only: the compaction the gate triggered, if it fired and succeeded. */
  readonly compacted?: CompactionResult;
  /**
   * `writeBack: 'await'` only: set when the gate fired but compaction failed (model error, conflict, store closed).
   * The turns are stored regardless and nothing else changed; the next append or `endSession` retries.
   */
  readonly compactionError?: AkashicError;
}

/** What `AkashicMemory.stats()` returns. */
export interface MemoryStats {
  readonly writeBack: WriteBackQueueStats & {
    readonly mode: WriteBackMode;
    /** The last failure of a background compaction or relocation, with its code (null: none since construction). */
    readonly lastError: { readonly code: string; readonly message: string; readonly at: number } | null;
  };
  /**
   * Model calls since the store was opened, in this process: in total, per kind (compaction, recall, relocation,
   * gc, and embedding for every embedder call), per call (compress, buildMeta, select, jointCompact, colocate,
   * group, scorePassages, embed) and per user, which every AkashicMemory over the store adds to. The totals over
   * the database's whole life, persisted, are `AkashicStore.stats().modelUsage`.
   */
  readonly modelUsage: ModelUsageStats;
}

export interface RecallInput extends SessionRef {
  readonly query: string;
  /** Chunks SELECT may pick; default the memory's `recallTopP`. */
  readonly topP?: number;
  /** Token budget of the returned memory text; default 1536. */
  readonly memoryBudgetTokens?: number;
  /** 'user' (every session of the user) or 'session' (the calling session's chunks only); default the option recallScope, 'user'. */
  readonly scope?: MemoryScope;
  /** The relevance floor of this recall, in [0, 1]; default the option `relevanceFloor`. */
  readonly relevanceFloor?: number;
  /** false: no retrieval, only the active turns. Default true. */
  readonly enableRetrieval?: boolean;
  /** The current request's own turn, left out of `activeTurns` when it was already appended. */
  readonly turnId?: string;
  /**
   * Only chunks whose attributes and creation time match are candidates (applied before SELECT, so the budget
   * goes to matching chunks). Cost: a scan of the scope's directory instead of the candidate index's bounded read.
   */
  readonly filter?: ChunkFilter;
  /** Only chunks of these agents (one id, or several: a shared scope such as a team's memory). */
  readonly agentId?: string | readonly string[];
  /** Only chunks of these runs. */
  readonly runId?: string | readonly string[];
  /** Recall the memory as it was at this time (ms since the epoch): each chunk's version current then. */
  readonly asOf?: number;
  /**
   * Superseded versions kept by history are candidates too; recalled ones are marked `superseded`. Default false:
   * current facts only.
   */
  readonly includeSuperseded?: boolean;
}

export interface RecallResult {
  /** Recalled chunks, chronological; superseded versions (`includeSuperseded`) carry `superseded`. */
  readonly chunks: readonly RecalledChunk[];
  /**
   * The recalled passages (turns of the recalled chunks; a whole chunk when its text is not one line per turn),
   * in the order of `text`, each with its session, chunk and the turn ids it carries.
   */
  readonly passages: readonly RecalledPassage[];
  /**
   * What to prepend to the prompt: per recalled chunk, oldest first and blank-line separated, its date line and
   * the recalled passages in time order (with `recallUnit: 'chunk'`, the chunks' whole texts).
   */
  readonly text: string;
  /** Tokens of `text` (≤ the budget). */
  readonly tokenCount: number;
  /** Distinct blocks read to materialize the selected chunks. */
  readonly blocksTouched: number;
  /** The current session's turns not yet compacted, oldest first. */
  readonly activeTurns: readonly ActiveTurn[];
  /** Chunk metas shown to SELECT. */
  readonly candidates: number;
  /** Selected chunks left out by the budget. */
  readonly dropped: number;
  readonly relocation: RelocationOutcome;
}

/**
 * The MemAttention layer. One instance per store: it serializes the work of each (user, session) namespace, and two
 * instances over one store would not see each other's queues.
 *
 * @example
 *   const store = await AkashicStore.open({ path: './memory' });
 *   const memory = new AkashicMemory(store, { chunkGateTokens: 1024 });
 *   await memory.appendTurn({ user: 'alice', session: 's1', role: 'user', text: 'I moved to Berlin.' });
 *   const { text, activeTurns } = await memory.recall({ user: 'alice', session: 's1', query: 'where do I live?' });
 *   await memory.endSession({ user: 'alice', session: 's1' });
 *   await memory.close();
 *   await store.close();
 */
export class AkashicMemory {
  readonly #store: AkashicStore;
  readonly #options: ResolvedMemoryOptions;
  readonly #model: CheckedModel;
  readonly #ctx: CompactorContext;
  readonly #relocation: OnlineRelocation;
  /** One queue per namespace: every read, append and compaction of a namespace runs after the previous one. */
  readonly #queues = new KeyedQueue();
  readonly #idle = new Map<string, NodeJS.Timeout>();
  readonly #background = new Set<Promise<unknown>>();
  /**
   * One lane per namespace for compactions (gate, idle, endSession), apart from `#queues`: a compaction's model
   * calls never hold up the namespace's appends and reads. Appends only add turns after the ones a compaction
   * consumes, and nothing but a compaction of the same lane (or a purge, which waits for the lane) deletes turns,
   * so the turns a compaction read are still stored when it commits.
   */
  readonly #lanes = new KeyedQueue();
  /** What recall derives from each chunk version's text (its sentences, their token counts), kept between recalls. */
  readonly #pieces: ChunkPieceCache;
  /** The write-back queue (`writeBack: 'background'`), else null. */
  readonly #writeBack: WriteBackQueue | null;
  readonly #events: EventChannel<MemoryEvents>;
  readonly #usage: ModelUsageRecorder;
  #lastError: MemoryStats['writeBack']['lastError'] = null;
  /** Namespaces queued by the resume at construction (their first compaction's trigger is 'resume'). */
  readonly #resumed = new Set<string>();
  #status: 'open' | 'closing' | 'closed' = 'open';

  /** @throws AkashicError AKASHIC_INVALID_ARGUMENT naming a bad option; AKASHIC_NOT_OPEN if the store is not open. */
  constructor(store: AkashicStore, options: MemoryOptions = {}) {
    if (store === null || typeof store !== 'object' || store.status !== 'open') throw new AkashicError('AKASHIC_NOT_OPEN', 'AkashicMemory needs an open AkashicStore');
    this.#store = store;
    this.#options = resolveMemoryOptions(options);
    this.#model = new CheckedModel(this.#options.model, this.#options.tokenizer);
    this.#pieces = new ChunkPieceCache(this.#options.tokenizer);
    this.#relocation = new OnlineRelocation({
      every: this.#options.relocateEveryRecalls,
      tauAssoc: this.#options.tauAssoc,
      minRecurrence: this.#options.relocateMinRecurrence,
    });
    const ids = ulidModule().monotonicFactory();
    this.#ctx = { store, model: this.#model, options: this.#options, ulid: (now) => ids(now) };
    this.#usage = store[modelUsageLedger];
    this.#events = new EventChannel<MemoryEvents>();
    const o = this.#options;
    this.#writeBack =
      o.writeBack === 'await'
        ? null
        : new WriteBackQueue(
            { concurrency: o.writeBackConcurrency, limit: o.writeBackQueueLimit, retryBaseMs: o.writeBackRetryMs, maxRetries: o.writeBackMaxRetries },
            (key, attempt) => this.#gateJob(key, attempt),
            (f) => this.#jobFailed(f),
          );
    // Compactions a crash (or a failing model) left behind resume now: every namespace whose active turns reach the
    // gate is queued, in the background.
    if (this.#writeBack !== null && !store.options.readOnly) this.#track(this.#resume());
  }

  /**
   * Listens to the memory's events: `compaction` (every committed compaction), `recall`, `relocation` (an online
   * relocation that ran COLOCATE) and `error` (background work that failed; a compaction is retried and its turns
   * stay in the active chunk). Returns the function that removes the listener. Listeners run synchronously after
   * the operation; one that throws does not affect it. The store's own events (GC, expiry) are on the store.
   *
   * @example
   *   memory.on('compaction', (e) => console.log(e.session, e.turnIds.length, e.usage.promptTokens, e.durationMs));
   */
  on<K extends keyof MemoryEvents>(name: K, listener: (event: MemoryEvents[K]) => void): () => void {
    if (!MEMORY_EVENT_NAMES.has(name)) throw invalidArgument(`unknown memory event ${JSON.stringify(name)}`);
    return this.#events.on(name, listener);
  }

  /** Removes a listener added with `on`. */
  off<K extends keyof MemoryEvents>(name: K, listener: (event: MemoryEvents[K]) => void): void {
    this.#events.off(name, listener);
  }

  /** The write-back queue's state and the model usage of the store. */
  stats(): MemoryStats {
    const q = this.#writeBack?.stats() ?? { queued: 0, running: 0, retrying: 0, completed: 0, failures: 0, abandoned: 0 };
    return { writeBack: { ...q, mode: this.#options.writeBack, lastError: this.#lastError }, modelUsage: this.#usage.sinceOpen() };
  }

  /**
   * Waits until every compaction the gate asked for so far has run (a failed one waiting for its retry is tried once
   * more now), and every idle or relocation work in flight. A compaction that fails again stays pending and is
   * reported by the \`error\` event and \`stats()\`; flush does not throw for it.
   */
  async flush(): Promise<void> {
    this.#checkOpen();
    await this.#writeBack?.drain(() => true, true);
    await this.#lanes.drain();
    await Promise.allSettled([...this.#background]);
  }

  async #resume(): Promise<void> {
    const found = await this.#store[activeTurnLog].namespaces();
    for (const { userId, sessionId } of found) {
      if (this.#status !== 'open') return;
      this.#resumed.add(userId + SEP + sessionId);
      await this.#writeBack!.schedule(userId + SEP + sessionId);
    }
  }

  get options(): ResolvedMemoryOptions {
    return this.#options;
  }

  #checkOpen(): void {
    if (this.#status !== 'open') throw new AkashicError('AKASHIC_NOT_OPEN', `memory is ${this.#status}`);
    if (this.#store.status !== 'open') throw new AkashicError('AKASHIC_NOT_OPEN', `store is ${this.#store.status}`);
  }

  #checkWritable(): void {
    this.#checkOpen();
    if (this.#store.options.readOnly) throw invalidArgument('store was opened read-only');
    const failed = this.#store.writeError;
    if (failed !== null) throw new AkashicError('AKASHIC_READ_ONLY', `the store refuses writes since a storage write failed (${failed.message}); close and reopen it to recover`, { cause: failed });
  }

  /**
   * Durably appends one turn to the session's active chunk, then runs the gate: when the active chunk holds at least
   * `chunkGateTokens` tokens it is compacted (COMPRESS → BUILDMETA → SELECT → JOINT-COMPACT → one atomic batch).
   */
  async appendTurn(input: SessionRef & TurnInput): Promise<AppendResult & { readonly turnId: string }> {
    const ns = checkNamespace(input, APPEND_KEYS, 'appendTurn input');
    const r = await this.#append(ns, [input]);
    return { ...r, turnId: r.turnIds[0]! };
  }

  /**
   * The request-completion hook (§4.3): appends a finished request's turns in one batch and runs the gate once.
   * With `enableWriteback: false` nothing is written.
   */
  async completeRequest(input: CompleteRequestInput): Promise<AppendResult & { readonly writtenBack: boolean }> {
    const ns = checkNamespace(input, COMPLETE_KEYS, 'completeRequest input');
    if (input.agentId !== undefined) checkId(input.agentId, 'agentId');
    if (input.runId !== undefined) checkId(input.runId, 'runId');
    if (input.enableWriteback !== undefined && typeof input.enableWriteback !== 'boolean') throw invalidArgument('enableWriteback must be a boolean');
    if (!Array.isArray(input.turns) || input.turns.length > 1024) throw invalidArgument('turns must be an array of at most 1024 turns');
    // A sparse array has holes that would reach the store as undefined turns.
    for (let i = 0; i < input.turns.length; i++) if (!(i in input.turns)) throw invalidArgument(`turns[${i}] is missing (sparse array)`);
    for (const [i, t] of input.turns.entries()) if (t !== null && typeof t === 'object') rejectUnknownKeys(t, TURN_KEYS, `turns[${i}]`);
    if (input.enableWriteback === false || input.turns.length === 0) {
      this.#checkOpen();
      const turns = await this.#queues.run(ns.key, () => storage(this.#store[activeTurnLog].read(ns.user, ns.session)));
      return { turnIds: [], activeTokens: activeTokens(turns), writtenBack: false };
    }
    // The request's agent/run apply to each of its turns that names none of its own.
    const scope = { ...(input.agentId === undefined ? {} : { agentId: input.agentId }), ...(input.runId === undefined ? {} : { runId: input.runId }) };
    const turns = Object.keys(scope).length === 0 ? input.turns : Array.from(input.turns, (t) => (t === null || typeof t !== 'object' ? t : { ...scope, ...t }));
    return { ...(await this.#append(ns, turns)), writtenBack: true };
  }

  async #append(ns: Namespace, inputs: readonly TurnInput[]): Promise<AppendResult> {
    this.#checkWritable();
    const now = this.#store.options.now();
    const tok = this.#options.tokenizer;
    const checked = inputs.map((t, i) => checkTurn(t, `turns[${i}]`));
    const fresh: ActiveTurnValue[] = [];
    // Counted in slices that yield to the event loop: a 1 MiB turn must not stall other requests.
    for (const c of checked) {
      fresh.push({
        turnId: c.turnId ?? this.#ctx.ulid(now),
        role: c.role,
        text: c.text,
        at: c.at ?? now,
        tokenCount: await countTokensYielding(tok, c.text),
        ...(c.agentId === undefined ? {} : { agentId: c.agentId }),
        ...(c.runId === undefined ? {} : { runId: c.runId }),
      });
    }
    this.#checkWritable();
    const ids = new Set(fresh.map((t) => t.turnId));
    if (ids.size !== fresh.length) throw invalidArgument('turnIds repeat within one append');
    const appended = await this.#queues.run(ns.key, async (): Promise<AppendResult> => {
      const log = this.#store[activeTurnLog];
      const before = await storage(log.read(ns.user, ns.session));
      const dup = before.find((t) => ids.has(t.turnId));
      if (dup !== undefined) throw new AkashicError('AKASHIC_CONFLICT', `turn ${JSON.stringify(dup.turnId)} is already in the active chunk`);
      const stored = await storage(log.append(ns.user, ns.session, fresh));
      const turns = [...before, ...stored];
      let left = activeTokens(turns);
      const result: { turnIds: string[]; activeTokens: number; compactionScheduled?: boolean; compacted?: CompactionResult; compactionError?: AkashicError } = {
        turnIds: stored.map((t) => t.turnId),
        activeTokens: left,
      };
      // One compaction per append at most: the first agent/run scope whose own active turns reach the gate.
      let prefix: StoredTurn[] | null = null;
      for (const group of scopeGroups(turns)) if ((prefix = gatedPrefix(group, this.#options.chunkGateTokens)) !== null) break;
      if (prefix !== null && this.#writeBack !== null) {
        // Acknowledged now: the turns are durable; the compaction runs in the write-back queue.
        this.#armIdle(ns, true);
        return { ...result, compactionScheduled: true };
      }
      if (prefix !== null) {
        const gated = prefix;
        try {
          // Null: another process compacted (or purged) these turns first; they are no longer this append's.
          const c = await this.#lanes.run(ns.key, () => this.#compactUnlessConsumed(ns, gated, 'gate', 1));
          if (c !== null) {
            result.compacted = c;
            left -= c.turnTokens;
            result.activeTokens = left;
          }
        } catch (err) {
          result.compactionError = err instanceof AkashicError ? err : new AkashicError('AKASHIC_IO', String(err), { cause: err });
        }
      }
      this.#armIdle(ns, turns.length > (result.compacted?.turnIds.length ?? 0));
      return result;
    });
    // Back-pressure (outside the namespace's queue): may wait for room in the write-back queue.
    if (appended.compactionScheduled === true) await this.#writeBack!.schedule(ns.key);
    return appended;
  }

  /**
   * One compaction of `turns` (a gated prefix, or what endSession drains), with its receipts noted in the store's
   * ledger and, when listened to, a \`compaction\` event. Requires: the namespace's lane is held.
   */
  async #compact(ns: Namespace, turns: readonly StoredTurn[], trigger: CompactionTrigger, attempt: number): Promise<CompactionResult> {
    const startedAt = Date.now();
    const t0 = performance.now();
    // Each call's usage is charged to the user as it ends, so the compaction's commit persists it with the chunk.
    const r = await withReceipts(() => compactTurns(this.#ctx, ns.user, ns.session, turns), this.#usage.recorder('compaction', ns.user));
    if (r.failed) throw Object.assign(asAkashic(r.error), { [RECEIPTS]: r.receipts });
    const c = r.value!;
    if (this.#events.listening('compaction')) {
      this.#events.emit('compaction', {
        id: ulid(),
        user: ns.user,
        session: ns.session,
        startedAt,
        durationMs: performance.now() - t0,
        modelCalls: r.receipts,
        usage: sumReceipts(r.receipts),
        trigger,
        chunk: c.chunk,
        turnIds: c.turnIds,
        turnTokens: c.turnTokens,
        tokenCount: c.tokenCount,
        related: c.related.length,
        updated: c.updated.length,
        deleted: c.deleted.length,
        blocksTouched: c.blocksTouched,
        attempt,
      });
    }
    return c;
  }

  /** The write-back queue's job for one namespace: compact gated prefixes until the gate no longer fires. */
  async #gateJob(key: string, attempt: number): Promise<void> {
    const ns = namespaceOf(key);
    let trigger: CompactionTrigger = this.#resumed.delete(key) ? 'resume' : 'gate';
    await this.#lanes.run(key, async () => {
      for (;;) {
        if (this.#store.status !== 'open' || this.#store.writeError !== null) return;
        const turns = await storage(this.#store[activeTurnLog].read(ns.user, ns.session));
        let prefix: StoredTurn[] | null = null;
        for (const group of scopeGroups(turns)) if ((prefix = gatedPrefix(group, this.#options.chunkGateTokens)) !== null) break;
        if (prefix === null) return;
        // Another process compacted or purged some of these turns first: read the active chunk again.
        if ((await this.#compactUnlessConsumed(ns, prefix, trigger, attempt)) === null) continue;
        trigger = 'gate';
      }
    });
  }

  #jobFailed(f: JobFailure): void {
    const error = asAkashic(f.error);
    this.#lastError = { code: error.code, message: error.message, at: Date.now() };
    this.#options.onBackgroundError(error);
    if (!this.#events.listening('error')) return;
    const ns = namespaceOf(f.key);
    const receipts = (f.error as { [RECEIPTS]?: ModelCallReceipt[] } | null)?.[RECEIPTS] ?? [];
    this.#events.emit('error', {
      id: ulid(),
      user: ns.user,
      session: ns.session,
      startedAt: receipts[0]?.startedAt ?? Date.now(),
      durationMs: receipts.reduce((n, r) => n + r.latencyMs, 0),
      modelCalls: receipts,
      usage: sumReceipts(receipts),
      operation: 'compaction',
      error,
      attempt: f.attempt,
      retryInMs: f.retryInMs,
    });
  }

  /** Compacts what is left of the session's active chunk (a partial chunk below the gate included). */
  async endSession(input: SessionRef): Promise<{ readonly compacted: readonly CompactionResult[] }> {
    const ns = checkNamespace(input, SESSION_KEYS, 'endSession input');
    this.#checkWritable();
    this.#armIdle(ns, false);
    return { compacted: await this.#lanes.run(ns.key, () => this.#drain(ns, 'end-session')) };
  }

  /** Compacts every active turn of the namespace. Requires: the namespace's lane is held. */
  async #drain(ns: Namespace, trigger: CompactionTrigger): Promise<CompactionResult[]> {
    const out: CompactionResult[] = [];
    for (;;) {
      const turns = await storage(this.#store[activeTurnLog].read(ns.user, ns.session));
      if (turns.length === 0) return out;
      const group = scopeGroups(turns)[0]!;
      const c = await this.#compactUnlessConsumed(ns, gatedPrefix(group, this.#options.chunkGateTokens) ?? group, trigger, 1);
      if (c !== null) out.push(c);
    }
  }

  /**
   * `#compact`, or null when another process consumed some of the turns first (compacted or purged them; nothing
   * was applied): the caller reads the active chunk again. Requires: the namespace's lane is held.
   */
  async #compactUnlessConsumed(ns: Namespace, turns: readonly StoredTurn[], trigger: CompactionTrigger, attempt: number): Promise<CompactionResult | null> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.#compact(ns, turns, trigger, attempt);
      } catch (err) {
        if (isConsumedElsewhere(err)) return null;
        // A related chunk changed between the reconciliation's reads and its commit: reconcile again with what is
        // there now (a few times; under constant contention the caller gets the conflict, nothing applied).
        if (isRelatedChangedMeanwhile(err) && tries < RELATED_CHANGE_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /**
   * Compacts the pending turns of every other session of `input.user` (not `input.session`): what a new
   * conversation should be able to recall from the earlier ones even when they never reached the chunk gate or
   * an explicit `endSession`. Returns the sessions it compacted.
   */
  async endOtherSessions(input: SessionRef): Promise<{ readonly sessions: readonly string[]; readonly compacted: readonly CompactionResult[] }> {
    const ns = checkNamespace(input, SESSION_KEYS, 'endOtherSessions input');
    this.#checkWritable();
    const others = (await storage(this.#store[activeTurnLog].sessions(ns.user))).filter((s) => s !== ns.session);
    const compacted: CompactionResult[] = [];
    for (const session of others) compacted.push(...(await this.endSession({ user: ns.user, session })).compacted);
    return { sessions: others, compacted };
  }

  /** The session's active (not yet compacted) turns, oldest first. */
  async activeTurns(input: SessionRef): Promise<ActiveTurn[]> {
    const ns = checkNamespace(input, SESSION_KEYS, 'activeTurns input');
    this.#checkOpen();
    return this.#activeTurns(ns);
  }

  async #activeTurns(ns: Namespace): Promise<ActiveTurn[]> {
    const turns = await storage(this.#store[activeTurnLog].read(ns.user, ns.session));
    return turns.map(({ key: _key, ...t }) => t);
  }

  #armIdle(ns: Namespace, pending: boolean): void {
    const old = this.#idle.get(ns.key);
    if (old !== undefined) clearTimeout(old);
    this.#idle.delete(ns.key);
    if (!pending || this.#options.idleCompactMs === 0 || this.#status !== 'open') return;
    const timer = setTimeout(() => {
      this.#idle.delete(ns.key);
      if (this.#status !== 'open' || this.#store.status !== 'open') return;
      const run = this.#lanes.run(ns.key, () => this.#drain(ns, 'idle'));
      run.then(
        (compacted) => this.#idleEvents.emit(compacted),
        (err: unknown) => this.#idleEvents.fail(err),
      );
      this.#track(run);
    }, this.#options.idleCompactMs);
    timer.unref();
    this.#idle.set(ns.key, timer);
  }

  /** The idle timer's compactions as events (`memattention/internal-seams.ts`). @internal */
  get [idleCompactions](): IdleCompactions {
    return { next: () => this.#idleEvents.next() };
  }

  readonly #idleEvents = new NextEvent<CompactionResult[]>();

  /** Keeps background work for `close()` and routes its failure to onBackgroundError. */
  #track(p: Promise<unknown>): void {
    const q = p.catch((err: unknown) => this.#options.onBackgroundError(err));
    this.#background.add(q);
    void q.then(() => this.#background.delete(q));
  }

  /**
   * Query-aware retrieval (Algorithm 1 lines 14–20) plus the session's active turns; records co-access of the
   * materialized chunks and, within the rate limit, relocates the groups COLOCATE finds (Algorithm 2 lines 3–10).
   */
  async recall(input: RecallInput): Promise<RecallResult> {
    const startedAt = Date.now();
    const t0 = performance.now();
    // Read at the first receipt, when #recall has checked the input (a bad input makes no model call).
    const r = await withReceipts(() => this.#recall(input), (receipt) => this.#usage.record('recall', input.user, receipt));
    if (r.failed) throw r.error;
    const got = r.value!;
    if (this.#events.listening('recall')) {
      this.#events.emit('recall', {
        id: ulid(),
        user: input.user,
        session: input.session,
        scope: input.scope ?? this.#options.recallScope,
        startedAt,
        durationMs: performance.now() - t0,
        modelCalls: r.receipts,
        usage: sumReceipts(r.receipts),
        chunks: got.chunks.length,
        candidates: got.candidates,
        activeTurns: got.activeTurns.length,
        tokenCount: got.tokenCount,
        blocksTouched: got.blocksTouched,
      });
    }
    return got;
  }

  async #recall(input: RecallInput): Promise<RecallResult> {
    const ns = checkNamespace(input, RECALL_KEYS, 'recall input');
    if (typeof input.query !== 'string' || !input.query.isWellFormed() || Buffer.byteLength(input.query, 'utf8') > LIMITS.textBytes) {
      throw invalidArgument(`query must be a well-formed string of at most ${LIMITS.textBytes} bytes`);
    }
    const topP = intOption('topP', input.topP, 1, 64, this.#options.recallTopP);
    const budget = intOption('memoryBudgetTokens', input.memoryBudgetTokens, 0, 10_000_000, this.#options.memoryBudgetTokens);
    const scope = scopeOption('scope', input.scope, this.#options.recallScope);
    const floor = floorOption('relevanceFloor', input.relevanceFloor, this.#options.relevanceFloor);
    if (input.enableRetrieval !== undefined && typeof input.enableRetrieval !== 'boolean') throw invalidArgument('enableRetrieval must be a boolean');
    if (input.turnId !== undefined && typeof input.turnId !== 'string') throw invalidArgument('turnId must be a string');
    const filter = input.filter === undefined ? undefined : compileFilter(input.filter, 'filter');
    if (input.asOf !== undefined && (typeof input.asOf !== 'number' || !Number.isFinite(input.asOf))) throw invalidArgument('asOf must be a finite number of ms since the epoch');
    if (input.includeSuperseded !== undefined && typeof input.includeSuperseded !== 'boolean') throw invalidArgument('includeSuperseded must be a boolean');
    this.#checkOpen();

    // A recall scoped to agents or runs sees only those scopes' pending turns too.
    const inScope = compileScope(input, 'recall');
    const view = {
      scope: inScope,
      ...(input.asOf === undefined ? {} : { asOf: input.asOf }),
      ...(input.includeSuperseded === undefined ? {} : { includeSuperseded: input.includeSuperseded }),
    };
    // The session's pending turns are read while retrieval runs (two independent reads: the read of the active log
    // no longer adds its wait to the recall's). Its failure fails the recall as before, once retrieval has settled.
    const activeRead = this.#activeTurns(ns);
    const retrieval =
      input.enableRetrieval === false
        ? null
        : storage(retrieve(this.#store, this.#model, this.#options, { userId: ns.user, sessionId: ns.session, query: input.query, topP, budget, scope, floor, ...(filter === undefined ? {} : { filter }), view }, this.#pieces));
    // Handled from now on: a retrieval that fails while the turns are still being read is not an unhandled
    // rejection (it is awaited, and thrown, below).
    retrieval?.catch(() => undefined);
    let turns: ActiveTurn[];
    try {
      turns = await activeRead;
    } catch (err) {
      await retrieval?.catch(() => undefined);
      throw err;
    }
    const active = turns.filter((t) => t.turnId !== input.turnId && (inScope === null || inScope(t)));
    if (retrieval === null) {
      return { chunks: [], passages: [], text: '', tokenCount: 0, blocksTouched: 0, activeTurns: active, candidates: 0, dropped: 0, relocation: { status: 'skipped', reason: 'retrieval-disabled' } };
    }
    const got = await retrieval;
    const refs = got.chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId }));
    // A read-only store (or one latched read-only by a write error) can still be recalled from; it just learns
    // nothing about co-access.
    if (this.#store.options.readOnly || this.#store.writeError !== null) return { ...got, activeTurns: active, relocation: { status: 'skipped', reason: 'disabled' } };
    if (refs.length > 0) await storage(this.#store[trustedCalls].recordCoAccess(ns.user, refs));
    return { ...got, activeTurns: active, relocation: await this.#relocate(ns.user, got.chunks, got.blocksTouched) };
  }

  async #relocate(userId: string, chunks: readonly ChunkRecord[], blocksTouched: number): Promise<RelocationOutcome> {
    const skip = this.#relocation.admit(userId, chunks.length, blocksTouched, this.#store.options.blockCapacity);
    if (skip !== null) return skip;
    const run = this.#costedRelocation(userId, chunks);
    if (!this.#options.relocateSync) {
      this.#track(run);
      return { status: 'scheduled' };
    }
    return run;
  }

  /** One online relocation in its own receipt scope (not the recall's), with its event or error event. */
  async #costedRelocation(userId: string, chunks: readonly ChunkRecord[]): Promise<RelocationOutcome> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const r = await withReceipts(() => storage(this.#relocation.run(this.#store, this.#model, userId, chunks)), this.#usage.recorder('relocation', userId));
    const base = { id: ulid(), user: userId, startedAt, durationMs: performance.now() - t0, modelCalls: r.receipts, usage: sumReceipts(r.receipts) };
    if (r.failed) {
      const error = asAkashic(r.error);
      if (!this.#options.relocateSync) this.#lastError = { code: error.code, message: error.message, at: Date.now() };
      if (this.#events.listening('error')) this.#events.emit('error', { ...base, operation: 'relocation', error, attempt: 1, retryInMs: null });
      throw error;
    }
    const out = r.value!;
    if (out.status === 'ran' && this.#events.listening('relocation')) this.#events.emit('relocation', { ...base, groups: out.groups, moved: out.moved });
    return out;
  }

  /**
   * Every readable version of one chunk, newest first, with when and why each ended and the chunk that superseded
   * it (`AkashicStore.history`): what reconciliation changed, and into what.
   */
  async history(input: SessionRef & { readonly chunkId: string }): Promise<ChunkVersion[]> {
    const ns = checkNamespace(input, HISTORY_KEYS, 'history input');
    this.#checkOpen();
    return storage(this.#store.history(ns.user, ns.session, input.chunkId));
  }

  /**
   * Provable erasure of a user or of one session, active turns included (`AkashicStore.purge`, whose report it
   * returns). Queued work of the scope finishes first and its idle timers are cancelled, so no compaction of the
   * scope lands after the purge; a write that arrives while the purge runs lands after it.
   *
   * @throws AKASHIC_INVALID_ARGUMENT for a bad scope (nothing changes), AKASHIC_NOT_OPEN.
   */
  async purge(scope: { readonly user: string; readonly session?: string }): Promise<PurgeReport> {
    if (scope === null || typeof scope !== 'object') throw invalidArgument('scope must be { user, session? }');
    rejectUnknownKeys(scope, PURGE_KEYS, 'scope');
    const user = checkId(scope.user, 'user');
    const session = scope.session === undefined ? null : checkId(scope.session, 'session');
    this.#checkWritable();
    const mine = (key: string): boolean => (session === null ? key.startsWith(user + SEP) : key === user + SEP + session);
    for (const [key, t] of this.#idle) {
      if (!mine(key)) continue;
      clearTimeout(t);
      this.#idle.delete(key);
    }
    this.#writeBack?.cancel(mine);
    await this.#queues.drain(mine);
    await this.#lanes.drain(mine);
    const target = session === null ? { user } : { user, session };
    if (session !== null) return this.#queues.run(user + SEP + session, () => this.#lanes.run(user + SEP + session, () => this.#store.purge(target)));
    return this.#store.purge(target);
  }

  /**
   * Stops idle timers, runs the compactions the write-back queue holds and waits for them and for background
   * relocations (a compaction waiting for a retry is not retried: its turns stay durable in the active chunk and
   * resume when the next AkashicMemory opens over the store). Does not compact partial active chunks below the gate
   * and does not close the store. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#status !== 'open') return;
    this.#status = 'closing';
    for (const t of this.#idle.values()) clearTimeout(t);
    this.#idle.clear();
    await this.#writeBack?.close();
    await Promise.allSettled([this.#queues.drain(), this.#lanes.drain(), ...this.#background]);
    this.#pieces.clear();
    this.#status = 'closed';
  }
}

interface Namespace {
  readonly user: string;
  readonly session: string;
  readonly key: string;
}

/** The namespace of a queue key (ids never hold SEP). */
function namespaceOf(key: string): Namespace {
  const at = key.indexOf(SEP);
  return { user: key.slice(0, at), session: key.slice(at + SEP.length), key };
}

function asAkashic(err: unknown): AkashicError {
  return err instanceof AkashicError ? err : new AkashicError('AKASHIC_IO', String(err), { cause: err });
}

/** Compactions of the same turns tried when related memory keeps changing under their commit. */
const RELATED_CHANGE_ATTEMPTS = 4;

/** Where a failed compaction's error carries its receipts to the failure report. */
const RECEIPTS = Symbol('akashic.receipts');

const MEMORY_EVENT_NAMES: ReadonlySet<string> = new Set(['compaction', 'recall', 'relocation', 'error']);

function checkNamespace(input: SessionRef, keys: ReadonlySet<string>, what: string): Namespace {
  if (input === null || typeof input !== 'object') throw invalidArgument(`${what} must be an object with user and session`);
  rejectUnknownKeys(input, keys, what);
  const user = checkId(input.user, 'user');
  const session = checkId(input.session, 'session');
  return { user, session, key: user + SEP + session };
}

const SESSION_KEYS = keysOf<SessionRef>()('user', 'session');
const APPEND_KEYS = keysOf<SessionRef & TurnInput>()('user', 'session', 'role', 'text', 'at', 'turnId', 'agentId', 'runId');
const TURN_KEYS = keysOf<TurnInput>()('role', 'text', 'at', 'turnId', 'agentId', 'runId');
const COMPLETE_KEYS = keysOf<CompleteRequestInput>()('user', 'session', 'turns', 'enableWriteback', 'agentId', 'runId');
const RECALL_KEYS = keysOf<RecallInput>()(
  'user', 'session', 'query', 'topP', 'memoryBudgetTokens', 'scope', 'relevanceFloor', 'enableRetrieval', 'turnId', 'filter', 'agentId', 'runId', 'asOf', 'includeSuperseded',
);
const HISTORY_KEYS = keysOf<SessionRef & { readonly chunkId: string }>()('user', 'session', 'chunkId');
const PURGE_KEYS = keysOf<{ readonly user: string; readonly session?: string }>()('user', 'session');

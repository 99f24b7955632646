import type { BatchWriter } from '../kv/batch-writer.js';
import { dirKey } from '../kv/keys.js';
import { stageWrite, type Mutation, type MutationScope, type WriteExtra } from './mutations.js';
import type { MutationResult } from '../../api/results.js';
import { Txn, type TxnContext } from '../txn/txn.js';
import type { WriteLock } from '../kv/write-lock.js';

/** Mutations per group commit (a single larger write still commits, alone). */
const MAX_GROUP_MUTATIONS = 4096;

interface PendingWrite {
  readonly userId: string;
  readonly mutations: readonly Mutation[];
  readonly extra: WriteExtra | undefined;
  readonly resolve: (r: MutationResult[]) => void;
  readonly reject: (err: unknown) => void;
  /** Directory keys the write names up front (puts without an id get fresh ids and conflict with nothing). */
  readonly keys: readonly string[];
}

function knownKeys(userId: string, mutations: readonly Mutation[]): string[] {
  const out: string[] = [];
  for (const m of mutations) {
    if (m.op === 'restore') out.push(dirKey(userId, m.record.sessionId, m.record.chunkId));
    else if (m.op !== 'put' || m.chunkId !== undefined) out.push(dirKey(userId, m.sessionId, m.chunkId!));
  }
  return out;
}

/**
 * Group commit: writes queue; whoever takes the write lock next commits every write queued so far, in arrival
 * order, as few transactions as possible — one LevelDB batch and (durability 'sync') one fsync per group.
 */
export class GroupCommit {
  readonly #lock: WriteLock;
  readonly #writer: BatchWriter;
  readonly #ctx: TxnContext;
  readonly #scope: MutationScope;
  /** Writes queued for the next group commit, in arrival order. */
  #pending: PendingWrite[] = [];
  #groupScheduled = false;

  constructor(lock: WriteLock, writer: BatchWriter, ctx: TxnContext, scope: MutationScope) {
    this.#lock = lock;
    this.#writer = writer;
    this.#ctx = ctx;
    this.#scope = scope;
  }

  /** Queues one write; resolves once the group holding it is durable, rejects with that write's own error. */
  write(userId: string, mutations: readonly Mutation[], extra?: WriteExtra): Promise<MutationResult[]> {
    return new Promise<MutationResult[]>((resolve, reject) => {
      this.#pending.push({ userId, mutations, extra, resolve, reject, keys: knownKeys(userId, mutations) });
      if (!this.#groupScheduled) {
        this.#groupScheduled = true;
        // The runner never rejects: each write's outcome goes to its own promise.
        void this.#lock.run(() => this.#runGroups());
      }
    });
  }

  /**
   * REQUIRES: the write lock. Takes every write queued so far and commits them in groups, in arrival order: a
   * group is one Txn, so one LevelDB batch and (durability 'sync') one fsync for all of its writes. A group ends
   * before a write that names a chunk an earlier write of the group already touches (so a write never sees
   * another's uncommitted staging) and at `MAX_GROUP_MUTATIONS`.
   */
  async #runGroups(): Promise<void> {
    this.#groupScheduled = false;
    const queue = this.#pending;
    this.#pending = [];
    let i = 0;
    while (i < queue.length) {
      const group: PendingWrite[] = [];
      const touched = new Set<string>();
      let size = 0;
      while (i < queue.length) {
        const w = queue[i]!;
        if (group.length > 0 && (size + w.mutations.length > MAX_GROUP_MUTATIONS || w.keys.some((k) => touched.has(k)))) break;
        for (const k of w.keys) touched.add(k);
        size += w.mutations.length;
        group.push(w);
        i++;
      }
      await this.#commitGroup(group);
    }
  }

  /**
   * Stages each write of `group` behind a savepoint (a write that fails is rolled back and rejected alone), then
   * commits what remains in one batch and acknowledges every write only once that batch is durable. When the commit
   * fails before the batch reached LevelDB, the writes are retried one by one, so a write that cannot be committed
   * fails alone; a failure of the batch itself fails the whole group (nothing of it applied).
   */
  async #commitGroup(group: readonly PendingWrite[]): Promise<void> {
    try {
      this.#writer.check(); // latched after a storage write error: refuse before staging anything
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    const txn = new Txn(this.#ctx);
    const staged: { w: PendingWrite; results: MutationResult[] }[] = [];
    for (const w of group) {
      const sp = txn.savepoint();
      try {
        staged.push({ w, results: await stageWrite(this.#scope, txn, w.userId, w.mutations, w.extra) });
      } catch (err) {
        txn.rollback(sp);
        w.reject(err);
      }
    }
    if (staged.length === 0) return;
    try {
      await txn.commit();
    } catch (err) {
      if (!txn.batchAttempted && staged.length > 1) {
        for (const s of staged) await this.#commitGroup([s.w]);
        return;
      }
      for (const s of staged) s.w.reject(err);
      return;
    }
    for (const s of staged) s.w.resolve(s.results);
  }
}

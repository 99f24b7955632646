import type { BatchWriter } from '../kv/batch-writer.js';
import { dirKey } from '../kv/keys.js';
import { stageWrite, type Mutation, type MutationScope, type WriteExtra } from './mutations.js';
import { isCorruption, retryOnConflict } from './fenced-write.js';
import { fenceConflict } from '../kv/partition-fencing.js';
import type { MutationResult } from '../../api/results.js';
import type { DeferredSync } from '../frame-store.js';
import { Txn, type PreparedCommit, type TxnContext } from '../txn/txn.js';
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
    // A chunk named in `supersedes` is retired by this write (mutations.ts), so it is touched too.
    if ((m.op === 'put' || m.op === 'update') && m.content.supersedes !== undefined) {
      for (const r of m.content.supersedes) out.push(dirKey(userId, r.sessionId, r.chunkId));
    }
  }
  return out;
}

/**
 * Group commit: writes queue; whoever takes the write lock next commits every write queued so far, in arrival
 * order, as few transactions as possible — one transaction per user of the group, so every batch stays in one
 * user's partition; on LevelDB their batches are written together (one fsync per group).
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
   * Commits `group`: its writes are bucketed by user (arrival order kept within a user) into one Txn per user, each
   * write staged behind a savepoint (a write that fails is rolled back and rejected alone); every write is
   * acknowledged only once its user's batch is durable.
   *
   * Without partitions (LevelDB, memory-level) the users' batches are written as one batch: one write and one fsync
   * for the group. When building them fails before anything was written, the writes are retried one by one, so a
   * write that cannot be committed fails alone; a failure of the batch itself fails the whole group.
   *
   * On a partitioned backend each user's batch is written alone, atomically in that user's partition; with fencing
   * it is fenced at the user's version, and a user whose batch conflicts (another process wrote the user) has its
   * cached state dropped and its writes staged again (fenced-write.ts); the other users' writes are not affected.
   */
  async #commitGroup(group: readonly PendingWrite[]): Promise<void> {
    try {
      this.#writer.check(); // latched after a storage write error: refuse before staging anything
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    const byUser = new Map<string, PendingWrite[]>();
    for (const w of group) {
      const list = byUser.get(w.userId);
      if (list === undefined) byUser.set(w.userId, [w]);
      else list.push(w);
    }
    if (this.#ctx.users.partitioned) {
      for (const [userId, writes] of byUser) await this.#commitUser(userId, writes);
      return;
    }
    const txns: { txn: Txn; staged: Staged[] }[] = [];
    for (const [userId, writes] of byUser) {
      const txn = new Txn(this.#ctx, userId, await this.#ctx.users.load(userId));
      const staged = await this.#stage(txn, writes);
      if (staged.length > 0) txns.push({ txn, staged });
    }
    const all = txns.flatMap((t) => t.staged);
    if (all.length === 0) return;
    const prepared: PreparedCommit[] = [];
    // Frames kept outside the batch (frame files) are written by each prepare and synced once for the group.
    const deferred: DeferredSync = { pending: new Set() };
    try {
      for (const t of txns) prepared.push(await t.txn.prepare(deferred));
      try {
        await this.#ctx.frames.syncDeferred(deferred);
      } catch (err) {
        throw this.#writer.fail(err);
      }
    } catch (err) {
      prepared.forEach((p, i) => txns[i]!.txn.abort(p));
      if (all.length > 1 && this.#writer.failure === null) {
        for (const s of all) await this.#commitGroup([s.w]);
        return;
      }
      for (const s of all) s.w.reject(err);
      return;
    }
    try {
      await this.#writer.write(prepared.length === 1 ? prepared[0]!.ops : prepared.flatMap((p) => p.ops));
    } catch (err) {
      prepared.forEach((p, i) => txns[i]!.txn.abort(p));
      for (const s of all) s.w.reject(err);
      return;
    }
    for (let i = 0; i < txns.length; i++) await txns[i]!.txn.publish(prepared[i]!);
    for (const s of all) s.w.resolve(s.results);
  }

  /**
   * Stages `writes` in `txn`, each behind a savepoint; a write that fails is rolled back and rejected alone — or,
   * with `failed`, collected there for the caller to reject.
   */
  async #stage(txn: Txn, writes: readonly PendingWrite[], failed?: { w: PendingWrite; err: unknown }[]): Promise<Staged[]> {
    const staged: Staged[] = [];
    for (const w of writes) {
      const sp = txn.savepoint();
      try {
        staged.push({ w, results: await stageWrite(this.#scope, txn, w.userId, w.mutations, w.extra) });
      } catch (err) {
        txn.rollback(sp);
        if (failed === undefined) w.reject(err);
        else failed.push({ w, err });
      }
    }
    return staged;
  }

  /**
   * One user's writes of a group on a partitioned backend: one Txn, one batch in the user's partition, staged again over
   * fresh reads after a conflict (`retryOnConflict`). When the commit fails otherwise before its batch was attempted,
   * the writes are retried one by one, so a write that cannot be committed fails alone.
   */
  async #commitUser(userId: string, writes: readonly PendingWrite[]): Promise<void> {
    let remaining = writes;
    let staged: Staged[] = [];
    let txn: Txn | null = null;
    let freshTried = false;
    try {
      await retryOnConflict(this.#ctx, userId, async () => {
        txn = new Txn(this.#ctx, userId, await this.#ctx.users.load(userId));
        const failed: { w: PendingWrite; err: unknown }[] = [];
        staged = await this.#stage(txn, remaining, failed);
        // Staging reads the user in several commands; a commit of another process landing between them (a block
        // released after the directory pointed into it) fails a write that is valid. When the user moved during
        // this attempt, every write of it is staged again from fresh reads.
        // Damage met over what this process cached, with the user unchanged: staged once more from fresh reads
        // (every cache of the user dropped, as after a conflict); damage met again is the write's error.
        if (failed.length > 0 && this.#ctx.users.fenced) {
          const moved = !(await this.#ctx.users.current(userId));
          const suspect = !moved && !freshTried && failed.some((f) => isCorruption(f.err));
          if (moved || suspect) {
            freshTried ||= suspect;
            const why = moved ? 'changed while its writes were staged' : 'met damage over cached state: staged again from fresh reads';
            throw fenceConflict(`user ${JSON.stringify(userId)} ${why}`, failed[0]!.err);
          }
        }
        for (const f of failed) f.w.reject(f.err);
        remaining = staged.map((s) => s.w); // writes that failed staging were rejected for good
        if (staged.length > 0) await txn.commit();
      });
    } catch (err) {
      const attempted = (txn as Txn | null)?.batchAttempted ?? true;
      if (!attempted && staged.length > 1) {
        for (const s of staged) await this.#commitUser(userId, [s.w]);
        return;
      }
      for (const s of staged) s.w.reject(err);
      return;
    }
    for (const s of staged) s.w.resolve(s.results);
  }
}

/** A write staged in its user's Txn, with the results to acknowledge once the batch is durable. */
interface Staged {
  readonly w: PendingWrite;
  readonly results: MutationResult[];
}

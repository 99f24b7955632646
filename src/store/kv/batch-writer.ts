import type { AbstractBatchOperation, AbstractChainedBatch } from 'abstract-level';
import { AkashicError } from '../../errors.js';
import { isNotOpen, storageError } from './level-errors.js';
import { writeOptions, type AnyLevel, type ResolvedStoreOptions } from '../../api/store-options.js';
import { fenceConflict, isConflict, type Fence } from './partition-fencing.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BatchOp = AbstractBatchOperation<any, string, Buffer>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ChainedBatch = AbstractChainedBatch<any, string, Buffer>;

/** Encodings of every operation: the families are utf8-keyed, Buffer-valued; a caller's database may default otherwise. */
const OP_ENCODINGS = Object.freeze({ keyEncoding: 'utf8', valueEncoding: 'buffer' });

/**
 * Adds `ops` to a chained batch of the root database, each family's prefix prepended to its key. Why not
 * `db.batch(array)` with `sublevel` operations: abstract-level resolves a `sublevel` operation per operation
 * (descendant check, prefixing, encodings) and the array form copies every operation twice more (abstract-level's
 * checks, then the binding reading each object's properties), which cost several times LevelDB's own write on the
 * profiled ingest path (a posting merge is ~10k operations). The families are direct children of the root with utf8
 * keys, so their prefix is a plain string (`!name!`) and the resulting keys are the same bytes.
 */
function fillBatch(batch: ChainedBatch, ops: readonly BatchOp[], encodings: typeof OP_ENCODINGS | undefined): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const family = op.sublevel as { prefix: string } | undefined;
    const key = family === undefined || family === null ? op.key : family.prefix + op.key;
    if (encodings === undefined) {
      if (op.type === 'put') batch.put(key, op.value);
      else batch.del(key);
    } else if (op.type === 'put') batch.put(key, op.value, encodings);
    else batch.del(key, encodings);
  }
}

/**
 * The one place the engine's writes reach the key-value store, and the **write-error latch**.
 *
 * Why a latch: LevelDB (1.20, as bundled by classic-level) keeps accepting writes after an append to its log
 * failed (ENOSPC, EIO). The failed append can leave a torn record in the middle of the log, and recovery then drops
 * the rest of that log block — including writes acknowledged after the failure. So after the first failed write
 * every later write is refused with `AKASHIC_READ_ONLY` until the store is closed and reopened (reopening replays
 * the log up to the torn record, which was never acknowledged). Reads keep working.
 *
 * Every write path (transactions, active turns, co-access counters, counter flushes, engine meta) calls `write`,
 * so anything built on this (group commit included) inherits the latch. Writes are serialized by the caller (the
 * store's write lock); the latch itself needs no lock.
 */
export class BatchWriter {
  readonly #db: AnyLevel;
  readonly #options: ResolvedStoreOptions;
  #failure: AkashicError | null = null;

  /** Per-operation encodings, or undefined when the database's defaults are those already (no per-op lookups). */
  readonly #encodings: typeof OP_ENCODINGS | undefined;

  constructor(db: AnyLevel, options: ResolvedStoreOptions) {
    this.#db = db;
    this.#options = options;
    const defaults = db.keyEncoding().commonName === 'utf8' && db.valueEncoding().commonName === 'buffer';
    this.#encodings = defaults ? undefined : OP_ENCODINGS;
  }

  /** Batches writing a watched family started and not yet finished (written, failed or refused). */
  #inFlight = 0;
  /** Moves when a batch writing a watched family finishes (see `generation`). */
  #finished = 0;
  /** The families `generation` follows; null: all of them. */
  #watched: ReadonlySet<unknown> | null = null;

  /**
   * Makes `generation` follow only batches with an operation on one of `families` (the column families a memo
   * reads: the directory and the candidate index), so active-turn appends and co-access counts do not move it.
   */
  watch(families: readonly object[]): void {
    this.#watched = new Set(families);
  }

  /**
   * A value that changes whenever a batch writing a watched family finishes, or null while one is in flight: two
   * reads of those families that saw the same value, each in the same synchronous step as its snapshot, read the
   * same data (the engine is the only writer of a database it holds, and every batch goes through here). Readers'
   * memos key on it (candidate-read-memo.ts).
   */
  generation(): string | null {
    return this.#inFlight > 0 ? null : String(this.#finished);
  }

  #writesWatched(ops: readonly BatchOp[]): boolean {
    const watched = this.#watched;
    if (watched === null) return true;
    for (let i = 0; i < ops.length; i++) {
      // An operation on a root key (no family) may be any family's: counted as watched.
      const family = ops[i]!.sublevel;
      if (family === undefined || family === null || watched.has(family)) return true;
    }
    return false;
  }

  /** The write error that latched the store read-only, or null while writes are allowed. */
  get failure(): AkashicError | null {
    return this.#failure;
  }

  /** Throws AKASHIC_READ_ONLY once a write has failed. Callers may check early, before staging work. */
  check(): void {
    if (this.#failure !== null) {
      throw new AkashicError(
        'AKASHIC_READ_ONLY',
        `the store refuses writes since a storage write failed (${this.#failure.message}); close and reopen it to recover`,
        { cause: this.#failure },
      );
    }
  }

  /**
   * Latches the store read-only after a storage write that failed outside the batch (the frame files written just
   * before it), and returns the AKASHIC_IO error to throw.
   */
  fail(err: unknown): AkashicError {
    const message = err instanceof Error ? err.message : String(err);
    this.#failure ??= new AkashicError('AKASHIC_IO', `storage write failed: ${message}`, { cause: err });
    return new AkashicError('AKASHIC_IO', `storage write failed: ${message}; the store refuses writes until it is closed and reopened`, { cause: err });
  }

  /**
   * Writes `ops` as one atomic batch, durable per the store's durability option when it resolves. On failure the
   * outcome of this batch is unknown (it may or may not be in the log), the latch closes, and AKASHIC_IO is thrown.
   * With `fence` (a partitioned backend with fencing, `partition-fencing.ts`; every op then lies in that partition)
   * the batch applies only while the partition is at that version: otherwise AKASHIC_CONFLICT, nothing applied and
   * no latch (the caller reloads and stages again). Resolves to the partition's new version (fenced batches).
   */
  async write(ops: readonly BatchOp[], fence?: Fence): Promise<string | undefined> {
    this.check();
    if (ops.length === 0) return fence?.version;
    let batch: ChainedBatch | null = null;
    const watched = this.#writesWatched(ops);
    if (watched) this.#inFlight++;
    try {
      batch = this.#db.batch() as unknown as ChainedBatch;
      fillBatch(batch, ops, this.#encodings);
      const options = writeOptions(this.#options);
      if (fence === undefined) await batch.write(options);
      else {
        const versions = new Map<string, string>();
        await batch.write({ ...options, expectVersion: fence, versions } as unknown as typeof options);
        return versions.get(fence.partition);
      }
    } catch (err) {
      // A batch that failed before its write is dropped (nothing of it reached the log); close() is idempotent.
      void batch?.close().catch(() => undefined);
      if (fence !== undefined && isConflict(err)) throw fenceConflict(`partition ${JSON.stringify(fence.partition)} moved since version ${fence.version}`, err);
      // A database closed under a racing write is a lifecycle error, not a storage failure: nothing was written.
      if (isNotOpen(err)) throw storageError(err);
      const message = err instanceof Error ? err.message : String(err);
      this.#failure = new AkashicError('AKASHIC_IO', `storage write failed: ${message}`, { cause: err });
      throw new AkashicError('AKASHIC_IO', `storage write failed: ${message}; the store refuses writes until it is closed and reopened`, {
        cause: err,
      });
    } finally {
      if (watched) {
        this.#inFlight--;
        this.#finished++;
      }
    }
    return undefined;
  }
}

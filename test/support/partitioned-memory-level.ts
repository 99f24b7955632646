/**
 * A real test double at the storage boundary: memory-level that behaves as a partitioned backend does. Every batch
 * is checked to fall in ONE partition (the backends' partition rule, `backend/partition.ts`, as a Redis backend places keys in hash
 * slots) and recorded. With fencing on it announces `supports.partitionVersions` and keeps a version per partition
 * that every batch writing the partition moves; a batch carrying `expectVersion` applies only while its partition
 * is at that version, else it is rejected with AKASHIC_CONFLICT and nothing applies; the batch's `versions` map
 * gets the new version — the contract the Redis backend's Lua script gives, down to its version values: a partition
 * starts at the clock (µs) when a batch creates it and moves by one per batch, and one that a batch leaves empty
 * reports '0' again (so '0' repeats, as on Redis). Two AkashicStores opened over one
 * instance are two processes sharing one store (each with its own caches).
 */
import { MemoryLevel } from 'memory-level';
import { AkashicError } from '../../src/errors.js';
import { partitionOf } from '../../src/backend/partition.js';

export interface RecordedBatch {
  /** The partitions the batch's keys fall in (the contract: exactly one). */
  readonly partitions: readonly string[];
  readonly fenced: boolean;
  readonly ops: number;
}

function text(k: unknown): string {
  return typeof k === 'string' ? k : Buffer.from(k as Uint8Array).toString('utf8');
}

export class PartitionedMemoryLevel extends MemoryLevel<string, Buffer> {
  readonly batches: RecordedBatch[] = [];
  readonly #versions = new Map<string, bigint>();
  /** The keys each partition holds, so that a partition a batch empties reports '0' as the Redis backend does. */
  readonly #keys = new Map<string, Set<string>>();
  /** The last version a fresh partition started at (the Redis script starts one at the server clock in µs). */
  #clock = 0n;
  /** Fenced batches refused because their partition had moved. */
  conflicts = 0;
  /** Partitions (user ids) whose fenced batches are all refused, as if other writers always moved them first. */
  readonly refuseFenced = new Set<string>();

  constructor(opts: { fencing: boolean }) {
    super({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const supports = this.supports as unknown as Record<string, unknown>;
    supports['partitions'] = true;
    if (opts.fencing) supports['partitionVersions'] = true;
  }

  async partitionVersion(partition: string): Promise<string> {
    return String(this.#versions.get(partition) ?? 0n);
  }

  /** abstract-level's private batch hook (not in memory-level's typings): every batch of the store lands here. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the hook's operations are untyped in the typings
  async _batch(operations: any[], options: unknown): Promise<void> {
    const partitions = [...new Set(operations.map((op: { key: unknown }) => partitionOf(text(op.key))))];
    const o = options as { expectVersion?: { partition: string; version: string }; versions?: Map<string, string> } | undefined;
    const fence = o?.expectVersion;
    this.batches.push({ partitions, fenced: fence !== undefined, ops: operations.length });
    if (partitions.length > 1) throw new Error(`a batch spans partitions ${JSON.stringify(partitions)}`);
    const partition = partitions[0];
    if (fence !== undefined) {
      if (partition !== undefined && partition !== fence.partition) throw new Error(`a batch fenced on ${JSON.stringify(fence.partition)} writes ${JSON.stringify(partition)}`);
      const now = String(this.#versions.get(fence.partition) ?? 0n);
      if (now !== fence.version || this.refuseFenced.has(fence.partition)) {
        this.conflicts++;
        throw new AkashicError('AKASHIC_CONFLICT', `partition ${JSON.stringify(fence.partition)} is at version ${now}, not ${fence.version}`);
      }
    }
    if (partition !== undefined) {
      const cur = this.#versions.get(partition);
      let next: bigint;
      if (cur !== undefined) next = cur + 1n;
      else next = this.#clock = BigInt(Date.now()) * 1000n > this.#clock ? BigInt(Date.now()) * 1000n : this.#clock + 1n;
      let held = this.#keys.get(partition);
      if (held === undefined) this.#keys.set(partition, (held = new Set()));
      for (const op of operations as { type: string; key: unknown }[]) {
        if (op.type === 'put') held.add(text(op.key));
        else held.delete(text(op.key));
      }
      // A partition left empty holds no version: it reports '0' until a batch creates it again.
      if (held.size === 0) {
        this.#keys.delete(partition);
        this.#versions.delete(partition);
      } else this.#versions.set(partition, next);
      o?.versions?.set(partition, String(next));
    }
    const base = (MemoryLevel.prototype as unknown as { _batch: (ops: unknown[], o: unknown) => Promise<void> })._batch;
    return base.call(this, operations, options);
  }
}

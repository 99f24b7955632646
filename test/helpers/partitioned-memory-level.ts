/**
 * A real test double at the storage boundary: memory-level that behaves as a partitioned backend does. Every batch
 * is checked to fall in ONE partition (the engine's `partitionOfRootKey`, as a Redis backend places keys in hash
 * slots) and recorded; with fencing on, it announces `supports.partitionFencing`, keeps a version per partition, and
 * applies a batch carrying a `fence` only while its partition is at that version (then bumps it), else rejects it
 * with AKASHIC_CONFLICT and applies nothing — the contract a Redis backend's Lua script gives. Two AkashicStores
 * opened over one instance are two processes sharing one store (each with its own caches).
 */
import { MemoryLevel } from 'memory-level';
import { AkashicError } from '../../src/errors.js';
import { partitionOfRootKey } from '../../src/store/kv/keys.js';

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
  readonly #versions = new Map<string, number>();
  /** Fenced batches refused because their partition had moved. */
  conflicts = 0;

  constructor(opts: { fencing: boolean }) {
    super({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const supports = this.supports as unknown as Record<string, unknown>;
    supports['partitions'] = true;
    if (opts.fencing) supports['partitionFencing'] = true;
  }

  async partitionVersion(partition: string): Promise<number> {
    return this.#versions.get(partition) ?? 0;
  }

  /** abstract-level's private batch hook (not in memory-level's typings): every batch of the store lands here. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the hook's operations are untyped in the typings
  async _batch(operations: any[], options: unknown): Promise<void> {
    const partitions = [...new Set(operations.map((op: { key: unknown }) => partitionOfRootKey(text(op.key))))];
    const fence = (options as { fence?: { partition: string; version: number } } | undefined)?.fence;
    this.batches.push({ partitions, fenced: fence !== undefined, ops: operations.length });
    if (partitions.length > 1) throw new Error(`a batch spans partitions ${JSON.stringify(partitions)}`);
    if (fence !== undefined) {
      if (partitions[0] !== undefined && partitions[0] !== fence.partition) throw new Error(`a batch fenced on ${JSON.stringify(fence.partition)} writes ${JSON.stringify(partitions[0])}`);
      const now = this.#versions.get(fence.partition) ?? 0;
      if (now !== fence.version) {
        this.conflicts++;
        throw new AkashicError('AKASHIC_CONFLICT', `partition ${JSON.stringify(fence.partition)} is at version ${now}, not ${fence.version}`);
      }
      this.#versions.set(fence.partition, now + 1);
    }
    const base = (MemoryLevel.prototype as unknown as { _batch: (ops: unknown[], o: unknown) => Promise<void> })._batch;
    return base.call(this, operations, options);
  }
}

import type { AbstractLevel } from 'abstract-level';

/**
 * Write-error injection through the abstract-level seam: wraps the root database's private write hooks (`_put`,
 * `_del`, `_batch`, `_clear`, and the `_write` of every chained batch `_chainedBatch` makes; every sublevel write
 * reaches one of them) so that chosen writes fail the way a full disk fails LevelDB's log append. Works on any backend. `failAt(n)` arms a failure of the n-th write from now
 * (1 = the next one); `writes` counts writes seen.
 */
export interface WriteFaults {
  readonly writes: number;
  failAt(n: number, times?: number): void;
  disarm(): void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the hooks are untyped private methods
export function injectWriteFaults(db: AbstractLevel<any, any, any>, message = 'IO error: /db/000005.log: No space left on device'): WriteFaults {
  let writes = 0;
  let armedAt = -1;
  let remaining = 0;
  // A backend without its own chained batch (memory-level) writes one through `_batch`: counted once, by the batch.
  let inChainedWrite = false;
  const countWrite = (): void => {
    writes++;
    if (remaining > 0 && writes >= armedAt) {
      remaining--;
      const err = new Error(message) as Error & { code?: string };
      err.code = 'LEVEL_IO_ERROR';
      throw err;
    }
  };
  const hooked = db as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['_put', '_del', '_batch', '_clear']) {
    const original = hooked[name]!.bind(db);
    hooked[name] = async (...args: unknown[]) => {
      if (!inChainedWrite) countWrite();
      return original(...args);
    };
  }
  const chainedBatch = hooked['_chainedBatch']!.bind(db);
  hooked['_chainedBatch'] = (...args: unknown[]) => {
    const batch = chainedBatch(...args) as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const write = batch['_write']!.bind(batch);
    batch['_write'] = async (...a: unknown[]) => {
      countWrite();
      inChainedWrite = true;
      try {
        return write(...a);
      } finally {
        inChainedWrite = false;
      }
    };
    return batch;
  };
  return {
    get writes() {
      return writes;
    },
    failAt(n, times = 1) {
      armedAt = writes + n;
      remaining = times;
    },
    disarm() {
      remaining = 0;
    },
  };
}

/**
 * How failures of the layers below surface from MemAttention: as AkashicError with a stable code and the original
 * error as `cause`, the same mapping AkashicStore applies to its own calls.
 * @internal
 */
import { AkashicError, isAkashicError } from '../errors.js';

/** Errors from the key-value store become AkashicError (a closed database as AKASHIC_NOT_OPEN). */
export function storageError(err: unknown): unknown {
  if (isAkashicError(err)) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'LEVEL_CORRUPTION') return new AkashicError('AKASHIC_CORRUPTION', `storage corruption: ${(err as Error).message}`, { cause: err });
  // A database (or an iterator over it) closed under a racing call: a lifecycle error, not an I/O failure.
  if (code === 'LEVEL_DATABASE_NOT_OPEN' || code === 'LEVEL_ITERATOR_NOT_OPEN') return new AkashicError('AKASHIC_NOT_OPEN', 'database is not open', { cause: err });
  if (err instanceof Error) return new AkashicError('AKASHIC_IO', err.message, { cause: err });
  return err;
}

/** Runs a storage operation, mapping what it rejects with through `storageError`. */
export async function storage<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw storageError(err);
  }
}

/** A model answer that breaks the MemoryModel contract: nothing is applied. */
export function modelContract(model: string, what: string, detail: string): AkashicError {
  return new AkashicError('AKASHIC_MODEL', `model ${model} ${what}: ${detail}`);
}

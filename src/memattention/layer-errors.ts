/**
 * How failures of the layers below surface from MemAttention: as AkashicError with a stable code and the original
 * error as `cause`, the same mapping AkashicStore applies to its own calls.
 * @internal
 */
import { AkashicError } from '../errors.js';
import { storageError } from '../engine/internal-seams.js';

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

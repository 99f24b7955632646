/**
 * Argument checks shared by every `MemoryModel` implementation, so that the embedded and the LLM path reject the
 * same misuse with the same `AKASHIC_INVALID_ARGUMENT` error before doing any work.
 *
 * @internal
 */
import { invalidArgument } from '../errors.js';

/** `topP` of SELECT: a non-negative integer (0 selects nothing). */
export function checkTopP(topP: number): void {
  if (!Number.isSafeInteger(topP) || topP < 0) {
    throw invalidArgument(`topP must be a non-negative integer, got ${String(topP)}`);
  }
}

/** An association threshold: a finite number in [0, 1]. */
export function checkThreshold(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw invalidArgument(`${name} must be a number in [0, 1], got ${String(value)}`);
  }
}

/** Ids are the only way results refer back to inputs, so duplicates would make a result ambiguous. */
export function checkUniqueIds(what: string, items: readonly { readonly id: string }[]): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (typeof item.id !== 'string' || item.id.length === 0) {
      throw invalidArgument(`${what}: every id must be a non-empty string`);
    }
    if (seen.has(item.id)) throw invalidArgument(`${what}: duplicate id ${JSON.stringify(item.id)}`);
    seen.add(item.id);
  }
}

import type { AbstractSnapshot } from 'abstract-level';
import type { Family } from '../kv/column-families.js';

/** Keys per concurrent read below which splitting does not pay (each read is a round trip of its own). */
const MIN_KEYS_PER_READ = 48;

/** Concurrent reads at most: the size of libuv's default thread pool, which runs classic-level's reads. */
const MAX_READS = 4;

/**
 * `family.getMany(keys, { snapshot })`, issued as up to four concurrent `getMany` calls over runs of the keys in key
 * order. classic-level serves one `getMany` on one thread-pool thread, key after key, so a cold read of a few hundred
 * directory entries waits on every page fault and table-block load in turn; split into runs of neighbouring keys,
 * the runs wait in parallel and each still finds its neighbours' blocks loaded. Fewer than 2 × 48 keys are read
 * with one call. Same values, in the order of `keys`, all from `snapshot`.
 * @internal
 */
export async function spreadGetMany(family: Family, keys: readonly string[], snapshot: AbstractSnapshot | undefined): Promise<(Buffer | undefined)[]> {
  const reads = Math.min(MAX_READS, Math.floor(keys.length / MIN_KEYS_PER_READ));
  const options = snapshot === undefined ? {} : { snapshot };
  if (reads < 2) return family.getMany([...keys], options);
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  const per = Math.ceil(order.length / reads);
  const parts: number[][] = [];
  for (let at = 0; at < order.length; at += per) parts.push(order.slice(at, at + per));
  const got = await Promise.all(parts.map((part) => family.getMany(part.map((i) => keys[i]!), options)));
  const out = new Array<Buffer | undefined>(keys.length);
  parts.forEach((part, p) => part.forEach((i, j) => (out[i] = got[p]![j])));
  return out;
}

import type { AbstractSnapshot } from 'abstract-level';
import { crc32 } from 'node:zlib';
import { checkIndexEntry } from '../../record/index-records.js';
import { entryKeys, type IndexedChunk } from '../index/candidate-index.js';
import type { Family } from '../kv/column-families.js';
import { SEP } from '../kv/keys.js';
import { resilientEntries } from '../read/resilient-scan.js';

/**
 * An order-independent digest of a set of keys: count, sum and xor of two different CRC-32s. Two sets with equal
 * digests are equal but for a ~2^-64 accident; the check needs O(1) memory however many keys there are.
 * @internal
 */
export class KeySetDigest {
  count = 0;
  #sum = 0;
  #xor = 0;

  add(key: string): void {
    const b = Buffer.from(key, 'utf8');
    this.count++;
    this.#sum = (this.#sum + crc32(b)) >>> 0;
    this.#xor = (this.#xor ^ crc32(b, 0x9e3779b9)) >>> 0;
  }

  /** Adds the keys the chunk has in the index, posted (postings) or pending (a pending key). */
  addChunk(c: IndexedChunk, posted: boolean): void {
    for (const k of entryKeys(c, posted)) this.add(k);
  }

  equals(o: KeySetDigest): boolean {
    return this.count === o.count && this.#sum === o.#sum && this.#xor === o.#xor;
  }
}

export interface IndexProblem {
  readonly message: string;
  readonly key?: string;
}

/** Counts consecutive keys of one family prefix by their first `depth` components after the prefix. */
async function* runs(
  family: Family,
  tag: string,
  depth: number,
  snapshot: AbstractSnapshot,
  onKey: (k: string, v: Buffer) => void,
  onError: (err: unknown) => void,
): AsyncGenerator<[string, number]> {
  let group: string | null = null;
  let n = 0;
  for await (const [k, v] of resilientEntries(family, { gte: tag + SEP, lt: tag + '\u0001', snapshot }, onError)) {
    onKey(k, v);
    const g = k.split(SEP).slice(1, 1 + depth).join(SEP);
    if (g !== group) {
      if (group !== null) yield [group, n];
      group = g;
      n = 0;
    }
    n++;
  }
  if (group !== null) yield [group, n];
}

/**
 * Checks the candidate index against the directory (docs/format.md, "Candidate index"):
 *   - the entry keys (recency, session recency, pending keys, postings) are exactly those the live directory
 *     entries imply — compared through `expected`, the digest the caller built while walking the directory (a chunk
 *     with a pending key is expected to have no postings, any other live chunk its postings);
 *   - every entry value is an empty index entry;
 *   - it holds nothing else but the counters of formats 2-4 (format 5 keeps none; a writable open drops them).
 * Memory: O(1) besides the digests.
 * @internal
 */
export async function verifyCandidateIndex(family: Family, snapshot: AbstractSnapshot, expected: KeySetDigest, add: (p: IndexProblem) => void): Promise<void> {
  const actual = new KeySetDigest();
  const onError = (err: unknown): void => add({ message: `candidate index: read failed: ${err instanceof Error ? err.message : String(err)}` });
  let badValues = 0;
  const entry = (k: string, v: Buffer): void => {
    actual.add(k);
    try {
      checkIndexEntry(v, `candidate index entry ${JSON.stringify(k)}`);
    } catch (err) {
      if (badValues++ < 10) add({ message: err instanceof Error ? err.message : String(err), key: k });
    }
  };
  for (const tag of ['k', 'r', 'q', 's']) for await (const _ of runs(family, tag, 1, snapshot, entry, onError)) void _;
  // Anything outside the four lists is named, a few at most.
  let stray = 0;
  const gaps: { gte?: string; lt?: string }[] = [{ lt: 'k' + SEP }, { gte: 'k\u0001', lt: 'q' + SEP }, { gte: 'q\u0001', lt: 'r' + SEP }, { gte: 'r\u0001', lt: 's' + SEP }, { gte: 's\u0001' }];
  for (const gap of gaps) {
    for await (const k of family.keys({ ...gap, snapshot })) {
      // Counters of formats 2-4 (`f`, `n`): nothing reads them; a read-only open leaves them, a writable one drops them.
      if (k.startsWith('f' + SEP) || k.startsWith('n' + SEP)) continue;
      if (stray++ < 10) add({ message: `candidate index: key ${JSON.stringify(k)} belongs to no index list`, key: k });
    }
  }
  if (!actual.equals(expected)) {
    add({
      message: `candidate index: its ${actual.count} entry keys are not the ${expected.count} the directory implies (rebuild it: open the database with a release that rebuilds, or remove meta/cidx and reopen)`,
    });
  }
}

/** The pending keys of the index in `snapshot` (verify's expectation of which chunks are not posted yet). */
export async function pendingKeySet(family: Family, snapshot: AbstractSnapshot): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const k of family.keys({ gte: 'q' + SEP, lt: 'q\u0001', snapshot })) out.add(k);
  return out;
}

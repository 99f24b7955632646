import type { AbstractSnapshot } from 'abstract-level';
import { crc32 } from 'node:zlib';
import { decodeIndexStats, checkIndexEntry } from '../record/index-records.js';
import { entryKeys, type IndexedChunk } from './candidate-index.js';
import type { Family } from './column-families.js';
import { SEP } from './keys.js';
import { resilientEntries } from './resilient-scan.js';

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

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

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
 *   - each document-frequency counter equals the number of postings of its keyword, and each per-kind counter the
 *     number of posted chunks (recency keys minus pending keys) and postings of its user and kind.
 * Memory: O(users × kinds) for the per-kind totals; postings and counters are compared as two ordered streams.
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
  const keywordTotals = new Map<string, number>();
  const docTotals = new Map<string, number>();

  // Postings (k␀user␀kind␀keyword␀…) against the df counters (f␀user␀kind␀keyword), merged in key order.
  const postings = runs(family, 'k', 3, snapshot, entry, onError);
  const counters = resilientEntries(family, { gte: 'f' + SEP, lt: 'f\u0001', snapshot }, onError);
  let p = await postings.next();
  let c = await counters.next();
  while (!p.done || !c.done) {
    const pg = p.done ? null : p.value[0];
    const cg = c.done ? null : c.value[0].slice(2);
    const order = pg === null ? 1 : cg === null ? -1 : byteOrder(pg, cg);
    if (order <= 0 && !p.done) {
      const uk = pg!.slice(0, pg!.lastIndexOf(SEP));
      keywordTotals.set(uk, (keywordTotals.get(uk) ?? 0) + p.value[1]);
    }
    if (order === 0 && !p.done && !c.done) {
      const stored = decodeStats(c.value[0], c.value[1], add);
      if (stored !== null && stored !== p.value[1]) add({ message: `candidate index: df counter ${JSON.stringify(c.value[0])} is ${stored}, postings count ${p.value[1]}`, key: c.value[0] });
    } else if (order < 0) {
      add({ message: `candidate index: keyword ${JSON.stringify(pg)} has ${p.value![1]} postings and no df counter` });
    } else if (!c.done) {
      add({ message: `candidate index: df counter ${JSON.stringify(c.value[0])} has no postings`, key: c.value[0] });
    }
    if (order <= 0) p = await postings.next();
    if (order >= 0) c = await counters.next();
  }
  // The per-kind counters count posted chunks: recency keys minus pending keys.
  for await (const [g, n] of runs(family, 'r', 2, snapshot, entry, onError)) docTotals.set(g, n);
  for await (const [g, n] of runs(family, 'q', 2, snapshot, entry, onError)) docTotals.set(g, (docTotals.get(g) ?? 0) - n);
  for await (const _ of runs(family, 's', 1, snapshot, entry, onError)) void _;

  for await (const [k, v] of resilientEntries(family, { gte: 'n' + SEP, lt: 'n\u0001', snapshot }, onError)) {
    const g = k.slice(2);
    let s;
    try {
      s = decodeIndexStatsFull(k, v);
    } catch (err) {
      add({ message: err instanceof Error ? err.message : String(err), key: k });
      continue;
    }
    const docs = docTotals.get(g) ?? 0;
    const kws = keywordTotals.get(g) ?? 0;
    docTotals.delete(g);
    keywordTotals.delete(g);
    if (s.docs !== docs || s.keywords !== kws) {
      add({ message: `candidate index: counter ${JSON.stringify(k)} says ${s.docs} chunks / ${s.keywords} keywords, the index holds ${docs} / ${kws}`, key: k });
    }
  }
  for (const [g, n] of docTotals) if (n !== 0) add({ message: `candidate index: ${n} posted chunks of ${JSON.stringify(g)} and no counter` });
  for (const [g, n] of keywordTotals) if (n > 0) add({ message: `candidate index: ${n} postings of ${JSON.stringify(g)} and no counter` });

  if (!actual.equals(expected)) {
    add({
      message: `candidate index: its ${actual.count} entry keys are not the ${expected.count} the directory implies (rebuild it: open the database with a release that rebuilds, or remove meta/cidx and reopen)`,
    });
  }
}

function decodeIndexStatsFull(k: string, v: Buffer): { docs: number; keywords: number } {
  return decodeIndexStats(v, `candidate index counter ${JSON.stringify(k)}`);
}

function decodeStats(k: string, v: Buffer, add: (p: IndexProblem) => void): number | null {
  try {
    return decodeIndexStats(v, `candidate index counter ${JSON.stringify(k)}`).docs;
  } catch (err) {
    add({ message: err instanceof Error ? err.message : String(err), key: k });
    return null;
  }
}

/** The pending keys of the index in `snapshot` (verify's expectation of which chunks are not posted yet). */
export async function pendingKeySet(family: Family, snapshot: AbstractSnapshot): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const k of family.keys({ gte: 'q' + SEP, lt: 'q\u0001', snapshot })) out.add(k);
  return out;
}

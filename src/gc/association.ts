/**
 * Pairwise association between stored chunks: the one decision of "which chunks belong together", used by GC's
 * default grouping (DefaultAffinityModel) and by the embedded model's COLOCATE and GROUP (the Akashic paper, Algorithm 2).
 * Two chunks belong together when requests keep materializing them together, or when they talk about the same
 * things:
 *
 *   association(a, b) = max( pairs(a,b) / min(accesses(a), accesses(b)),  jaccard(terms(a), terms(b)),
 *                            cosine(vector(a), vector(b)) when both have a vector of the same model and length )
 *
 * The co-access ratio is the share of the rarer chunk's recalls that also brought the other one; it is capped at 1
 * because statistics gathered concurrently may briefly disagree. Keyword overlap lets never-recalled chunks group.
 * What a chunk's terms are is the caller's: GC compares keywords as stored, the embedded model stems them.
 *
 * @internal
 */
import { orderedPair as pairKey } from '../store/kv/keys.js';
import type { CoAccessStats } from '../api/affinity-model.js';
import type { ChunkEmbedding } from '../record/chunk-embedding.js';
import { cosine } from '../util/cosine.js';

/** What association needs of a chunk. */
export interface AssociatedChunk {
  /** Unique within the call. */
  readonly id: string;
  readonly createdAt: number;
  readonly keywords: readonly string[];
  /** The chunk's vector, when it has one: chunks whose vectors share a model id and length also associate by cosine. */
  readonly embedding?: ChunkEmbedding;
}

/**
 * The cosine pass is quadratic in the chunks that carry vectors, so it is bounded: a larger set groups by co-access
 * and keywords only.
 */
export const MAX_DENSE_ASSOCIATION_CHUNKS = 512;

/** A chunk's matching terms from its keywords. */
export type TermsOf = (keywords: readonly string[]) => Iterable<string>;

/** Keywords compared as stored. */
export const exactTerms: TermsOf = (keywords) => keywords;

function coAccessRatio(a: string, b: string, coAccess: CoAccessStats): number {
  const together = coAccess.pairs.get(pairKey(a, b)) ?? 0;
  const rarer = Math.min(coAccess.accesses.get(a) ?? 0, coAccess.accesses.get(b) ?? 0);
  if (together <= 0 || rarer <= 0) return 0;
  return Math.min(1, together / rarer);
}

/**
 * Partitions `chunks` into connected components of the graph whose edges are pairs with association >= `threshold`.
 * Every input chunk is in exactly one component (singletons included). Components list members by `createdAt`
 * (then id), and are themselves ordered by their first member, so the output is deterministic.
 *
 * Only pairs that share a term or have a co-access count can have positive association, so those are the only
 * pairs scored; with `threshold <= 0` every pair qualifies and everything is one component.
 *
 * Precondition: ids in `chunks` are unique.
 */
export function associationComponents<C extends AssociatedChunk>(chunks: readonly C[], coAccess: CoAccessStats, threshold: number, termsOf: TermsOf = exactTerms): C[][] {
  const parent = chunks.map((_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root] ?? root;
    // Path compression keeps later finds near-constant on large namespaces.
    for (let j = i; parent[j] !== root; ) {
      const next = parent[j] ?? root;
      parent[j] = root;
      j = next;
    }
    return root;
  };
  const union = (i: number, j: number): void => {
    const ri = find(i);
    const rj = find(j);
    if (ri !== rj) parent[Math.max(ri, rj)] = Math.min(ri, rj);
  };

  if (threshold <= 0) {
    for (let i = 1; i < chunks.length; i += 1) union(0, i);
  } else {
    forEachAssociatedPair(chunks, coAccess, termsOf, (i, j, score) => {
      if (score >= threshold) union(i, j);
    });
    forEachDensePair(chunks, (i, j, score) => {
      if (score >= threshold) union(i, j);
    });
  }

  const byRoot = new Map<number, C[]>();
  chunks.forEach((chunk, i) => {
    const root = find(i);
    const members = byRoot.get(root) ?? [];
    members.push(chunk);
    byRoot.set(root, members);
  });
  const groups = [...byRoot.values()].map((members) => members.sort(byCreatedThenId));
  return groups.sort((a, b) => byCreatedThenId(a[0]!, b[0]!));
}

function byCreatedThenId(a: AssociatedChunk, b: AssociatedChunk): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Calls `visit(i, j, association)` for every index pair i < j with positive association: pairs sharing a term or
 * having a co-access count. Shared-term counts come from walking posting lists, one `i` at a time with a reused
 * counter array, so the cost is the number of (term, chunk, chunk) co-occurrences and memory stays linear even when
 * a common term links every pair.
 */
function forEachAssociatedPair(
  chunks: readonly AssociatedChunk[],
  coAccess: CoAccessStats,
  termsOf: TermsOf,
  visit: (i: number, j: number, association: number) => void,
): void {
  const terms = chunks.map((chunk) => [...new Set(termsOf(chunk.keywords))]);
  const postings = new Map<string, number[]>();
  terms.forEach((list, i) => {
    for (const term of list) {
      const posting = postings.get(term) ?? [];
      posting.push(i);
      postings.set(term, posting);
    }
  });
  const coAccessed = coAccessNeighbours(chunks, coAccess);
  const ratio = (i: number, j: number): number =>
    coAccessRatio(chunks[i]?.id ?? '', chunks[j]?.id ?? '', coAccess);

  const shared = new Int32Array(chunks.length);
  terms.forEach((own, i) => {
    const touched: number[] = [];
    for (const term of own) {
      for (const j of postings.get(term) ?? []) {
        if (j <= i) continue;
        if (shared[j] === 0) touched.push(j);
        shared[j] = (shared[j] ?? 0) + 1;
      }
    }
    for (const j of touched) {
      const common = shared[j] ?? 0;
      const union = own.length + (terms[j]?.length ?? 0) - common;
      visit(i, j, Math.max(common / union, ratio(i, j)));
    }
    for (const j of coAccessed.get(i) ?? []) {
      if (shared[j] === 0) visit(i, j, ratio(i, j));
    }
    for (const j of touched) shared[j] = 0;
  });
}

/**
 * Calls `visit(i, j, cosine)` for every index pair i < j whose chunks both carry a vector of the same model id and
 * length (at most {@link MAX_DENSE_ASSOCIATION_CHUNKS} chunks with vectors; none when there are more).
 */
function forEachDensePair(chunks: readonly AssociatedChunk[], visit: (i: number, j: number, association: number) => void): void {
  const embedded: number[] = [];
  chunks.forEach((c, i) => {
    if (c.embedding !== undefined && c.embedding.vector.length > 0) embedded.push(i);
  });
  if (embedded.length < 2 || embedded.length > MAX_DENSE_ASSOCIATION_CHUNKS) return;
  for (let x = 0; x < embedded.length; x++) {
    const i = embedded[x]!;
    const a = chunks[i]!.embedding!;
    for (let y = x + 1; y < embedded.length; y++) {
      const j = embedded[y]!;
      const b = chunks[j]!.embedding!;
      if (a.model !== b.model || a.vector.length !== b.vector.length) continue;
      visit(i, j, cosine(a.vector, b.vector));
    }
  }
}

/** For each index `i`, the indexes `j > i` it has a co-access pair count with. */
function coAccessNeighbours(chunks: readonly AssociatedChunk[], coAccess: CoAccessStats): Map<number, number[]> {
  const index = new Map<string, number>();
  chunks.forEach((chunk, i) => index.set(chunk.id, i));
  const neighbours = new Map<number, number[]>();
  for (const key of coAccess.pairs.keys()) {
    // Ids may themselves contain U+0000 (the engine passes `session\0ulid`), so try every separator position
    // and keep the split whose two halves are both ids of this call.
    let x: number | undefined;
    let y: number | undefined;
    for (let sep = key.indexOf('\u0000'); sep >= 0; sep = key.indexOf('\u0000', sep + 1)) {
      x = index.get(key.slice(0, sep));
      y = index.get(key.slice(sep + 1));
      if (x !== undefined && y !== undefined) break;
    }
    if (x === undefined || y === undefined || x === y) continue;
    const [i, j] = x < y ? [x, y] : [y, x];
    const list = neighbours.get(i) ?? [];
    list.push(j);
    neighbours.set(i, list);
  }
  return neighbours;
}

/**
 * Hybrid SELECT: the model's ranking (BM25 over keywords for the embedded model, an LLM's choice otherwise) fused
 * with the cosine ranking of the candidates' stored vectors against the query's vector, by reciprocal rank:
 *
 *   score(c) = 1 / (k + rank_select(c)) + 1 / (k + rank_dense(c)),  k = 60,
 *
 * a rank counting from 1 and a list a candidate is not in contributing 0. Each list holds at most p ids (SELECT's
 * answer; the p candidates nearest the query), so a chunk both lists agree on comes first, then the rest in
 * alternation. Candidates without a vector of the query's model and length never enter the dense list: a store
 * embedded with another model ranks lexically, never by a meaningless cosine.
 * @internal
 */
import type { ChunkMetaView } from '../model/memory-model.js';
import { embeddingMatches, type ChunkEmbedding } from '../record/chunk-embedding.js';
import { cosine } from '../util/cosine.js';

/** The constant of reciprocal rank fusion (the value of the original proposal, used by most hybrid search engines). */
export const RRF_K = 60;

/** The `limit` candidates nearest `query` by cosine (only those with a comparable vector), nearest first. */
export function denseRanking(query: ChunkEmbedding, candidates: readonly ChunkMetaView[], limit: number): string[] {
  const dims = query.vector.length;
  return candidates
    .filter((c) => embeddingMatches(c.embedding, query.model, dims))
    .map((c) => ({ id: c.id, score: cosine(query.vector, c.embedding!.vector) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit)
    .map((x) => x.id);
}

/** SELECT's ids fused with the dense ranking; at most `topP`, best first (ties: SELECT's order, then dense). */
export function fuseRankings(selected: readonly string[], dense: readonly string[], topP: number): string[] {
  const score = new Map<string, number>();
  const order = new Map<string, number>();
  const add = (ids: readonly string[], offset: number): void =>
    ids.forEach((id, i) => {
      score.set(id, (score.get(id) ?? 0) + 1 / (RRF_K + i + 1));
      if (!order.has(id)) order.set(id, offset + i);
    });
  add(selected, 0);
  add(dense, selected.length);
  return [...score.keys()]
    .sort((a, b) => score.get(b)! - score.get(a)! || order.get(a)! - order.get(b)!)
    .slice(0, topP);
}

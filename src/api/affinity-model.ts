/**
 * What GC asks of a model (the Akashic paper, Algorithm 2 line 15, LLMGROUP): partition the live chunks of one namespace
 * into groups likely to be consumed together. The MemAttention MemoryModel satisfies this interface, so an
 * LLM-backed model can drive GC too.
 */
import type { ChunkEmbedding } from '../record/chunk-embedding.js';

/** A stored chunk's metadata, as GC and the models' select, colocate and group see it (no body). */
export interface AffinityChunk {
  /** Opaque id, unique within the call (the engine passes `session\u0000ulid`). */
  readonly id: string;
  readonly sessionId: string;
  readonly createdAt: number;
  readonly tokenCount: number;
  readonly keywords: readonly string[];
  /**
   * The chunk's stored vector and the embedder id that produced it, when it has one (see `Embedder`). Compare it
   * only with vectors of the same `model` and length.
   */
  readonly embedding?: ChunkEmbedding;
}

/** Co-access statistics among a set of chunks: how often each was, and each pair was, materialized by one recall. */
export interface CoAccessStats {
  /** Number of recalls that materialized chunk `id`. */
  readonly accesses: ReadonlyMap<string, number>;
  /** Pair counts; key is `${a}\u0000${b}` with a < b (string order, `pairKey`). */
  readonly pairs: ReadonlyMap<string, number>;
}

export interface AffinityModel {
  /**
   * Every input id must appear in exactly one group. Implementations may reject (the GC pass then falls back to
   * temporal order for that partition and says so in its report).
   */
  group(chunks: readonly AffinityChunk[], coAccess: CoAccessStats): Promise<string[][]>;
}

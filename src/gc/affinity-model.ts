/**
 * What GC asks of a model (the Akashic paper, Algorithm 2 line 15, LLMGROUP): partition the live chunks of one namespace
 * into groups likely to be consumed together. The MemAttention MemoryModel satisfies this interface, so an
 * LLM-backed model can drive GC too.
 */
import type { ChunkEmbedding } from '../record/chunk-embedding.js';

export interface AffinityChunk {
  /** `session\0ulid`, unique within the call. */
  readonly id: string;
  readonly sessionId: string;
  readonly createdAt: number;
  readonly tokenCount: number;
  readonly keywords: readonly string[];
  /** The chunk's stored vector, when it has one (association by cosine among vectors of one model and length). */
  readonly embedding?: ChunkEmbedding;
}

export interface CoAccessStats {
  /** Recalls that materialized each chunk. */
  readonly accesses: ReadonlyMap<string, number>;
  /** Pair counts keyed `${a}\0${b}` with a < b. */
  readonly pairs: ReadonlyMap<string, number>;
}

export interface AffinityModel {
  /**
   * Every input id must appear in exactly one group. Implementations may reject (the GC pass then falls back to
   * temporal order for that partition and says so in its report).
   */
  group(chunks: readonly AffinityChunk[], coAccess: CoAccessStats): Promise<string[][]>;
}

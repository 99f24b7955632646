/**
 * A chunk's vector from an `Embedder`, stored with the record and mirrored in its directory entry so SELECT,
 * COLOCATE and GC grouping can compare chunks by meaning without reading bodies. The model id names the embedder
 * that produced it and the dimension is the vector's length: a vector from another model or of another dimension
 * is never compared with a query's (docs/format.md, "Embeddings").
 */
export interface ChunkEmbedding {
  /** The embedder's model id, e.g. `openai:text-embedding-3-small`. */
  readonly model: string;
  readonly vector: Float32Array;
}

/**
 * Reads a stored `[float]` vector element by element. (The generated `embeddingArray()` views the buffer directly,
 * which throws when a record starts at an offset that is not a multiple of 4 inside its frame.)
 */
export function readEmbedding(length: number, at: (i: number) => number | null, model: string | null): ChunkEmbedding | undefined {
  if (length === 0) return undefined;
  const vector = new Float32Array(length);
  for (let i = 0; i < length; i++) vector[i] = at(i) ?? 0;
  return { model: model ?? '', vector };
}

/** Whether a stored vector can be compared with one of `model` and `dimensions`. */
export function embeddingMatches(e: ChunkEmbedding | null | undefined, model: string, dimensions: number): e is ChunkEmbedding {
  return e !== null && e !== undefined && e.model === model && e.vector.length === dimensions;
}

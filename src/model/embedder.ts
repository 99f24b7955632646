/**
 * Dense vectors for texts, from any embedding model. MemAttention embeds each chunk at compaction (the vector is
 * stored with the chunk, with `id` and `dimensions`, docs/format.md "Embeddings") and each recall's query, and
 * fuses the cosine ranking with BM25 in SELECT; COLOCATE and GC grouping use the same vectors as an association.
 *
 * Contract: `embed` resolves with exactly one vector of exactly `dimensions` finite numbers per input text, in
 * input order, or rejects with an `AkashicError` of code `AKASHIC_MODEL` (after the implementation's own bounded
 * retries). It must not mutate its input and must be safe to call concurrently.
 */
export interface Embedder {
  /**
   * Identifies the vectors: stored with every chunk vector and compared at recall, so vectors of another model
   * are never compared with this one's. Change it whenever the vectors would change (another model, another
   * dimension, another server-side normalization).
   */
  readonly id: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /**
   * True for an embedder that makes no remote call: its cost receipts carry 0 tokens and no estimate is made.
   * Default false: input tokens come from the usage the embedder reports (`reportModelUsage`), else from the
   * tokenizer's count of the texts.
   */
  readonly local?: boolean;
  /** One vector per text, in order. `signal` aborts the call (it then rejects). */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

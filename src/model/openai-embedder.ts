/**
 * An {@link Embedder} over any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, llama.cpp's server,
 * Ollama, text-embeddings-inference, ...), through the official `openai` package (an optional peer dependency,
 * loaded on the first call).
 */
import { reportModelUsage } from '../util/model-usage.js';
import { invalidArgument } from '../errors.js';
import type { Embedder } from './embedder.js';
import { nonEmptyEnv, OpenAIConnection, type OpenAIConnectionOptions } from './openai-connection.js';

/** Options of {@link OpenAIEmbedder}. */
export interface OpenAIEmbedderOptions extends OpenAIConnectionOptions {
  /** Embedding model name sent with every request. Default: env `AKASHIC_EMBEDDING_MODEL`. Required one way or the other. */
  readonly model?: string;
  /**
   * Length of the model's vectors (e.g. 1536 for `text-embedding-3-small`, 768 for `nomic-embed-text`, 1024 for
   * `bge-m3`). Every reply is checked against it. Default: env `AKASHIC_EMBEDDING_DIMENSIONS`. Required.
   */
  readonly dimensions?: number;
  /** Ask the server to shorten its vectors to `dimensions` (the `dimensions` request field; OpenAI's v3 models). Default false. */
  readonly requestDimensions?: boolean;
  /** Texts per request; a larger call is split. Default 64. */
  readonly batchSize?: number;
}

/** Counters of an {@link OpenAIEmbedder} since construction. */
export interface OpenAIEmbedderStats {
  readonly calls: number;
  readonly requests: number;
  readonly retries: number;
  readonly failures: number;
  readonly texts: number;
  /** Sum of `usage.prompt_tokens` over replies that reported usage. */
  readonly promptTokens: number;
}

/** A reply that cannot be used (wrong count, bad index, not numbers): retried like a transient failure. */
class MalformedEmbeddingReply extends Error {}

/** Vectors of another length than configured: a configuration error, not retried. */
class WrongDimension extends Error {}

const MAX_DIMENSIONS = 8192;
const MAX_BATCH = 2048;

/**
 * {@link Embedder} over an OpenAI-compatible embeddings API.
 *
 * Each request sends `{model, input: texts, encoding_format: 'float'}`. Timeouts, lost connections, HTTP 408/409/429
 * and 5xx, and replies that do not carry one finite vector per input (malformed JSON included) are retried up to
 * `maxRetries` times with exponential back-off (or the server's `retry-after`); then the call rejects with
 * `AkashicError('AKASHIC_MODEL')` whose `cause` is the last failure. Vectors of another length than `dimensions`
 * are a configuration error: not retried, and the message names both lengths.
 *
 * @example
 * ```ts
 * // Ollama: `ollama pull nomic-embed-text`, then
 * const embedder = new OpenAIEmbedder({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', dimensions: 768 });
 * const memory = new AkashicMemory(store, { embedder });
 * ```
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  /** The model name sent with every request. */
  readonly model: string;
  readonly #connection: OpenAIConnection;
  readonly #batchSize: number;
  readonly #requestDimensions: boolean;
  readonly #stats = { calls: 0, requests: 0, retries: 0, failures: 0, texts: 0, promptTokens: 0 };

  /** @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the bad or missing option. */
  constructor(options: OpenAIEmbedderOptions = {}) {
    const model = options.model ?? nonEmptyEnv('AKASHIC_EMBEDDING_MODEL');
    if (typeof model !== 'string' || model.trim() === '') {
      throw invalidArgument('model is required: the embedding model name (pass model or set AKASHIC_EMBEDDING_MODEL)');
    }
    const envDims = nonEmptyEnv('AKASHIC_EMBEDDING_DIMENSIONS');
    const dimensions = options.dimensions ?? (envDims === undefined ? undefined : Number(envDims));
    if (dimensions === undefined) {
      throw invalidArgument('dimensions is required: the length of the model\'s vectors (pass dimensions or set AKASHIC_EMBEDDING_DIMENSIONS)');
    }
    if (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      throw invalidArgument(`dimensions must be an integer in [1, ${MAX_DIMENSIONS}], got ${String(dimensions)}`);
    }
    const batchSize = options.batchSize ?? 64;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
      throw invalidArgument(`batchSize must be an integer in [1, ${MAX_BATCH}], got ${String(batchSize)}`);
    }
    if (options.requestDimensions !== undefined && typeof options.requestDimensions !== 'boolean') throw invalidArgument('requestDimensions must be a boolean');
    this.#connection = new OpenAIConnection(options);
    this.model = model;
    this.dimensions = dimensions;
    this.id = `openai:${model}@${dimensions}`;
    this.#batchSize = batchSize;
    this.#requestDimensions = options.requestDimensions ?? false;
  }

  /** A snapshot of the counters. */
  get stats(): OpenAIEmbedderStats {
    return { ...this.#stats };
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) throw invalidArgument('texts must be an array of strings');
    if (texts.length === 0) return [];
    this.#stats.calls += 1;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      out.push(...(await this.#request(texts.slice(i, i + this.#batchSize), signal)));
    }
    this.#stats.texts += texts.length;
    return out;
  }

  async #request(batch: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const stats = this.#stats;
    return this.#connection.request(
      async (client) => {
        // Empty strings are refused by some servers; one space embeds as "nothing" everywhere.
        const input = batch.map((t) => (t === '' ? ' ' : t));
        const reply = await client.embeddings.create(
          { model: this.model, input, encoding_format: 'float', ...(this.#requestDimensions ? { dimensions: this.dimensions } : {}) },
          signal === undefined ? {} : { signal },
        );
        if (reply.usage !== undefined && reply.usage !== null) {
          stats.promptTokens += reply.usage.prompt_tokens ?? 0;
          // The call's cost receipt (a caller collecting usage sees each request's input tokens).
          reportModelUsage({ promptTokens: reply.usage.prompt_tokens ?? 0, completionTokens: 0, model: reply.model || this.model });
        }
        return this.#vectors(reply, batch.length);
      },
      {
        retryable: (err) => err instanceof MalformedEmbeddingReply || err instanceof SyntaxError,
        failed: `${this.id} embeddings failed`,
        signal,
        onRetry: () => {
          stats.retries += 1;
          reportModelUsage({ retries: 1, model: this.model });
        },
        onRequest: () => (stats.requests += 1),
        onFailure: () => (stats.failures += 1),
      },
    );
  }

  /** The reply's vectors in input order, checked. */
  #vectors(reply: unknown, count: number): Float32Array[] {
    const data = (reply as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw new MalformedEmbeddingReply('the reply has no data array');
    if (data.length !== count) throw new MalformedEmbeddingReply(`the reply has ${data.length} vectors for ${count} inputs`);
    const out: (Float32Array | undefined)[] = new Array(count);
    data.forEach((item: unknown, k) => {
      const o = item as { index?: unknown; embedding?: unknown } | null;
      const index = typeof o?.index === 'number' ? o.index : k;
      if (!Number.isInteger(index) || index < 0 || index >= count || out[index] !== undefined) throw new MalformedEmbeddingReply(`the reply's data[${k}] has a bad index`);
      const e = o?.embedding;
      if (!Array.isArray(e)) throw new MalformedEmbeddingReply(`the reply's data[${k}].embedding is not an array of numbers`);
      if (e.length !== this.dimensions) {
        throw new WrongDimension(`the server returned ${e.length}-dimensional vectors; this embedder is configured for ${this.dimensions} (set dimensions to the model's)`);
      }
      const v = new Float32Array(e.length);
      for (let i = 0; i < e.length; i++) {
        const x: unknown = e[i];
        if (typeof x !== 'number' || !Number.isFinite(x)) throw new MalformedEmbeddingReply(`the reply's data[${k}].embedding[${i}] is not a finite number`);
        v[i] = x;
      }
      out[index] = v;
    });
    return out as Float32Array[];
  }
}

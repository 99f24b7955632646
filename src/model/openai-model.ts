/**
 * A `MemoryModel` backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, SGLang, Ollama, ...),
 * through the official `openai` package. Every MemAttention decision is one JSON-mode chat request whose reply is
 * parsed, schema-checked and meaning-checked before it is returned (see `llm-replies.ts`).
 */
import type {
  ChunkBodyView,
  ChunkMetaView,
  CoAccessView,
  CompressResult,
  JointCompactResult,
  MemoryModel,
  MetaResult,
  ModelTurn,
} from './memory-model.js';
import { invalidArgument } from '../errors.js';
import { reportModelUsage } from '../util/model-usage.js';
import { nonEmptyEnv, OpenAIConnection, type OpenAIConnectionOptions } from './openai-connection.js';
import { checkThreshold, checkTopP, checkUniqueIds } from './model-arguments.js';
import type { Prompt } from './llm-prompts.js';
import {
  colocatePrompt,
  compressPrompt,
  groupPrompt,
  jointCompactPrompt,
  metaPrompt,
  selectPrompt,
} from './llm-prompts.js';
import {
  MalformedReplyError,
  checkJointCompact,
  compressReply,
  groupsReply,
  jointCompactReply,
  metaReply,
  normalizeKeywords,
  parseReply,
  type ReplySchema,
  repairColocation,
  repairPartition,
  repairSelection,
  selectReply,
} from './llm-replies.js';

/** Options of {@link OpenAIChatModel}; every one is optional. */
export interface OpenAIChatModelOptions extends OpenAIConnectionOptions {
  /** Model name sent with every request. Default: env `AKASHIC_MODEL`, else `gpt-4o-mini`. */
  readonly model?: string;
  /** Sampling temperature. Default 0, so repeated calls agree as far as the server allows. */
  readonly temperature?: number;
}

/** Counters of an {@link OpenAIChatModel} since construction. */
export interface OpenAIChatModelStats {
  /** Model method calls that sent at least one request. */
  readonly calls: number;
  /** HTTP requests sent (first attempts plus retries). */
  readonly requests: number;
  /** Requests that were retries. */
  readonly retries: number;
  /** Calls that rejected with `AKASHIC_MODEL`. */
  readonly failures: number;
  /** Sum of `usage.prompt_tokens` over replies that reported usage. */
  readonly promptTokens: number;
  /** Sum of `usage.completion_tokens` over replies that reported usage. */
  readonly completionTokens: number;
}

const DEFAULT_MODEL = 'gpt-4o-mini';

/**
 * {@link MemoryModel} over an OpenAI-compatible chat-completions API.
 *
 * Every call sends a system and a user message with `response_format: {type: 'json_object'}` and temperature 0.
 * A reply that is not JSON, does not match the method's schema, or names ids it was not given, and any timeout,
 * connection error, HTTP 408/409/429 or 5xx, is retried up to `maxRetries` times with exponential back-off; then the
 * call rejects with `AkashicError('AKASHIC_MODEL')` whose `cause` is the last failure. The `openai` client's own
 * retries are disabled so that the number of requests is exactly bounded by `maxRetries + 1`.
 *
 * @example
 * ```ts
 * const model = new OpenAIChatModel({ baseURL: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b-instruct' });
 * const ids = await model.select({ text: 'where does Alice live?', keywords: ['alice'] }, candidates, 5);
 * console.log(model.stats.requests, model.stats.promptTokens);
 * ```
 */
export class OpenAIChatModel implements MemoryModel {
  readonly name: string;
  /** The model name sent with every request. */
  readonly model: string;
  readonly #connection: OpenAIConnection;
  readonly #temperature: number;
  readonly #stats = { calls: 0, requests: 0, retries: 0, failures: 0, promptTokens: 0, completionTokens: 0 };

  /** @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the bad option, or when no API key can be found. */
  constructor(options: OpenAIChatModelOptions = {}) {
    const model = options.model ?? nonEmptyEnv('AKASHIC_MODEL') ?? DEFAULT_MODEL;
    if (typeof model !== 'string' || model.trim() === '') throw invalidArgument('model must be a non-empty string');
    const temperature = options.temperature ?? 0;
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2) {
      throw invalidArgument(`temperature must be a number in [0, 2], got ${String(temperature)}`);
    }
    const connection = new OpenAIConnection(options);

    this.model = model;
    this.name = `openai:${model}`;
    this.#temperature = temperature;
    this.#connection = connection;
  }

  /** A snapshot of the counters; later calls do not change a returned object. */
  get stats(): OpenAIChatModelStats {
    return { ...this.#stats };
  }

  async compress(turns: readonly ModelTurn[]): Promise<CompressResult> {
    if (turns.length === 0) return { text: '' };
    return this.#call('compress', compressPrompt(turns), compressReply, (reply) => ({ text: reply.text }));
  }

  async buildMeta(text: string): Promise<MetaResult> {
    if (text.trim() === '') return { keywords: [] };
    return this.#call('buildMeta', metaPrompt(text), metaReply, (reply) => ({
      keywords: normalizeKeywords(reply.keywords),
    }));
  }

  async select(
    query: { readonly text: string; readonly keywords: readonly string[] },
    candidates: readonly ChunkMetaView[],
    topP: number,
  ): Promise<string[]> {
    checkTopP(topP);
    checkUniqueIds('select candidates', candidates);
    if (topP === 0 || candidates.length === 0) return [];
    const known = new Set(candidates.map((c) => c.id));
    return this.#call('select', selectPrompt(query, candidates, topP), selectReply, (reply) =>
      repairSelection(reply.ids, known, topP),
    );
  }

  async jointCompact(
    fresh: { readonly text: string; readonly keywords: readonly string[] },
    related: readonly ChunkBodyView[],
  ): Promise<JointCompactResult> {
    checkUniqueIds('jointCompact related', related);
    const known = new Set(related.map((c) => c.id));
    return this.#call('jointCompact', jointCompactPrompt(fresh, related), jointCompactReply, (reply) =>
      checkJointCompact(reply, known),
    );
  }

  async colocate(chunks: readonly ChunkMetaView[], coAccess: CoAccessView, tauAssoc: number): Promise<string[][]> {
    checkThreshold('tauAssoc', tauAssoc);
    checkUniqueIds('colocate chunks', chunks);
    if (chunks.length < 2) return [];
    const known = new Set(chunks.map((c) => c.id));
    return this.#call('colocate', colocatePrompt(chunks, coAccess, tauAssoc), groupsReply, (reply) =>
      repairColocation(reply.groups, known),
    );
  }

  async group(chunks: readonly ChunkMetaView[], coAccess: CoAccessView): Promise<string[][]> {
    checkUniqueIds('group chunks', chunks);
    if (chunks.length <= 1) return chunks.map((c) => [c.id]);
    const ids = chunks.map((c) => c.id);
    return this.#call('group', groupPrompt(chunks, coAccess), groupsReply, (reply) => repairPartition(reply.groups, ids));
  }

  /**
   * One model call: request, parse against `schema`, then `accept` (which throws `MalformedReplyError` to reject),
   * retrying retryable failures: the model's own sloppiness (malformed JSON, wrong shape, unknown ids) and the
   * transient transport failures. The whole pipeline is inside the loop so a meaning-level rejection is retried too.
   */
  async #call<T, R>(method: string, prompt: Prompt, schema: ReplySchema<T>, accept: (reply: T) => R): Promise<R> {
    const stats = this.#stats;
    stats.calls += 1;
    return this.#connection.request(
      async (client) => {
        const completion = await client.chat.completions.create({
          model: this.model,
          temperature: this.#temperature,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: prompt.system },
            { role: 'user', content: prompt.user },
          ],
        });
        if (completion.usage) {
          stats.promptTokens += completion.usage.prompt_tokens;
          stats.completionTokens += completion.usage.completion_tokens;
          // The call's cost receipt (a caller collecting usage sees each request's figures, retries included).
          reportModelUsage({ promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens, model: completion.model || this.model });
        }
        return accept(parseReply(completion.choices[0]?.message.content, schema));
      },
      {
        retryable: (err) => err instanceof MalformedReplyError,
        failed: `${this.name} ${method} failed`,
        onRetry: () => {
          stats.retries += 1;
          reportModelUsage({ retries: 1, model: this.model });
        },
        onRequest: () => (stats.requests += 1),
        onFailure: () => (stats.failures += 1),
      },
    );
  }
}

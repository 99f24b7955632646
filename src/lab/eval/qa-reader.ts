/**
 * The reader of `akashic eval qa`: answers one question from a recalled context with a chat model behind any
 * OpenAI-compatible chat-completions server (the official `openai` package; vLLM, Ollama, llama.cpp, hosted APIs).
 * Timeouts, 429 and 5xx are retried with back-off (`model/openai-connection.ts`); then AKASHIC_MODEL.
 * @internal
 */
import { invalidArgument } from '../../errors.js';
import { OpenAIConnection, type OpenAIConnectionOptions } from '../../model/openai-connection.js';

/** Options of {@link ChatReader}. */
export interface ChatReaderOptions extends OpenAIConnectionOptions {
  /** Chat model name. Required. */
  readonly model: string;
  /** Most tokens of one answer. Default 64 (answers are short phrases). */
  readonly maxAnswerTokens?: number;
}

/** The instructions every question is asked with (LoCoMo's QA protocol: a short phrase, the memory's words). */
export const READER_SYSTEM_PROMPT =
  'You answer questions about a long conversation between two people, using only the memory excerpts given. ' +
  'A line in square brackets is the date of the excerpts below it. Answer with a short phrase, using exact words ' +
  'from the memory whenever possible; for a question about time, answer with a date. If the memory does not hold ' +
  'the answer, reply "not mentioned".';

export function readerPrompt(context: string, question: string): string {
  return `Memory:\n${context === '' ? '(nothing recalled)' : context}\n\nQuestion: ${question}\nShort answer:`;
}

export class ChatReader {
  readonly model: string;
  readonly #connection: OpenAIConnection;
  readonly #maxTokens: number;
  /** HTTP requests sent (first attempts and retries). */
  requests = 0;
  promptTokens = 0;
  completionTokens = 0;

  /** @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the bad option. */
  constructor(options: ChatReaderOptions) {
    if (options === null || typeof options !== 'object') throw invalidArgument('reader options must be an object');
    if (typeof options.model !== 'string' || options.model.trim() === '') throw invalidArgument('model must be a non-empty string (the chat model name)');
    const maxTokens = options.maxAnswerTokens ?? 64;
    if (!Number.isSafeInteger(maxTokens) || maxTokens < 1 || maxTokens > 4096) throw invalidArgument(`maxAnswerTokens must be an integer in [1, 4096]`);
    this.model = options.model;
    this.#maxTokens = maxTokens;
    this.#connection = new OpenAIConnection(options);
  }

  /** The model's answer to `question` from `context` (trimmed; '' when it said nothing). */
  async answer(context: string, question: string): Promise<string> {
    return this.#connection.request(
      async (client) => {
        const completion = await client.chat.completions.create({
          model: this.model,
          temperature: 0,
          max_tokens: this.#maxTokens,
          messages: [
            { role: 'system', content: READER_SYSTEM_PROMPT },
            { role: 'user', content: readerPrompt(context, question) },
          ],
        });
        if (completion.usage) {
          this.promptTokens += completion.usage.prompt_tokens;
          this.completionTokens += completion.usage.completion_tokens;
        }
        const content = completion.choices?.[0]?.message?.content;
        if (typeof content !== 'string') throw new MalformedAnswer('the reply has no message content');
        return content.trim();
      },
      {
        retryable: (err) => err instanceof MalformedAnswer || err instanceof SyntaxError,
        failed: `chat model ${this.model} failed to answer`,
        onRequest: () => {
          this.requests++;
        },
      },
    );
  }
}

class MalformedAnswer extends Error {}

/**
 * `akashic eval qa`: LoCoMo's question-answering protocol over MemAttention's recall. Each question is asked as
 * the recall evaluation asks it (replay, then recall once its evidence is ingested); a chat model answers it twice,
 * from the recalled memory text and from the BM25-over-turns baseline's text at the same token budget (turns
 * dated), and each answer is scored against the gold answer with LoCoMo's token-level F1 (`answer-f1.ts`).
 * Writes no output: callers print the report.
 */
import { invalidArgument } from '../../errors.js';
import type { Conversation } from '../workload/conversation.js';
import { categoryName } from './recall-metrics.js';
import { scoreAnswer } from './answer-f1.js';
import { ChatReader, READER_SYSTEM_PROMPT, type ChatReaderOptions } from './qa-reader.js';
import { resolveRecallEvalConfig, type RecallEvalConfig, type RecallEvalOptions } from './recall-eval.js';
import { replayWithBaseline } from './replay-with-baseline.js';

/** Options of {@link evaluateQa}. */
export interface QaEvalOptions extends Omit<RecallEvalOptions, 'onProgress'> {
  /** The chat model that answers (an OpenAI-compatible server). */
  readonly reader: ChatReaderOptions;
  /** Answer at most this many questions (in replay order); the rest are not asked. Default: all. */
  readonly limit?: number;
  /** Called after each answered question with the questions done and the total to answer. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Mean F1 of one category. */
export interface QaCategory {
  readonly category: number;
  readonly name: string;
  readonly questions: number;
  readonly f1: number;
  readonly bm25F1: number;
}

/** One answered question (in `answers` of the report). */
export interface QaAnswer {
  readonly conversationId: string;
  readonly category: number;
  readonly question: string;
  readonly gold: string;
  readonly answer: string;
  readonly f1: number;
  readonly bm25Answer: string;
  readonly bm25F1: number;
}

export interface QaEvalReport {
  readonly dataset: string;
  readonly config: RecallEvalConfig & { readonly reader: string; readonly baseURL: string | null; readonly readerPrompt: string };
  /** Questions answered. */
  readonly questions: number;
  /** Mean F1 of the answers from MemAttention's recall; null when no question was answered. */
  readonly f1: number | null;
  /** Mean F1 of the answers from BM25 over raw turns at the same budget. */
  readonly bm25F1: number | null;
  readonly byCategory: readonly QaCategory[];
  /** Mean tokens of the two contexts. */
  readonly meanTokensRecalled: number | null;
  readonly meanBm25Tokens: number | null;
  /** Chat requests sent (retries included) and tokens the server reported. */
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly answers: readonly QaAnswer[];
  readonly elapsedMs: number;
}


const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * Replays each conversation, and has the chat model answer every question (or the first `limit`) from the
 * recalled memory and from the baseline's turns.
 *
 * @example
 * ```ts
 * const report = await evaluateQa(await loadLocomo('./locomo'), {
 *   reader: { baseURL: 'http://127.0.0.1:8000/v1', model: 'Qwen/Qwen2.5-7B-Instruct' }, limit: 200,
 * });
 * console.log(report.f1, report.bm25F1);
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming a bad option; `AKASHIC_MODEL` when the chat model fails.
 */
export async function evaluateQa(conversations: readonly Conversation[], options: QaEvalOptions): Promise<QaEvalReport> {
  if (options === null || typeof options !== 'object') throw invalidArgument('evaluateQa options must be an object');
  const { onProgress: _p, reader: _r, limit: _l, ...recallOptions } = options;
  const config = resolveRecallEvalConfig(recallOptions);
  if (!Array.isArray(conversations)) throw invalidArgument('evaluateQa needs an array of conversations');
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (limit !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(limit) || limit < 1)) throw invalidArgument('limit must be a positive integer');
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') throw invalidArgument('option onProgress must be a function');
  const reader = new ChatReader(options.reader);
  const started = performance.now();
  const total = Math.min(limit, conversations.reduce((n, c) => n + c.questions.length, 0));
  const answers: QaAnswer[] = [];
  const memoryTokens: number[] = [];
  const bm25Tokens: number[] = [];

  for (const conv of conversations) {
    if (answers.length >= limit) break;
    await replayWithBaseline(conv, { ...config, datedBaseline: true }, async ({ question, recall }, picked) => {
      if (answers.length >= limit) return;
      const answer = await reader.answer(recall.text, question.question);
      const bm25Answer = await reader.answer(picked.text, question.question);
      answers.push({
        conversationId: conv.id,
        category: question.category,
        question: question.question,
        gold: question.answer,
        answer,
        f1: scoreAnswer(question.category, answer, question.answer),
        bm25Answer,
        bm25F1: scoreAnswer(question.category, bm25Answer, question.answer),
      });
      memoryTokens.push(recall.tokenCount);
      bm25Tokens.push(picked.tokenCount);
      options.onProgress?.(answers.length, total);
    });
  }

  const categories = [...new Set(answers.map((a) => a.category))].sort((a, b) => a - b);
  return {
    dataset: options.dataset ?? 'custom',
    config: { ...config, reader: options.reader.model, baseURL: options.reader.baseURL ?? null, readerPrompt: READER_SYSTEM_PROMPT },
    questions: answers.length,
    f1: mean(answers.map((a) => a.f1)),
    bm25F1: mean(answers.map((a) => a.bm25F1)),
    byCategory: categories.map((category) => {
      const of = answers.filter((a) => a.category === category);
      return {
        category,
        name: categoryName(category),
        questions: of.length,
        f1: mean(of.map((a) => a.f1)) ?? 0,
        bm25F1: mean(of.map((a) => a.bm25F1)) ?? 0,
      };
    }),
    meanTokensRecalled: mean(memoryTokens),
    meanBm25Tokens: mean(bm25Tokens),
    requests: reader.requests,
    promptTokens: reader.promptTokens,
    completionTokens: reader.completionTokens,
    answers,
    elapsedMs: Math.round(performance.now() - started),
  };
}

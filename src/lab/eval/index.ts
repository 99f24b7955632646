/**
 * Recall-quality evaluation of the MemAttention layer: evidence recall of the default embedded
 * model's recall on LoCoMo-shaped conversations, against BM25 over raw turns at the same token budget.
 */
export { evaluateRecall } from './recall-eval.js';
export type { ConversationRatios, RecallEvalConfig, RecallEvalOptions, RecallEvalReport } from './recall-eval.js';
export type { CategoryRatios, RecallCosts, RecallRatios } from './recall-metrics.js';
export { recallReportLines, writeRecallReport } from './recall-report-format.js';
export { loadRecallEvalSource, runRecallEval } from './run-recall-eval.js';
export type { RecallEvalSource } from './run-recall-eval.js';
export { evaluateQa } from './qa-eval.js';
export type { QaAnswer, QaCategory, QaEvalOptions, QaEvalReport } from './qa-eval.js';
export type { ChatReaderOptions } from './qa-reader.js';
export { qaReportLines, runQaEval } from './run-qa-eval.js';
export { evaluateUpdates, runUpdateEval, updateReportLines } from './update-eval.js';
export type { UpdateEvalOptions, UpdateEvalReport, UpdateOutcome } from './update-eval.js';

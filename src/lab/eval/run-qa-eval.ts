/**
 * `akashic eval qa` as a library call: load the conversations, evaluate, write the report (a table, or one JSON
 * line with `json`). The CLI command only parses its flags and calls this.
 */
import { lineWriter, type LineSink } from '../../util/line-sink.js';
import { evaluateQa, type QaEvalOptions, type QaEvalReport } from './qa-eval.js';
import { loadRecallEvalSource, type RecallEvalSource } from './run-recall-eval.js';

const fixed = (v: number | null, digits: number): string => (v === null ? 'n/a' : v.toFixed(digits));

/** The human-readable lines of a QA report. */
export function qaReportLines(r: QaEvalReport): string[] {
  const c = r.config;
  const rows = [
    ['category', 'questions', 'F1 (memory)', 'F1 (bm25 turns)'],
    ['all', String(r.questions), fixed(r.f1, 3), fixed(r.bm25F1, 3)],
    ...r.byCategory.map((k) => [`${k.name} (${k.category})`, String(k.questions), fixed(k.f1, 3), fixed(k.bm25F1, 3)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((cells) => (cells[i] ?? '').length)));
  return [
    `question answering · ${r.dataset} · ${r.questions} questions · reader ${c.reader}${c.baseURL === null ? '' : ` at ${c.baseURL}`}`,
    `${c.model} model · topP ${c.topP} · budget ${c.memoryBudgetTokens} tokens · gate ${c.chunkGateTokens} tokens · scope ${c.scope}`,
    '',
    ...rows.map((cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd()),
    '',
    `mean tokens in context ${fixed(r.meanTokensRecalled, 0)} (bm25 ${fixed(r.meanBm25Tokens, 0)})`,
    `chat requests          ${r.requests} (${r.promptTokens} prompt + ${r.completionTokens} completion tokens reported)`,
    `elapsed                ${(r.elapsedMs / 1000).toFixed(1)} s`,
  ];
}

/**
 * Evaluates question answering on `source` and writes the report to `sink`.
 *
 * @example
 * ```ts
 * await runQaEval({ kind: 'locomo', path: './locomo' }, (l) => console.log(l), {
 *   reader: { baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:7b-instruct' }, limit: 100, json: true,
 * });
 * ```
 */
export async function runQaEval(source: RecallEvalSource, sink: LineSink, options: Omit<QaEvalOptions, 'dataset'> & { readonly json?: boolean }): Promise<QaEvalReport> {
  const { json, ...evalOptions } = options;
  const { conversations, dataset } = await loadRecallEvalSource(source);
  const report = await evaluateQa(conversations, { ...evalOptions, dataset });
  const out = lineWriter(sink);
  if (json === true) await out.line(JSON.stringify(report));
  else for (const l of qaReportLines(report)) await out.line(l);
  return report;
}

/**
 * `akashic eval recall` as a library call: load the conversations (a LoCoMo copy or the synthetic generator),
 * evaluate, and write the report to a sink. The CLI command only parses its flags and calls this.
 */
import { invalidArgument } from '../../errors.js';
import type { LineSink } from '../../util/line-sink.js';
import type { Conversation } from '../workload/conversation.js';
import { loadLocomo } from '../workload/locomo-loader.js';
import { generateSynthetic, resolveSyntheticOptions, type SyntheticOptions } from '../workload/synthetic.js';
import { evaluateRecall, type RecallEvalOptions, type RecallEvalReport } from './recall-eval.js';
import { writeRecallReport } from './recall-report-format.js';

/** Where the conversations come from. */
export type RecallEvalSource =
  /** A LoCoMo `.json` file or a folder of them, read in place (never copied). */
  | { readonly kind: 'locomo'; readonly path: string }
  /** `generateSynthetic(options)`; its defaults when no option is given. */
  | { readonly kind: 'synthetic'; readonly options?: SyntheticOptions };

/** Loads a source's conversations and the label the report carries for it. */
export async function loadRecallEvalSource(source: RecallEvalSource): Promise<{ conversations: Conversation[]; dataset: string }> {
  if (source === null || typeof source !== 'object') throw invalidArgument('source must be an object');
  if (source.kind === 'locomo') return { conversations: await loadLocomo(source.path), dataset: `locomo ${source.path}` };
  if (source.kind === 'synthetic') {
    const o = resolveSyntheticOptions(source.options ?? {});
    const label = `synthetic users=${o.users} sessions=${o.sessionsPerUser} turns=${o.turnsPerSession} questions=${o.questionsPerUser} seed=${o.seed}${o.style === 'chat' ? '' : ` style=${o.style}`}`;
    return { conversations: generateSynthetic(o), dataset: label };
  }
  throw invalidArgument(`source.kind must be 'locomo' or 'synthetic'`);
}

/**
 * Evaluates recall on `source` and writes the report to `sink` (a table, or one JSON line with `json`).
 *
 * @example
 * ```ts
 * const report = await runRecallEval({ kind: 'synthetic' }, (line) => console.log(line), { json: true });
 * ```
 */
export async function runRecallEval(
  source: RecallEvalSource,
  sink: LineSink,
  options: Omit<RecallEvalOptions, 'dataset'> & { readonly json?: boolean } = {},
): Promise<RecallEvalReport> {
  const { json, ...evalOptions } = options;
  const { conversations, dataset } = await loadRecallEvalSource(source);
  const report = await evaluateRecall(conversations, { ...evalOptions, dataset });
  await writeRecallReport(report, sink, { json: json === true });
  return report;
}

/** Renders a {@link RecallEvalReport} as the text table of `akashic eval recall`, or as one JSON line. */
import { lineWriter, type LineSink } from '../../util/line-sink.js';
import type { RecallEvalReport } from './recall-eval.js';
import type { RecallRatios } from './recall-metrics.js';
import { MARGIN_TARGET } from './margin-spread.js';

const fixed = (v: number | null, digits: number): string => (v === null ? 'n/a' : v.toFixed(digits));

/** The human-readable lines of a report: a header, a table by category, then costs. */
export function recallReportLines(r: RecallEvalReport): string[] {
  const c = r.config;
  const head = [
    `recall quality · ${r.dataset} · ${r.conversations} conversations · ${r.sessions} sessions · ${r.turns} turns · ` +
      `${r.questions} questions (${r.questionsWithoutEvidence} without evidence, left out of the ratios)`,
    `${c.model} model${c.select === 'lexical' ? '' : ` · ${c.select} SELECT (word-mean embedder)`} · topP ${c.topP} · budget ${c.memoryBudgetTokens} tokens · gate ${c.chunkGateTokens} tokens · ` +
      `${c.keywordLimit} keywords/chunk · scope ${c.scope} · ${c.tokenizer} · ${c.store}`,
    '',
  ];
  const header = ['category', 'questions', `evidence recall@${c.topP}`, 'turn recall', 'answer sentence', 'bm25 evidence', 'bm25 turns'];
  const row = (label: string, x: RecallRatios): string[] => [
    label,
    String(x.questionsWithEvidence),
    fixed(x.evidenceRecallAt5, 3),
    fixed(x.turnRecall, 3),
    fixed(x.answerSentenceRecall, 3),
    fixed(x.bm25EvidenceRecall, 3),
    fixed(x.bm25TurnRecall, 3),
  ];
  const rows = [header, row('all', r), ...r.byCategory.map((k) => row(`${k.name} (${k.category})`, k))];
  const widths = header.map((_, i) => Math.max(...rows.map((cells) => (cells[i] ?? '').length)));
  const table = rows.map((cells) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd(),
  );
  const costs = [
    '',
    marginLine(r),
    `mean tokens recalled   ${fixed(r.meanTokensRecalled, 0)} (bm25 ${fixed(r.meanBm25Tokens, 0)})`,
    `evidence token share   ${fixed(r.evidenceTokenShare, 3)} (bm25 ${fixed(r.bm25EvidenceTokenShare, 3)})`,
    `mean chunks recalled   ${fixed(r.meanChunksRecalled, 2)} (${fixed(r.meanChunksDropped, 2)} more selected, cut by the budget)`,
    `mean blocks touched    ${fixed(r.meanBlocksTouched, 2)}`,
    `chunks per user        ${fixed(r.chunksPerUser, 1)} (mean ${fixed(r.meanChunkTokens, 0)} tokens)`,
    `elapsed                ${(r.elapsedMs / 1000).toFixed(1)} s`,
  ];
  if (r.backgroundErrors > 0) costs.push(`background errors      ${r.backgroundErrors}`);
  return [...head, ...table, ...costs];
}

/** The margin per conversation, e.g. `margin per conversation  mean +0.106 · median +0.125 · min +0.025 · max +0.150 · 1 of 4 below +0.10`. */
function marginLine(r: RecallEvalReport): string {
  const m = r.marginByConversation;
  const signed = (v: number | null): string => (v === null ? 'n/a' : `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(3)}`);
  return (
    `margin per conversation  mean ${signed(m.mean)} · median ${signed(m.median)} · min ${signed(m.min)} · max ${signed(m.max)} · ` +
    `${m.belowTarget} of ${m.conversations} below +${MARGIN_TARGET.toFixed(2)}`
  );
}

/** Writes a report to a sink: with `json`, exactly the report object as one JSON line; otherwise the table. */
export async function writeRecallReport(report: RecallEvalReport, sink: LineSink, opts: { readonly json?: boolean } = {}): Promise<void> {
  const out = lineWriter(sink);
  if (opts.json === true) await out.line(JSON.stringify(report));
  else for (const l of recallReportLines(report)) await out.line(l);
}

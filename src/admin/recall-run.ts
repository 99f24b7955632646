import type { AkashicStore } from '../engine/akashic-store.js';
import { AkashicMemory, type RecallResult } from '../memattention/memory.js';
import type { MemoryScope } from '../memattention/options.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

export interface RecallToolOptions {
  readonly user: string;
  readonly query: string;
  /** The session asking; its uncompacted turns are shown as the memory would show them. Default `akashic-cli`. */
  readonly session?: string;
  /** Default 'user': every session of the user (a person asking "what does memory hold about X?"). */
  readonly scope?: MemoryScope;
  readonly topP?: number;
  readonly memoryBudgetTokens?: number;
  readonly json?: boolean;
}

/** The session a recall from the command line asks from, when none is given (a session nobody writes to). */
export const CLI_SESSION = 'akashic-cli';

/** A passage's score, printed when it is a number (a model may have none to give). */
function scoreOf(passage: { readonly score: number }): number | undefined {
  return Number.isFinite(passage.score) ? passage.score : undefined;
}

/**
 * Recalls as an agent's prompt would, with the embedded defaults, and writes what memory would put in the prompt
 * (the recall's `text`, verbatim), then each passage's score and where it came from (session, chunk, turns), then
 * the figures. Never writes: relocation is off and the caller opens the store read-only.
 */
export async function recallToSink(store: AkashicStore, sink: LineSink, opts: RecallToolOptions): Promise<RecallResult> {
  const memory = new AkashicMemory(store, { relocateEveryRecalls: 0 });
  let r: RecallResult;
  try {
    r = await memory.recall({
      user: opts.user,
      session: opts.session ?? CLI_SESSION,
      query: opts.query,
      scope: opts.scope ?? 'user',
      ...(opts.topP === undefined ? {} : { topP: opts.topP }),
      ...(opts.memoryBudgetTokens === undefined ? {} : { memoryBudgetTokens: opts.memoryBudgetTokens }),
    });
  } finally {
    await memory.close();
  }
  const out = lineWriter(sink);
  if (opts.json === true) {
    const { relocation: _relocation, ...shown } = r;
    await out.line(JSON.stringify(shown));
    return r;
  }
  if (r.text === '' && r.activeTurns.length === 0) {
    await out.line(`memory holds nothing for this question (${r.candidates} chunk(s) considered)`);
    return r;
  }
  if (r.text !== '') {
    await out.line('--- memory text (what the prompt would get) ---');
    for (const line of r.text.split('\n')) await out.line(line);
  }
  if (r.activeTurns.length > 0) {
    await out.line(`--- uncompacted turns of session ${opts.session ?? CLI_SESSION} ---`);
    for (const t of r.activeTurns) await out.line(`${t.role}: ${t.text}`);
  }
  await out.line('--- passages ---');
  for (const [i, p] of r.passages.entries()) {
    const score = scoreOf(p);
    const first = p.text.split('\n')[0] ?? '';
    const shown = first.length > 80 ? `${first.slice(0, 77)}...` : first;
    await out.line(`${i + 1}. ${score === undefined ? '' : `score ${score.toFixed(3)}  `}session ${p.sessionId}, chunk ${p.chunkId}, turns ${p.turnIds.join(' ') || '-'}: ${shown}`);
  }
  await out.line(`${r.passages.length} passage(s) from ${r.chunks.length} chunk(s), ${r.tokenCount} tokens, ${r.candidates} candidate(s), ${r.dropped} dropped by the budget, ${r.blocksTouched} block(s) read`);
  return r;
}

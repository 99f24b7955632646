import type { AkashicStore } from '../engine/akashic-store.js';
import type { VerifyReport } from '../api/reports.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

export interface VerifyToolOptions {
  /** Called with blocks checked so far and the number of blocks to check. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Block infos in the store (released ones included: verify checks those too). */
async function countBlockInfos(store: AkashicStore): Promise<number> {
  let n = 0;
  for await (const _ of store.blocks({ includeReleased: true })) n++;
  return n;
}

/**
 * Runs `store.verify()` and writes the outcome: `ok …` with what was checked, or one line per problem as
 * `kind: message` (kinds are the stable ProblemKind values) followed by a count. The caller turns
 * `report.ok` into an exit status.
 */
export async function verifyToSink(store: AkashicStore, sink: LineSink, opts: VerifyToolOptions = {}): Promise<VerifyReport> {
  const onProgress = opts.onProgress;
  const total = onProgress === undefined ? 0 : await countBlockInfos(store);
  onProgress?.(0, total);
  const report = await store.verify(onProgress === undefined ? undefined : (done) => onProgress(done, total));
  const out = lineWriter(sink);
  const c = report.checked;
  const what = `${c.blocks} blocks, ${c.frames} frames, ${c.records} records, ${c.chunks} live chunks`;
  if (report.ok) {
    await out.line(`ok: checked ${what}`);
    return report;
  }
  for (const p of report.problems) await out.line(`${p.kind}: ${p.message}`);
  const kinds = [...new Set(report.problems.map((p) => p.kind))].join(', ');
  await out.line(`FAILED: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} (${kinds}); checked ${what}`);
  return report;
}

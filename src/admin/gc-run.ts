import type { AkashicStore } from '../engine/akashic-store.js';
import { readOnlyScans } from '../engine/internal-seams.js';
import type { GcReport } from '../api/reports.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

export interface GcToolOptions {
  /** θ for this pass; default the store's. */
  readonly threshold?: number;
  readonly maxBlocks?: number;
  readonly json?: boolean;
  /**
   * Called with victims done and the victims expected. The engine's gc() reports no progress while it runs,
   * so this fires at the start (0 of n) and at the end (n of n) only.
   */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Runs one GC pass now and writes its GcReport (`key: value` lines, or one JSON line). */
export async function runGcToSink(store: AkashicStore, sink: LineSink, opts: GcToolOptions = {}): Promise<GcReport> {
  const threshold = opts.threshold ?? store.options.gcThreshold;
  if (opts.onProgress !== undefined) opts.onProgress(0, await store[readOnlyScans].gcVictims(threshold, opts.maxBlocks ?? Number.MAX_SAFE_INTEGER));
  const report = await store.gc({ threshold, ...(opts.maxBlocks === undefined ? {} : { maxBlocks: opts.maxBlocks }) });
  opts.onProgress?.(report.victims, report.victims);
  const out = lineWriter(sink);
  if (opts.json === true) await out.line(JSON.stringify(report));
  else for (const [k, v] of Object.entries(report)) await out.line(`${k}: ${String(v)}`);
  return report;
}

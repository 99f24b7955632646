import type { AkashicStore } from '../engine/akashic-store.js';
import type { StoreStats } from '../api/reports.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

/** `key: value` lines of a stats object; nested objects flatten to dotted keys, arrays print as JSON. */
export function statsLines(stats: StoreStats): string[] {
  const lines: string[] = [];
  const walk = (prefix: string, o: object): void => {
    for (const [k, v] of Object.entries(o)) {
      const key = prefix + k;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(key + '.', v as object);
      else lines.push(`${key}: ${Array.isArray(v) ? JSON.stringify(v) : String(v)}`);
    }
  };
  walk('', stats);
  return lines;
}

/**
 * Writes `store.stats()`: with `json`, exactly the StoreStats object as one JSON line (its field names are the
 * documented contract); otherwise one `key: value` line per field.
 */
export async function writeStats(store: AkashicStore, sink: LineSink, opts: { readonly json?: boolean } = {}): Promise<StoreStats> {
  const stats = await store.stats();
  const out = lineWriter(sink);
  if (opts.json === true) await out.line(JSON.stringify(stats));
  else for (const l of statsLines(stats)) await out.line(l);
  return stats;
}

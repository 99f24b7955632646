import type { ModelUsageStats, UsageTotals } from '../../api/model-usage.js';
import { rowTotals, type ModelUsageRow } from '../../record/model-usage-rows.js';

/** Rows grouped by `by`, each group totalled. */
function groupTotals(rows: readonly ModelUsageRow[], by: (r: ModelUsageRow) => string): Record<string, UsageTotals> {
  const groups = new Map<string, ModelUsageRow[]>();
  for (const r of rows) {
    const k = by(r);
    const g = groups.get(k);
    if (g === undefined) groups.set(k, [r]);
    else g.push(r);
  }
  return Object.fromEntries([...groups].map(([k, g]) => [k, rowTotals(g)]));
}

/**
 * The store's model usage from its accounting: `total` (the rows of every user summed) and each user's rows
 * (users without usage absent), as totals overall, per usage kind, per call and per user.
 */
export function modelUsageStats(total: readonly ModelUsageRow[], byUser: ReadonlyMap<string, readonly ModelUsageRow[]>): ModelUsageStats {
  return {
    total: rowTotals(total),
    byOperation: groupTotals(total, (r) => r.kind),
    byCall: groupTotals(total, (r) => r.call),
    byUser: Object.fromEntries([...byUser].map(([u, rows]) => [u, rowTotals(rows)])),
  };
}

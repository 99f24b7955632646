import type { AkashicStore } from '../engine/akashic-store.js';
import type { PurgeReport, VerifyReport } from '../api/reports.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

export interface PurgeToolOptions {
  readonly user: string;
  readonly session?: string;
  readonly json?: boolean;
}

/**
 * Erases a user (or one of its sessions) with `AkashicStore.purge`, then runs `verify()` over the result, and
 * writes both reports (`key: value` lines, or one JSON line `{ purge, verify }`).
 */
export async function purgeToSink(store: AkashicStore, sink: LineSink, opts: PurgeToolOptions): Promise<{ purge: PurgeReport; verify: VerifyReport }> {
  const purge = await store.purge(opts.session === undefined ? { user: opts.user } : { user: opts.user, session: opts.session });
  const verify = await store.verify();
  const out = lineWriter(sink);
  if (opts.json === true) await out.line(JSON.stringify({ purge, verify: { ok: verify.ok, problems: verify.problems } }));
  else {
    for (const [k, v] of Object.entries(purge)) await out.line(`${k}: ${String(v)}`);
    await out.line(`verified: ${verify.ok ? 'ok' : `${verify.problems.length} problem(s)`}`);
    for (const p of verify.problems) await out.line(`problem: ${p.kind}: ${p.message}`);
  }
  return { purge, verify };
}

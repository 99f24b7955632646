import type { AkashicStore } from '../engine/akashic-store.js';
import { activeTurnLog } from '../engine/internal-seams.js';
import { AkashicError } from '../errors.js';
import type { ListedChunk, PurgeReport, VerifyReport } from '../api/index.js';
import { lineWriter, type LineSink } from '../util/line-sink.js';

export interface PurgeToolOptions {
  readonly user: string;
  readonly session?: string;
  readonly json?: boolean;
  /** List what a purge would erase and change nothing. */
  readonly dryRun?: boolean;
}

/** What a purge of a scope would erase, read without changing anything. */
export interface PurgePlan {
  readonly userId: string;
  readonly sessionId: string | null;
  /** Every chunk of the scope: live, expired and deleted (tombstones). */
  readonly chunks: readonly ListedChunk[];
  /** Sessions of the scope with turns not yet compacted into chunks. */
  readonly activeSessions: readonly string[];
}

/** Reads what `purge(scope)` would erase. Cost: one scan of the scope's directory and active turns. */
export async function planPurge(store: AkashicStore, scope: { user: string; session?: string }): Promise<PurgePlan> {
  const chunks: ListedChunk[] = [];
  const listOptions = { includeDeleted: true, includeExpired: true, ...(scope.session === undefined ? {} : { sessionId: scope.session }) };
  for await (const c of store.list(scope.user, listOptions)) chunks.push(c);
  const active = (await store[activeTurnLog].sessions(scope.user)).filter((s) => scope.session === undefined || s === scope.session);
  return { userId: scope.user, sessionId: scope.session ?? null, chunks, activeSessions: active };
}

function describeScope(plan: PurgePlan): string {
  return plan.sessionId === null ? `user ${JSON.stringify(plan.userId)}` : `session ${JSON.stringify(plan.sessionId)} of user ${JSON.stringify(plan.userId)}`;
}

/**
 * Erases a user (or one of its sessions) with `AkashicStore.purge`, then runs `verify()` over the result, and
 * writes both reports (`key: value` lines, or one JSON line `{ purge, verify }`). With `dryRun`, writes what would
 * be erased (one line per chunk, then the sessions with uncompacted turns) and changes nothing.
 *
 * @throws AkashicError `AKASHIC_NOT_FOUND` when the database holds nothing of the scope (nothing is changed): a
 *   mistyped user id must not look like a successful erasure.
 */
export async function purgeToSink(
  store: AkashicStore,
  sink: LineSink,
  opts: PurgeToolOptions,
): Promise<{ purge: PurgeReport | null; verify: VerifyReport | null; plan: PurgePlan }> {
  const scope = opts.session === undefined ? { user: opts.user } : { user: opts.user, session: opts.session };
  const plan = await planPurge(store, scope);
  if (plan.chunks.length === 0 && plan.activeSessions.length === 0) {
    throw new AkashicError('AKASHIC_NOT_FOUND', `the database holds nothing of ${describeScope(plan)}: nothing to purge`);
  }
  const out = lineWriter(sink);
  if (opts.dryRun === true) {
    if (opts.json === true) {
      const chunks = plan.chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId, state: c.entry.state, kind: c.entry.kind, tokens: c.entry.tokenCount }));
      await out.line(JSON.stringify({ dryRun: true, userId: plan.userId, sessionId: plan.sessionId, chunks, activeSessions: plan.activeSessions }));
    } else {
      for (const c of plan.chunks) await out.line(`would erase chunk ${c.sessionId}/${c.chunkId} (${c.entry.state}, ${c.entry.kind}, ${c.entry.tokenCount} tokens)`);
      for (const s of plan.activeSessions) await out.line(`would erase the uncompacted turns of session ${s}`);
      await out.line(`dry run: ${plan.chunks.length} chunk(s) and ${plan.activeSessions.length} session(s) of uncompacted turns of ${describeScope(plan)}; nothing was changed`);
    }
    return { purge: null, verify: null, plan };
  }
  const purge = await store.purge(scope);
  const verify = await store.verify();
  if (opts.json === true) await out.line(JSON.stringify({ purge, verify: { ok: verify.ok, problems: verify.problems } }));
  else {
    for (const [k, v] of Object.entries(purge)) await out.line(`${k}: ${String(v)}`);
    await out.line(`verified: ${verify.ok ? 'ok' : `${verify.problems.length} problem(s)`}`);
    for (const p of verify.problems) await out.line(`problem: ${p.kind}: ${p.message}`);
  }
  return { purge, verify, plan };
}

import type { AkashicStore } from '../engine/akashic-store.js';
import { readOnlyScans } from '../engine/internal-seams.js';
import type { EngineMeta } from '../record/engine-records.js';
import type { StoreStats } from '../api/reports.js';
import type { UsageTotals } from '../api/model-usage.js';
import { lineWriter, writeLines, type LineSink } from '../util/line-sink.js';
import { formatBytes, formatRatio, phiBucketLabel, textBars } from '../util/text-format.js';

/** Per-user figures from the directory. */
export interface UserSummary {
  readonly userId: string;
  readonly sessions: number;
  readonly live: number;
  readonly updated: number;
  readonly deleted: number;
}

export interface Inspection {
  readonly stats: StoreStats;
  readonly meta: EngineMeta;
  /** Users in key order. */
  readonly users: UserSummary[];
}

/** Gathers what `inspect` shows: stats, the engine meta, and a per-user summary (one directory walk). */
export async function collectInspection(store: AkashicStore): Promise<Inspection> {
  const stats = await store.stats();
  const scans = store[readOnlyScans];
  const users: UserSummary[] = [];
  let cur: { userId: string; sessions: Set<string>; live: number; updated: number; deleted: number } | null = null;
  const done = (): void => {
    if (cur !== null) users.push({ userId: cur.userId, sessions: cur.sessions.size, live: cur.live, updated: cur.updated, deleted: cur.deleted });
  };
  const view = scans.snapshot();
  try {
    for await (const { userId, sessionId, entry } of view.entries(null, null)) {
      if (cur === null || cur.userId !== userId) {
        done();
        cur = { userId, sessions: new Set(), live: 0, updated: 0, deleted: 0 };
      }
      cur.sessions.add(sessionId);
      if (entry.state === 'live') {
        cur.live++;
        if (entry.version > 1) cur.updated++;
      } else cur.deleted++;
    }
  } finally {
    await view.close();
  }
  done();
  return { stats, meta: scans.meta, users };
}

/** One line of model-usage totals. */
function modelUsageText(t: UsageTotals): string {
  const failed = t.failedCalls === 0 ? '' : ` (${t.failedCalls} failed)`;
  return `${t.calls} calls${failed}, ${t.promptTokens} prompt + ${t.completionTokens} completion tokens, ${t.retries} retries, ${(t.latencyMs / 1000).toFixed(1)} s`;
}

/** The readable summary, as lines. `maxUsers` caps the per-user table. */
export function inspectionLines(x: Inspection, maxUsers = 20): string[] {
  const s = x.stats;
  const row = (k: string, v: string): string => `${k.padEnd(18)}${v}`;
  const lines = [
    row('format version', `${s.formatVersion} (written by engine ${s.engineVersion}; created ${new Date(x.meta.createdAt).toISOString()})`),
    row('block layout', `${x.meta.blockCapacity} slots or ${formatBytes(x.meta.blockMaxBytes)} per block, ${x.meta.crossSessionBlocks ? 'sessions of a user may share a block' : 'one session per block'}`),
    row('users', String(s.users)),
    row('sessions', String(s.sessions)),
    row('chunks', `${s.chunks} live (${s.updatedChunks} updated), ${s.deletedChunks} deleted`),
    row('blocks', `${s.blocks} holding data: ${s.blocksByState.open} open, ${s.blocksByState.sealed} sealed; ${s.blocksByState.released} released`),
    row('bytes', `live ${formatBytes(s.liveBytes)}, stored raw ${formatBytes(s.storedRawBytes)}, stored compressed ${formatBytes(s.storedBytes)}`),
    row('on disk', s.diskBytes === null ? 'n/a' : formatBytes(s.diskBytes)),
    row('space amp.', `${formatRatio(s.spaceAmplification)} raw/live, ${formatRatio(s.storedSpaceRatio)} stored/live`),
    row('write amp.', `${formatRatio(s.writeAmplification)} (${formatBytes(s.engineBytesWritten)} written for ${formatBytes(s.logicalBytesIngested)} ingested)`),
    row('relocations', `${s.relocations} (${s.relocatedChunks} chunks moved)`),
    row('gc', `${s.gcRuns} runs, ${s.gcMovedChunks} chunks moved; ${s.blocksCreated} blocks created, ${s.blocksReleased} released`),
    row('retrievals', `${s.retrievals}, ${s.blocksPerRetrieval === null ? 'n/a' : s.blocksPerRetrieval.toFixed(2)} blocks per retrieval`),
    row('model usage', modelUsageText(s.modelUsage.total)),
    ...Object.entries(s.modelUsage.byOperation).map(([kind, t]) => row(`  ${kind}`, modelUsageText(t))),
    '',
    'φ histogram (invalid-slot ratio of open and sealed blocks)',
    ...textBars(s.phiHistogram.map((_, i) => phiBucketLabel(i)), s.phiHistogram).map((l) => '  ' + l),
  ];
  if (x.users.length > 0) {
    lines.push('', 'users');
    const w = Math.min(40, Math.max(...x.users.map((u) => JSON.stringify(u.userId).length)));
    for (const u of x.users.slice(0, maxUsers)) {
      lines.push(`  ${JSON.stringify(u.userId).padEnd(w)}  ${u.sessions} sessions  ${u.live} live (${u.updated} updated)  ${u.deleted} deleted`);
    }
    if (x.users.length > maxUsers) lines.push(`  … and ${x.users.length - maxUsers} more users`);
  }
  return lines;
}

/**
 * Writes a readable summary of a store: users, sessions, chunks, blocks by state, the φ histogram as text bars,
 * space and write amplification, on-disk size and format version.
 *
 * @example
 *   await inspectStore(store, process.stdout);
 */
export async function inspectStore(store: AkashicStore, sink: LineSink): Promise<Inspection> {
  const x = await collectInspection(store);
  await writeLines(lineWriter(sink), inspectionLines(x));
  return x;
}

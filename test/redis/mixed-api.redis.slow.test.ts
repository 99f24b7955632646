/**
 * Many processes, one memory, the full API: four processes open the same Redis Cluster store and, for a minute
 * (AKASHIC_MIX_SECONDS, default 60), serve the same users at once from two loops each — appendTurn with a gate
 * small enough that compactions run all the time, endSession, recall, store put/update/delete of notes, and purges
 * of users kept for purging (which the processes keep using afterwards). Then the real CLI's `verify --db URL`
 * must exit clean and the oracle (test/support/mixed-api-oracle.ts) must find every acknowledged operation
 * reflected, no duplicate chunk, no half-applied compaction and nothing from before a purge.
 *
 * The write-back queue runs in the background (the default): a compaction is acknowledged separately from the
 * append that gated it, so one process's background compaction races other processes' appends, compactions,
 * endSessions and purges of the same session — the concurrency a deployment of several workers has.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';
import { checkMixedRun, readFinalState, type LogEntry } from '../support/mixed-api-oracle.js';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./fixtures/mixed-worker.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/akashic.js', import.meta.url));
const PROCESSES = 4;
const SECONDS = Number(process.env['AKASHIC_MIX_SECONDS'] ?? 60);
const USERS = ['ada', 'bob', 'cy', 'dee'];
const PURGE_USERS = ['px', 'py'];
const TURN_SESSIONS = ['c0', 'c1'];

describe.skipIf(REDIS_URL === null)('four processes serving the same users with the full API', () => {
  const prefix = testPrefix();
  const dir = mkdtempSync(join(tmpdir(), 'akashic-mix-'));
  afterAll(async () => {
    if (process.env['AKASHIC_MIX_KEEP'] !== undefined) return;
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`reflects every acknowledged operation after ${SECONDS} s of mixed load`, { timeout: (SECONDS + 180) * 1000 }, async () => {
    const url = urlWithPrefix(prefix);
    const logs = Array.from({ length: PROCESSES }, (_, i) => join(dir, `p${i}.jsonl`));
    await Promise.all(
      logs.map((log, i) => run(process.execPath, [WORKER, url, String(i), String(SECONDS * 1000), log, USERS.join(','), PURGE_USERS.join(',')], { maxBuffer: 1 << 24 })),
    );
    const entries = logs.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as LogEntry),
    );

    // Every process finished, and nothing failed in a way the API does not promise.
    const done = entries.filter((e) => e.k === 'done');
    expect(done).toHaveLength(PROCESSES);
    const failures = entries.filter((e) => e.k === 'fail');
    const unexpected = failures.filter((e) => !expectedFailure(e)).map((e) => `${e.tried?.k}: ${e.code} ${String((e as { message?: string }).message)}`);
    const bgErrors = entries.filter((e) => e.k === 'background-error');

    // Every user was served by at least two processes, and every kind of operation was acknowledged.
    for (const u of [...USERS, ...PURGE_USERS]) expect(new Set(entries.filter((e) => e.user === u && e.k !== 'fail').map((e) => e.p)).size).toBeGreaterThanOrEqual(2);
    const perKind: Record<string, number> = {};
    for (const e of entries) perKind[e.k] = (perKind[e.k] ?? 0) + 1;
    for (const k of ['turn', 'end', 'recall', 'put', 'update', 'delete', 'purge']) expect(perKind[k] ?? 0).toBeGreaterThan(0);

    if (process.env['AKASHIC_MIX_KEEP'] !== undefined) console.log(`logs kept in ${dir}, store at ${url}`);
    // The real CLI verifies the deployment while nothing writes.
    const verify = await run(process.execPath, [CLI, 'verify', '--db', url], { maxBuffer: 1 << 24 }).catch((err: { code: number; stdout: string; stderr: string }) => err);
    const verifyCode = 'code' in verify ? verify.code : 0;

    const store = await AkashicStore.open({ url, readOnly: true });
    let problems: string[];
    let state;
    try {
      state = await readFinalState(store, [...USERS, ...PURGE_USERS], TURN_SESSIONS);
      problems = checkMixedRun(entries, state);
    } finally {
      await store.close();
    }
    const failCodes: Record<string, number> = {};
    for (const e of failures) failCodes[`${e.tried?.k}:${e.code}`] = (failCodes[`${e.tried?.k}:${e.code}`] ?? 0) + 1;
    const memoryChunks = state.chunks.filter((c) => c.session !== 'notes').length;
    console.log(
      [
        `mixed run: ${PROCESSES} processes x 2 loops, ${SECONDS} s, users ${USERS.join(',')} + purged ${PURGE_USERS.join(',')}`,
        `acknowledged: ${['turn', 'end', 'recall', 'put', 'update', 'delete', 'purge'].map((k) => `${k} ${perKind[k] ?? 0}`).join(', ')}`,
        `refused (nothing applied): ${Object.entries(failCodes).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}; background compaction errors (retried): ${bgErrors.length}`,
        `writes staged again after another process changed the user first (conflicts retried, all processes): ${done.reduce((n, e) => n + (e.conflictsRetried ?? 0), 0)}`,
        `final: ${state.active.length} active turns, ${memoryChunks} memory chunks, ${state.chunks.length - memoryChunks} notes; oracle problems: ${problems.length}`,
        ...problems.slice(0, 15),
        ...unexpected.slice(0, 15),
      ].join('\n'),
    );
    expect(verifyCode, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(unexpected).toEqual([]);
    expect(problems.slice(0, 40)).toEqual([]);
  });
});

/**
 * Failures the API documents for this workload: a compare-and-swap that lost (AKASHIC_CONFLICT), an update or
 * delete of a note another process deleted or purged first (AKASHIC_NOT_FOUND).
 */
function expectedFailure(e: LogEntry): boolean {
  const k = e.tried?.k;
  if (e.code === 'AKASHIC_NOT_FOUND') return k === 'update' || k === 'delete';
  if (e.code === 'AKASHIC_CONFLICT') return k === 'update' && e.tried?.expectVersion !== undefined;
  return false;
}

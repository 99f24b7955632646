/**
 * The crash test over Redis Cluster: the writer process is SIGKILLed at random moments while it writes the store on
 * the cluster (store ops, MemAttention turns and compactions, GC passes), and after each kill a fresh process's
 * view must pass verify() and hold exactly the acknowledged ops (plus, at most, the one in flight). A short run;
 * the long one is `node dist/tools/crash-test/run.js --cycles N --url URL` (docs/reliability.md).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCrashTest } from '../../tools/crash-test/harness.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

const CYCLES = 8;

describe.skipIf(REDIS_URL === null)('crash test over Redis Cluster (quick mode)', () => {
  const prefix = testPrefix();
  let dir = '';
  afterAll(async () => {
    await dropPrefix(prefix);
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  it('survives SIGKILL of the writer: verify() is clean and the state is the acknowledged ops (plus the one in flight)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-crash-redis-'));
    const report = await runCrashTest({ cycles: CYCLES, seed: 20_261_127, dir, url: urlWithPrefix(prefix), opsPerCycle: 120, memoryShare: 0.5, maxKillMs: 2500 });
    expect(report.failure).toBeNull();
    expect(report.cyclesSurvived).toBe(CYCLES);
    expect(report.dbPath).toContain('redis+cluster://');
    // Kills landed after acknowledged work, and most of them while the child was inside an operation.
    expect(report.ackedOps).toBeGreaterThan(CYCLES);
    expect(report.kills.write + report.kills.relocation + report.kills.compaction + report.kills['gc-op'] + report.kills.recall).toBeGreaterThan(0);
  }, 180_000);
});

/**
 * Crash test, quick mode: a handful of kill/reopen cycles of the full crash test (tools/crash-test). The full
 * mode (hundreds of cycles) runs with `node dist/tools/crash-test/run.js --cycles N`; see docs/reliability.md.
 * Needs the compiled child: `npx tsc -p tsconfig.json` first (npm test builds).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCrashTest } from '../../tools/crash-test/harness.js';

describe('crash test (quick mode)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('survives SIGKILL at random moments: verify() is clean and the state is a prefix of the issued ops', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-crash-quick-'));
    dirs.push(dir);
    const report = await runCrashTest({ cycles: 12, seed: 20_240_601, dir, opsPerCycle: 200, memoryShare: 0.35 });
    expect(report.failure).toBeNull();
    expect(report.cyclesSurvived).toBe(12);
    // The kills are not all before the first op: acknowledged work was checked.
    expect(report.ackedOps).toBeGreaterThan(0);
  }, 120_000);

  it('fault steps: injected write errors and full disks stepped through the writes, torn and flipped log tails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-crash-faults-'));
    dirs.push(dir);
    const report = await runCrashTest({ cycles: 12, seed: 20_251_123, dir, opsPerCycle: 60, memoryShare: 0.35, faults: true });
    expect(report.failure).toBeNull();
    expect(report.cyclesSurvived).toBe(12);
    const f = report.faults;
    // Every kind ran, and each write fault that was hit was followed by a refused write.
    expect(f.cycles['write-error'] + f.cycles['disk-full']).toBeGreaterThan(0);
    expect(f.cycles['torn-log'] + f.cycles['flipped-log']).toBeGreaterThan(0);
    expect(f.writeFaultsHit).toBeGreaterThan(0);
    expect(f.refusedAfterFault).toBe(f.writeFaultsHit);
    // (A cycle killed before its child wrote anything has no log to damage.)
    expect(f.logRefused + f.logOpenedAsPrefix).toBeGreaterThan(0);
    expect(f.logRefused + f.logOpenedAsPrefix).toBeLessThanOrEqual(f.cycles['torn-log'] + f.cycles['flipped-log']);
  }, 180_000);
});

/**
 * Bounded resources, quick variant: verify(), a full dump and a GC pass over a database several times larger than
 * the memory bound each keep their live heap within it. Runs tools/crash-test/memory-bound.js in a child process
 * (it needs --expose-gc for exact live-heap samples, and runs under a small --max-old-space-size as well).
 * The big variant (200k chunks, 120 MB of records) runs with the same script; see docs/reliability.md.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../dist/tools/crash-test/memory-bound.js', import.meta.url));
const BOUND_MB = 4;

describe('bounded resources', () => {
  it(`verify, dump and GC of a 40k-chunk database each stay within ${BOUND_MB} MB of live heap`, () => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=64', script, '--chunks', '40000', '--bound-mb', String(BOUND_MB), '--cache-mb', '4'], {
      encoding: 'utf8',
      // Generous: this asserts memory, not time; building 40k chunks takes minutes on a loaded 2-core machine.
      timeout: 420_000,
    });
    expect(run.signal, run.stderr).toBeNull();
    const r = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
      storedRawMb: number;
      verify: { peakExtraMb: number; ok: boolean };
      dump: { peakExtraMb: number; lines: number; expectedLines: number };
      gc: { peakExtraMb: number; victims: number };
      chunks: number;
      verifyAfterGc: boolean;
    };
    // The database is much larger than the bound: anything holding it, or a part of it per chunk, would exceed it.
    expect(r.storedRawMb).toBeGreaterThan(5 * BOUND_MB);
    expect(r.verify.ok).toBe(true);
    expect(r.verify.peakExtraMb).toBeLessThanOrEqual(BOUND_MB);
    // The dump reads through the frame cache (4 MB here), which it may fill.
    expect(r.dump.peakExtraMb).toBeLessThanOrEqual(BOUND_MB + 4);
    // A header, one line per chunk and one per kept version (the deleted chunks' last versions, with history on).
    expect(r.dump.lines).toBe(r.dump.expectedLines);
    expect(r.dump.lines).toBeGreaterThan(r.chunks + 1);
    expect(r.gc.victims).toBeGreaterThan(100);
    expect(r.gc.peakExtraMb).toBeLessThanOrEqual(BOUND_MB);
    expect(r.verifyAfterGc).toBe(true);
    expect(run.status, run.stdout).toBe(0);
  }, 430_000);
});

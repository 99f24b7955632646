import { defineConfig } from 'vitest/config';

/**
 * Two tiers, both run by `npm test` (hence CI): `fast` (in-process behaviour suites) and `slow` (child processes:
 * the CLI, lock and damage probes, the crash and memory-bound runs; long property runs). A new slow test is named
 * `*.slow.test.ts`; the files listed here predate that convention. Run one tier with `--project fast|slow`.
 */
const SLOW = [
  'test/**/*.slow.test.ts',
  // The CLI, spawned as a user runs it (dump-format.test.ts is in-process and stays fast).
  'test/cli/dump-load.test.ts',
  'test/cli/locked-and-usage.test.ts',
  'test/cli/missing-path-and-force.test.ts',
  'test/cli/purge.test.ts',
  'test/cli/report.test.ts',
  'test/cli/stats-inspect-blocks.test.ts',
  'test/cli/verify.test.ts',
  // Other processes against the built package: lock probes, damaged tables, kill -9 cycles, memory bounds.
  'test/adapters/entry-points.test.ts',
  'test/store/errors.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/reliability/corruption-ldb.test.ts',
  'test/reliability/crash.test.ts',
  'test/reliability/disk-full.test.ts',
  'test/reliability/resources.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: at most two test files at a time.
    maxWorkers: 2,
    projects: [
      // The fast tier runs the sources, but the GC and trace workers load dist/: refuse a dist older than their sources.
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW, globalSetup: ['test/helpers/worker-freshness.ts', 'test/helpers/redis-cluster.ts'] } },
      {
        extends: true,
        // The slow tier runs the built dist/: refuse to test a dist older than its sources.
        test: { name: 'slow', include: SLOW, globalSetup: ['test/helpers/dist-freshness.ts', 'test/helpers/redis-cluster.ts'] },
      },
    ],
  },
});

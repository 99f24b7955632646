import { defineConfig } from 'vitest/config';

/**
 * Three projects, all run by `npm test` (hence CI): `fast` (in-process behaviour suites), `slow` (child processes:
 * the CLI, lock and damage probes, the crash and memory-bound runs; long property runs) and `redis` (the MemAttention
 * and adapter suites again, over Redis Cluster). A new slow test is named `*.slow.test.ts`; the files listed here
 * predate that convention. Run one with `--project fast|slow|redis`.
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

/**
 * The behaviour suites that open their stores through the test engine switch (test/support/test-engine.ts):
 * MemAttention's, the adapters' and the service's. The `redis` project runs them again with
 * AKASHIC_TEST_ENGINE=redis, each store on a prefix of its own on the suite's Redis Cluster. The shared store suites
 * (test/store) and the files that take every backend from test/support/backends.ts already run over Redis in the
 * fast tier, so they are not repeated here.
 */
const ON_TEST_ENGINE = [
  'test/memattention/*.test.ts',
  'test/adapters/ai-sdk-memory.test.ts',
  'test/adapters/langchain-chat-history.test.ts',
  'test/adapters/langgraph-graph.test.ts',
  'test/adapters/langgraph-saver-validation.test.ts',
  'test/adapters/langgraph-store-differential.test.ts',
  'test/adapters/langgraph-store-filter-pushdown.test.ts',
  'test/adapters/langgraph-store.test.ts',
  // The service the remote adapters talk to: its tenancy, concurrent clients, bad input and operations routes.
  'test/service/*.test.ts',
];
const REDIS_PROJECT = {
  extends: true,
  test: {
    name: 'redis',
    include: ON_TEST_ENGINE,
    // These two already take every backend from test/support/backends.ts in the fast tier.
    exclude: [...SLOW, 'test/memattention/backends.test.ts', 'test/memattention/model-usage-persistence.test.ts'],
    env: { AKASHIC_TEST_ENGINE: 'redis' },
    globalSetup: ['test/support/worker-freshness.ts', 'test/support/redis-cluster.ts'],
    setupFiles: ['test/support/test-engine-setup.ts'],
  },
} as const;

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: at most two test files at a time.
    maxWorkers: 2,
    projects: [
      // The fast tier runs the sources, but the GC and trace workers load dist/: refuse a dist older than their sources.
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW, globalSetup: ['test/support/worker-freshness.ts', 'test/support/redis-cluster.ts'] } },
      {
        extends: true,
        // The slow tier runs the built dist/: refuse to test a dist older than its sources.
        test: { name: 'slow', include: SLOW, globalSetup: ['test/support/dist-freshness.ts', 'test/support/redis-cluster.ts'] },
      },
      // AKASHIC_TEST_REDIS=off leaves Redis out of the run altogether.
      ...(process.env.AKASHIC_TEST_REDIS === 'off' ? [] : [REDIS_PROJECT]),
    ],
  },
});

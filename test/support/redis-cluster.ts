/**
 * Global setup of both tiers: a real Redis Cluster (3 primaries, 3 replicas) and one standalone node on 127.0.0.1
 * ports of the suite's own, started by `tools/redis/cluster.sh` (which installs Debian's `redis-server` when it is
 * missing and the suite runs as root) and stopped after the run. The suites that run over Redis read
 * `AKASHIC_TEST_REDIS_URL` (the cluster) and `AKASHIC_TEST_REDIS_SINGLE_URL`; without them they skip.
 *
 * A cluster already answering on the ports (the other tier's setup, or one a developer left running) is reused and
 * left alone. Outside CI a machine without redis-server (and without root to install it) runs the rest of the suite
 * with a warning; under CI=true that is a failure.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = `${ROOT}tools/redis/cluster.sh`;
const CLUSTER_BASE = Number(process.env.AKASHIC_TEST_REDIS_PORT ?? 7400);
const SINGLE_PORT = CLUSTER_BASE + 10;

function answers(port: number): boolean {
  try {
    return execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8', timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'] }).includes('PONG');
  } catch {
    return false;
  }
}

let started = false;

export function setup(): void {
  if (process.env.AKASHIC_TEST_REDIS === 'off') return;
  const clusterUrl = `redis+cluster://127.0.0.1:${CLUSTER_BASE},127.0.0.1:${CLUSTER_BASE + 1},127.0.0.1:${CLUSTER_BASE + 2}`;
  const singleUrl = `redis://127.0.0.1:${SINGLE_PORT}`;
  if (answers(CLUSTER_BASE) && answers(SINGLE_PORT)) {
    process.env.AKASHIC_TEST_REDIS_URL = clusterUrl;
    process.env.AKASHIC_TEST_REDIS_SINGLE_URL = singleUrl;
    return;
  }
  try {
    const env = { ...process.env, AKASHIC_REDIS_DIR: process.env.AKASHIC_REDIS_DIR ?? `/tmp/akashic-test-redis-${CLUSTER_BASE}` };
    execFileSync('bash', [SCRIPT, 'start', String(CLUSTER_BASE)], { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
    execFileSync('bash', [SCRIPT, 'single', String(SINGLE_PORT)], { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
    started = true;
    process.env.AKASHIC_TEST_REDIS_URL = clusterUrl;
    process.env.AKASHIC_TEST_REDIS_SINGLE_URL = singleUrl;
  } catch (err) {
    if (process.env.CI === 'true') throw new Error(`could not start the Redis test cluster: ${(err as Error).message}`);
    console.warn(`[akashic tests] no Redis cluster (${(err as Error).message.split('\n')[0]}): the Redis suites are skipped`);
  }
}

export function teardown(): void {
  if (!started) return;
  const env = { ...process.env, AKASHIC_REDIS_DIR: process.env.AKASHIC_REDIS_DIR ?? `/tmp/akashic-test-redis-${CLUSTER_BASE}` };
  execFileSync('bash', [SCRIPT, 'stop', String(CLUSTER_BASE)], { env, stdio: 'ignore' });
  execFileSync('bash', [SCRIPT, 'stop', String(SINGLE_PORT)], { env, stdio: 'ignore' });
}

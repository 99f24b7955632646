/**
 * Setup file of the `redis` vitest project (AKASHIC_TEST_ENGINE=redis): after each test file, close the stores it left
 * open and drop its Redis prefixes. Without a Redis deployment (no redis-server and no root to install it, outside CI)
 * every test of the project is reported as skipped rather than run again on memory-level.
 */
import { afterAll, beforeEach } from 'vitest';
import { REDIS_URL } from './redis-test-url.js';
import { releaseTestEngine } from './test-engine.js';

if (REDIS_URL === null) {
  beforeEach((ctx) => {
    ctx.skip('no Redis deployment for AKASHIC_TEST_ENGINE=redis');
  });
}

afterAll(releaseTestEngine);

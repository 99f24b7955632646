/**
 * abstract-level's own conformance suite over the Redis backend (the suite every abstract-level implementation
 * runs). Skipped without AKASHIC_TEST_REDIS_URL. Tests of explicit snapshots are not run (the backend says
 * `explicitSnapshots: false`, so the suite leaves them out itself), and iterators run the suite's "no implicit
 * snapshot" variant (`implicitSnapshots: false`).
 */
import { createRequire } from 'node:module';
import { afterAll, describe } from 'vitest';
import { RedisLevel } from '../../src/backend/redis/redis-level.js';
import { tapeOnVitest } from '../support/tape-on-vitest.js';
import { REDIS_SINGLE_URL, REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from '../support/redis-test-url.js';

const require = createRequire(import.meta.url);
const suite = require('abstract-level/test') as (o: { test: unknown; factory: (o?: object) => unknown }) => void;

const TARGETS = [
  ['cluster', REDIS_URL],
  ['single node', REDIS_SINGLE_URL],
] as const;

for (const [name, base] of TARGETS) {
  describe.skipIf(base === null)(`abstract-level conformance over Redis (${name})`, () => {
    if (base === null) return;
    const run = testPrefix();
    let n = 0;
    suite({
      test: tapeOnVitest(),
      // A fresh, empty database per call: a prefix of its own under this run's prefix.
      factory: (o?: object) => new RedisLevel({ url: urlWithPrefix(`${run}-${n++}`, base), ...(o ?? {}) }),
    });
    afterAll(async () => dropPrefix(run, base));
  });
}

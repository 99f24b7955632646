import type { Durability } from '../api/store-options.js';
import type { RedisLevel } from './redis/redis-level.js';
import { REDIS_BACKEND, importFeature } from '../util/optional-packages.js';
import { parseRedisUrl } from './redis/redis-url.js';

/**
 * The database behind a store URL (not opened yet). The engine sees only abstract-level: the capability flags of
 * its `supports` tell what it offers (Redis: `explicitSnapshots: false`, `latestReadSnapshots: true`,
 * `partitionVersions: true`). Throws AKASHIC_INVALID_ARGUMENT for a URL that does not parse. The Redis backend (and
 * ioredis, an optional peer dependency) is imported here, on the first store opened by URL, not with the package:
 * without ioredis installed this throws AKASHIC_MISSING_PACKAGE with the command that installs it.
 */
export async function openRedisLevel(url: string, durability: Durability): Promise<RedisLevel> {
  const parsed = parseRedisUrl(url);
  const { RedisLevel } = await importFeature(REDIS_BACKEND, () => import('./redis/redis-level.js'));
  return new RedisLevel({ url: parsed, durability, keyEncoding: 'utf8', valueEncoding: 'buffer' });
}

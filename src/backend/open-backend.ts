import type { Durability } from '../api/store-options.js';
import type { RedisLevel } from './redis/redis-level.js';
import { parseRedisUrl } from './redis/redis-url.js';

/**
 * The database behind a store URL (not opened yet). The engine sees only abstract-level: the capability flags of
 * its `supports` tell what it offers (Redis: `explicitSnapshots: false`, `latestReadSnapshots: true`,
 * `partitionVersions: true`). Throws AKASHIC_INVALID_ARGUMENT for a URL that does not parse. The Redis backend (and
 * ioredis) is imported here, on the first store opened by URL, not with the package.
 */
export async function openRedisLevel(url: string, durability: Durability): Promise<RedisLevel> {
  const parsed = parseRedisUrl(url);
  const { RedisLevel } = await import('./redis/redis-level.js');
  return new RedisLevel({ url: parsed, durability, keyEncoding: 'utf8', valueEncoding: 'buffer' });
}

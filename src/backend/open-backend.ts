import type { Durability } from '../api/store-options.js';
import { RedisLevel } from './redis/redis-level.js';
import { parseRedisUrl } from './redis/redis-url.js';

/**
 * The database behind a store URL (not opened yet). The engine sees only abstract-level: the capability flags of
 * its `supports` tell what it offers (Redis: `explicitSnapshots: false`, `latestReadSnapshots: true`,
 * `partitionVersions: true`). Throws AKASHIC_INVALID_ARGUMENT for a URL that does not parse.
 */
export function openRedisLevel(url: string, durability: Durability): RedisLevel {
  return new RedisLevel({ url: parseRedisUrl(url), durability, keyEncoding: 'utf8', valueEncoding: 'buffer' });
}

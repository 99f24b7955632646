import { invalidArgument } from '../../errors.js';

/** A Redis deployment named by a store URL. */
export interface RedisTarget {
  /** `cluster` for `redis+cluster://` (Redis Cluster, any reachable nodes as seeds); `single` for `redis://`. */
  readonly mode: 'cluster' | 'single';
  /** Seed nodes (cluster) or the one node (single). */
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  /** Every key of the store starts its hash tag with this, so several stores can share one deployment. */
  readonly prefix: string;
  /** AUTH user and password, when the URL carries them. */
  readonly username?: string;
  readonly password?: string;
  /** Logical database (single mode only; Redis Cluster has only database 0). */
  readonly database: number;
}

/** True when `s` names a Redis deployment rather than a directory. */
export function isRedisUrl(s: string): boolean {
  return /^redis(\+cluster)?:\/\//i.test(s);
}

const DEFAULT_PREFIX = 'akashic';
const PORT_MAX = 65_535;

/**
 * Parses `redis://[user:pass@]host:port[/db][?prefix=name]` or `redis+cluster://[user:pass@]h:p,h:p,…[?prefix=name]`.
 * Throws AKASHIC_INVALID_ARGUMENT naming what is wrong; a URL never reaches the network before it parses.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const m = /^(redis|redis\+cluster):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)(\/[0-9]*)?(?:\?([^#]*))?$/i.exec(url);
  if (m === null) throw invalidArgument(`not a Redis URL: expected redis://host:port or redis+cluster://host:port,host:port, got ${JSON.stringify(url)}`);
  const mode = m[1]!.toLowerCase() === 'redis' ? 'single' : 'cluster';
  const nodes = m[4]!.split(',').map((hp) => {
    const i = hp.lastIndexOf(':');
    const host = i < 0 ? hp : hp.slice(0, i);
    const port = i < 0 ? 6379 : Number(hp.slice(i + 1));
    if (host === '' || !Number.isInteger(port) || port < 1 || port > PORT_MAX) throw invalidArgument(`bad host:port ${JSON.stringify(hp)} in ${JSON.stringify(url)}`);
    return { host: host.replace(/^\[(.*)\]$/, '$1'), port };
  });
  if (mode === 'single' && nodes.length !== 1) throw invalidArgument(`redis:// names one node; use redis+cluster:// for several (${JSON.stringify(url)})`);
  const dbPart = m[5];
  const database = dbPart === undefined || dbPart === '/' ? 0 : Number(dbPart.slice(1));
  if (mode === 'cluster' && database !== 0) throw invalidArgument('Redis Cluster has only database 0');
  let prefix = DEFAULT_PREFIX;
  for (const [k, v] of new URLSearchParams(m[6] ?? '')) {
    if (k !== 'prefix') throw invalidArgument(`unknown Redis URL parameter ${JSON.stringify(k)} (known: prefix)`);
    // The prefix is part of a hash tag: braces would end the tag early and mix stores' slots.
    if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(v)) throw invalidArgument(`URL parameter prefix must be 1-64 of A-Z a-z 0-9 _ . : -, got ${JSON.stringify(v)}`);
    prefix = v;
  }
  const user = m[2] === undefined || m[2] === '' ? undefined : decodeURIComponent(m[2]);
  const pass = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
  return {
    mode,
    nodes,
    prefix,
    database,
    ...(user === undefined ? {} : { username: user }),
    ...(pass === undefined ? {} : { password: pass }),
  };
}

/** The URL without its password, for messages and logs. */
export function redactRedisUrl(url: string): string {
  return url.replace(/^(redis(?:\+cluster)?:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

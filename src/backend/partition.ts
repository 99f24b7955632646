/**
 * Which partition a stored key belongs to, for backends that keep each partition together (Redis: one hash slot
 * per partition, and every write batch atomic only within one partition).
 *
 * Keys arrive as the root database sees them: a sublevel's prefix, then the key (`!dir!alice␀s1␀01J…`). The
 * partition of a user's state is the user id; state that names no user lives in the global partition (`''`, never
 * a user id: ids are non-empty). This table is the one place that knows which component of each family's keys is
 * the user; change it together with the key layouts (docs/format.md, "Column families").
 */

/** The partition of state that names no user. */
export const GLOBAL_PARTITION = '';

/** The separator between key components (U+0000; ids never contain it). */
const SEP = '\u0000';
/** The first character after SEP, which closes a prefix range (`afterPrefix` in the key layouts). */
const AFTER_SEP = '\u0001';

/**
 * Per family (sublevel name): given the first component of a key, the index of the component that is the user id,
 * or -1 when such keys name no user. Families not listed are global.
 */
const USER_COMPONENT: Readonly<Record<string, (first: string) => number>> = {
  // user ␀ session ␀ ulid
  dir: () => 0,
  // user ␀ session ␀ seq
  active: () => 0,
  // user ␀ block  (block infos)
  binfo: () => 0,
  // user ␀ block.frame  (frames kept as keys)
  blk: () => 0,
  // user ␀ time ␀ session ␀ ulid  (the expiry index)
  ttl: () => 0,
  // marker ␀ user ␀ …  (recency, session recency, pending, postings)
  cidx: () => 1,
  // a ␀ user ␀ …  and  p ␀ user ␀ …
  coacc: () => 1,
  // v ␀ user ␀ …  (versions) and  t ␀ user ␀ time ␀ …  (the age index)
  hist: () => 1,
  // open ␀ user ␀ …  (open-block refs) and  acct ␀ user  (accounting); next (the block allocator: global)
  alloc: (first) => (first === 'open' || first === 'acct' ? 1 : -1),
};
/** Families some of whose keys end with the user id. */
const ENDS_AT_USER: ReadonlySet<string> = new Set(['alloc']);

/** The sublevel name and the rest of a root key, or null for a key outside any `!name!` sublevel. */
function splitFamily(key: string): { family: string; rest: string } | null {
  if (key.charCodeAt(0) !== 0x21) return null;
  const end = key.indexOf('!', 1);
  if (end < 0) return null;
  return { family: key.slice(1, end), rest: key.slice(end + 1) };
}

/**
 * The prefix every key of one user's partition shares within the key's family (the family prefix, the components
 * up to the user id, and the separator after it), with the user id; null for a key of the global partition.
 */
function userPrefix(key: string): { user: string; prefix: string } | null {
  const f = splitFamily(key);
  if (f === null) return null;
  const rule = USER_COMPONENT[f.family];
  if (rule === undefined) return null;
  const parts = f.rest.split(SEP);
  const index = rule(parts[0]!);
  // A key that ends at the user id (no separator after it) is no user's, except in the families whose layouts
  // end there (the allocator's `open ␀ user` and `acct ␀ user`).
  if (index < 0 || parts.length <= index || parts[index] === '') return null;
  if (parts.length === index + 1 && !ENDS_AT_USER.has(f.family)) return null;
  const head = parts.slice(0, index + 1).join(SEP) + SEP;
  return { user: parts[index]!, prefix: `!${f.family}!` + head };
}

/** The default partition rule: the user the key belongs to, else GLOBAL_PARTITION. */
export function partitionOf(key: string): string {
  return userPrefix(key)?.user ?? GLOBAL_PARTITION;
}

/**
 * The one partition every key of a range `[low, high)` (or `[low, high]`) belongs to under `partitionOf`, or null
 * when the range may span partitions (the reader then merges every partition). A range inside one user's prefix is
 * that user's: `high` starts with the prefix or is the prefix's end (`…user␀` → `…user␁`, as `prefixRange` builds).
 */
export function partitionOfRange(low: string | undefined, high: string | undefined): string | null {
  if (low === undefined || high === undefined) return null;
  const u = userPrefix(low);
  if (u === null) {
    // A range inside one global family: both bounds in a family that names no user.
    const a = splitFamily(low);
    if (a === null || USER_COMPONENT[a.family] !== undefined) return null;
    // The sublevel's own end bound is `!name"` ('"' follows '!'), which is no key of a family.
    if (high === `!${a.family}"`) return GLOBAL_PARTITION;
    return splitFamily(high)?.family === a.family ? GLOBAL_PARTITION : null;
  }
  if (high.startsWith(u.prefix) || high === u.prefix.slice(0, -1) + AFTER_SEP) return u.user;
  return null;
}

/** How a backend decides partitions; the defaults above unless a caller gives its own. */
export interface PartitionRule {
  /** The partition of a root key. Must be a function of the key alone. */
  readonly partitionOf: (key: string) => string;
  /** The one partition a range lies in, or null when it may span several (see partitionOfRange). */
  readonly partitionOfRange: (low: string | undefined, high: string | undefined) => string | null;
}

export const DEFAULT_PARTITION_RULE: PartitionRule = Object.freeze({ partitionOf, partitionOfRange });

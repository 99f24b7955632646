import type { Family } from '../kv/column-families.js';
import { SEP, afterPrefix, prefixRange } from '../kv/keys.js';

/**
 * The users of a time-ordered per-user index (database format 6: `[tag ␀] user ␀ time(16 hex) ␀ …`) that hold an
 * entry with a time at or before `upTo` (a 16-hex time string), in key order. A skip-scan: for each user one seek
 * to its first key and one bounded read of its due range, then a jump past its keys; users with nothing due cost
 * those two reads and no more. `tag` is the leading component of the family's keys, or null when keys start with
 * the user. Reads the committed state (each read at its own moment).
 */
export async function* dueUsers(family: Family, tag: string | null, upTo: string): AsyncGenerator<string> {
  const head = tag === null ? [] : [tag];
  const all = tag === null ? null : prefixRange(tag);
  let gte = all === null ? '' : all.gte;
  for (;;) {
    let key: string | null = null;
    for await (const k of family.keys(all === null ? { gte, limit: 1 } : { gte, lt: all.lt, limit: 1 })) key = k;
    if (key === null) return;
    const from = tag === null ? 0 : tag.length + 1;
    const end = key.indexOf(SEP, from);
    if (end <= from) {
      gte = key + SEP; // a malformed key (verify reports it): step past it
      continue;
    }
    const user = key.slice(from, end);
    let due = false;
    for await (const _ of family.keys({ gte: prefixRange(...head, user).gte, lt: afterPrefix(...head, user, upTo), limit: 1 })) due = true;
    if (due) yield user;
    gte = afterPrefix(...head, user);
  }
}

/**
 * Storage of MemAttention's active chunks: the turns that arrived since a namespace's last compaction, one per key
 * in the `active` column family (`user\0session\0seq`, docs/format.md "Column families"), so an acknowledged turn
 * survives a crash and a compaction consumes exactly the turns it read.
 *
 * Callers serialize all work on one namespace (AkashicMemory's per-namespace queue); these functions assume it.
 * @internal
 */
import type { AbstractSnapshot } from 'abstract-level';
import { corruption } from '../../errors.js';
import { decodeActiveTurn, encodeActiveTurn, type ActiveTurnValue } from '../../record/engine-records.js';
import { SEP, activeKey, parseActiveKey, prefixRange } from '../kv/keys.js';
import type { StoreCore } from '../store-core.js';

/** An active turn with the key it is stored under (the key is what a compaction deletes). */
export interface StoredTurn extends ActiveTurnValue {
  readonly key: string;
}

/** A stored turn with its namespace, as scans of every namespace return it. */
export interface NamespacedTurn extends StoredTurn {
  readonly userId: string;
  readonly sessionId: string;
}

const SEQ_DIGITS = 10;

/** The turns of a namespace's active chunk, oldest first, in the committed state. */
export async function readActiveTurns(core: StoreCore, userId: string, sessionId: string): Promise<StoredTurn[]> {
  const out: StoredTurn[] = [];
  for await (const [key, value] of core.cf.active.iterator(prefixRange(userId, sessionId))) {
    out.push({ ...decodeActiveTurn(value, `active turn ${JSON.stringify(key)}`), key });
  }
  return out;
}

/** Every namespace's active turns in key order (namespace, then arrival), from `snapshot`. */
export async function* scanActiveTurns(core: StoreCore, snapshot: AbstractSnapshot): AsyncGenerator<NamespacedTurn> {
  for await (const [key, value] of core.cf.active.iterator({ snapshot })) {
    const at = parseActiveKey(key);
    if (at === null) throw corruption(`malformed active-turn key ${JSON.stringify(key)}`);
    yield { userId: at.userId, sessionId: at.sessionId, ...decodeActiveTurn(value, `active turn ${JSON.stringify(key)}`), key };
  }
}

/**
 * The sessions of `userId` whose active chunk holds turns, in key order. Reads one key per such session: after
 * each hit the scan jumps past that session's keys.
 */
export async function activeSessions(core: StoreCore, userId: string): Promise<string[]> {
  const out: string[] = [];
  const user = prefixRange(userId);
  let gte = user.gte;
  for (;;) {
    let found: string | null = null;
    for await (const key of core.cf.active.keys({ gte, lt: user.lt, limit: 1 })) found = key;
    if (found === null) return out;
    const session = found.slice(user.gte.length).split(SEP)[0]!;
    out.push(session);
    gte = prefixRange(userId, session).lt;
  }
}

/**
 * Next sequence number of the namespace: one past the newest stored turn, or 0 when the active chunk is empty.
 * Sequence numbers only order the turns of one active chunk; they restart after a compaction consumed every turn,
 * so a key is reused by a later turn (docs/format.md) and turn ids, not keys, identify turns.
 */
async function nextSeq(core: StoreCore, userId: string, sessionId: string): Promise<number> {
  for await (const key of core.cf.active.keys({ ...prefixRange(userId, sessionId), reverse: true, limit: 1 })) {
    return Number(key.slice(-SEQ_DIGITS)) + 1;
  }
  return 0;
}

/**
 * Durably appends turns to the active chunk in one batch (all or none), under the engine's write lock so that
 * closing the store waits for it. Returns the stored turns.
 */
export function appendActiveTurns(core: StoreCore, userId: string, sessionId: string, turns: readonly ActiveTurnValue[]): Promise<StoredTurn[]> {
  return core.lock.run(async () => {
    let stored: StoredTurn[] = [];
    // One batch of the user's partition; on a fenced backend a conflict reads the next sequence number again.
    await core.writeUserBatch(userId, async () => {
      const first = await nextSeq(core, userId, sessionId);
      stored = turns.map((t, i) => ({ ...t, key: activeKey(userId, sessionId, first + i) }));
      return stored.map((t) => ({ type: 'put' as const, sublevel: core.cf.active, key: t.key, value: encodeActiveTurn(t) }));
    });
    return stored;
  });
}

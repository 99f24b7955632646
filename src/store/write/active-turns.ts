/**
 * Storage of MemAttention's active chunks: the turns that arrived since a namespace's last compaction, one per key
 * in the `active` column family (`user\0session\0seq`, docs/format.md "Column families"), so an acknowledged turn
 * survives a crash and a compaction consumes exactly the turns it read.
 *
 * Callers serialize all work on one namespace (AkashicMemory's per-namespace queue); these functions assume it.
 * @internal
 */
import type { AbstractSnapshot } from 'abstract-level';
import { AkashicError, corruption } from '../../errors.js';
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
 * Every (user, session) whose active chunk holds turns, in key order. Reads one key per namespace: after each hit
 * the scan jumps past that namespace's keys.
 */
export async function activeNamespaces(core: StoreCore): Promise<{ userId: string; sessionId: string }[]> {
  const out: { userId: string; sessionId: string }[] = [];
  let gte: string | undefined;
  for (;;) {
    let found: string | null = null;
    for await (const key of core.cf.active.keys({ ...(gte === undefined ? {} : { gte }), limit: 1 })) found = key;
    if (found === null) return out;
    const at = parseActiveKey(found);
    if (at === null) throw corruption(`malformed active-turn key ${JSON.stringify(found)}`);
    out.push({ userId: at.userId, sessionId: at.sessionId });
    gte = prefixRange(at.userId, at.sessionId).lt;
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

/** Marks the conflict `checkStillActive` raises (turns another process compacted or purged first). */
const CONSUMED_ELSEWHERE = Symbol('akashic.turnsConsumedElsewhere');

/**
 * Checks, while a compaction is staged, that every turn it read is still in the active chunk under the same key.
 * Several processes may compact one namespace at once (each has its own per-namespace queue); the first to commit
 * consumes the turns, and another that read them before then would otherwise commit a second chunk of the same
 * turns and delete, by key, turns appended since (keys are reused once an active chunk empties). Staged inside the
 * compaction's fenced transaction: a change to the active chunk after this read fails the batch's fence, so the
 * check holds at the commit. Throws AKASHIC_CONFLICT (see `isConsumedElsewhere`); nothing is applied.
 * REQUIRES: `consumed` all belong to one namespace of `userId`; the write lock.
 */
export async function checkStillActive(core: StoreCore, userId: string, consumed: readonly StoredTurn[]): Promise<void> {
  const first = consumed[0];
  if (first === undefined) return;
  const at = parseActiveKey(first.key);
  if (at === null || at.userId !== userId) throw corruption(`active turn key ${JSON.stringify(first.key)} is not of user ${JSON.stringify(userId)}`);
  const now = new Map<string, string>();
  for (const t of await readActiveTurns(core, userId, at.sessionId)) now.set(t.key, t.turnId);
  const gone = consumed.filter((t) => now.get(t.key) !== t.turnId);
  if (gone.length === 0) return;
  const err = new AkashicError(
    'AKASHIC_CONFLICT',
    `${gone.length} of the ${consumed.length} turns this compaction read (first ${JSON.stringify(gone[0]!.turnId)}) left the active chunk of ${JSON.stringify(at.sessionId)} meanwhile (compacted or purged by another process); nothing was applied`,
  );
  throw Object.assign(err, { [CONSUMED_ELSEWHERE]: true });
}

/** True for the conflict of `checkStillActive`: read the active chunk again and compact what is there. */
export function isConsumedElsewhere(err: unknown): boolean {
  return err !== null && typeof err === 'object' && (err as { [CONSUMED_ELSEWHERE]?: boolean })[CONSUMED_ELSEWHERE] === true;
}

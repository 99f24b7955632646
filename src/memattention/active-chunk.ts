/**
 * The active chunk C_a of one (user, session) namespace (seed 000, Algorithm 1 line 2): the turns that arrived since
 * the last compaction, stored one per key in the `active` column family (`user\0session\0seq`, docs/format.md), so an
 * acknowledged turn survives a crash and a compaction can consume exactly the turns it read.
 *
 * Callers serialize all work on one namespace (AkashicMemory's per-namespace queue); these functions assume it.
 * @internal
 */
import { decodeActiveTurn, encodeActiveTurn, type ActiveTurnValue } from '../record/engine-records.js';
import { activeKey, prefixRange } from '../store/keys.js';
import type { StoreCore } from '../store/store-core.js';

/** One turn of an active chunk, as `recall` and `activeTurns` return it. */
export interface ActiveTurn {
  readonly turnId: string;
  readonly role: string;
  readonly text: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Tokens of `text` by the memory's tokenizer. */
  readonly tokenCount: number;
}

/** An active turn with the key it is stored under. @internal */
export interface StoredTurn extends ActiveTurn {
  readonly key: string;
}

const SEQ_DIGITS = 10;

/** The turns of a namespace's active chunk, oldest first. Reads the committed state. */
export async function readActive(core: StoreCore, userId: string, sessionId: string): Promise<StoredTurn[]> {
  const out: StoredTurn[] = [];
  for await (const [key, value] of core.cf.active.iterator(prefixRange(userId, sessionId))) {
    out.push({ ...decodeActiveTurn(value, `active turn ${JSON.stringify(key)}`), key });
  }
  return out;
}

/**
 * Next sequence number of the namespace: one past the newest stored turn, or 0 when the active chunk is empty.
 * Sequence numbers only order the turns of one active chunk; they restart after a compaction consumed every turn,
 * which is why generated turn ids are ULIDs and not sequence numbers.
 */
async function nextSeq(core: StoreCore, userId: string, sessionId: string): Promise<number> {
  for await (const key of core.cf.active.keys({ ...prefixRange(userId, sessionId), reverse: true, limit: 1 })) {
    return Number(key.slice(-SEQ_DIGITS)) + 1;
  }
  return 0;
}

/**
 * Durably appends turns to the active chunk in one batch (all or none), under the engine's write lock so that
 * `AkashicStore.close()` waits for it. Returns the stored turns.
 */
export function appendActive(core: StoreCore, userId: string, sessionId: string, turns: readonly ActiveTurnValue[]): Promise<StoredTurn[]> {
  return core.lock.run(async () => {
    const first = await nextSeq(core, userId, sessionId);
    const stored = turns.map((t, i) => ({ ...t, key: activeKey(userId, sessionId, first + i) }));
    await core.writer.write(stored.map((t) => ({ type: 'put' as const, sublevel: core.cf.active, key: t.key, value: encodeActiveTurn(t) })));
    return stored;
  });
}

/** Sum of the turns' token counts: L_chunk of the gate. */
export function activeTokens(turns: readonly ActiveTurn[]): number {
  let n = 0;
  for (const t of turns) n += t.tokenCount;
  return n;
}

/**
 * The turns one compaction consumes: the shortest prefix holding at least `gate` tokens, or null when the whole
 * active chunk is below the gate. Normally that is every turn (the gate fires on the append that crosses it); after
 * failed compactions left a backlog, taking only a prefix keeps COMPRESS's input below `gate` + one turn.
 */
export function gatedPrefix<T extends ActiveTurn>(turns: readonly T[], gate: number): T[] | null {
  let n = 0;
  for (let i = 0; i < turns.length; i++) {
    n += turns[i]!.tokenCount;
    if (n >= gate) return turns.slice(0, i + 1);
  }
  return null;
}

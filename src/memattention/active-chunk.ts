/**
 * The active chunk C_a of one (user, session) namespace (the Akashic paper, Algorithm 1 line 2): the turns that arrived since
 * the last compaction. The engine stores them (`store[activeTurnLog]`, one key per turn, so an acknowledged turn
 * survives a crash and a compaction consumes exactly the turns it read); this file holds the gate's arithmetic.
 * @internal
 */
import { LIMITS } from '../api/chunk-input.js';

/** One turn of an active chunk, as `recall` and `activeTurns` return it. */
export interface ActiveTurn {
  readonly turnId: string;
  readonly role: string;
  readonly text: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Tokens of `text` by the memory's tokenizer. */
  readonly tokenCount: number;
  /** The agent the turn belongs to (absent: none). */
  readonly agentId?: string;
  /** The run the turn belongs to (absent: none). */
  readonly runId?: string;
}

/**
 * The turns of a session's active chunk split by agent/run scope, each group in arrival order, groups in the order
 * of their oldest turn. Each group is compacted on its own (its own gate), so a compacted chunk holds the turns of
 * one scope only and carries that scope: a chunk is never returned outside its scope.
 */
export function scopeGroups<T extends ActiveTurn>(turns: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const t of turns) {
    // JSON of the pair: ids cannot hold control characters, but an absent id must differ from every present one.
    const k = JSON.stringify([t.agentId ?? null, t.runId ?? null]);
    const g = groups.get(k);
    if (g === undefined) groups.set(k, [t]);
    else g.push(t);
  }
  return [...groups.values()];
}

/** Sum of the turns' token counts: L_chunk of the gate. */
export function activeTokens(turns: readonly ActiveTurn[]): number {
  let n = 0;
  for (const t of turns) n += t.tokenCount;
  return n;
}

/**
 * Bytes one turn takes in COMPRESS's input (role, separators, text), and the most one compaction's turns may take
 * together, so that the chunk COMPRESS makes (turns plus a date line) always fits a record: what `appendTurn`
 * accepts is always compactable.
 */
export function framedTurnBytes(t: { readonly role: string; readonly text: string }): number {
  return Buffer.byteLength(t.role, 'utf8') + Buffer.byteLength(t.text, 'utf8') + 3;
}
export const COMPACTION_INPUT_BYTES = LIMITS.textBytes - 64;

/**
 * The turns one compaction consumes: the shortest prefix holding at least `gate` tokens, or null when the whole
 * active chunk is below the gate. Normally that is every turn (the gate fires on the append that crosses it); after
 * failed compactions left a backlog, taking only a prefix keeps COMPRESS's input below `gate` + one turn.
 * A prefix also stops before the turn that would take COMPRESS's input past COMPACTION_INPUT_BYTES (it then
 * compacts even below the gate: the chunk is full by size). It always holds at least one turn.
 */
export function gatedPrefix<T extends ActiveTurn>(turns: readonly T[], gate: number): T[] | null {
  let n = 0;
  let bytes = 0;
  for (let i = 0; i < turns.length; i++) {
    bytes += framedTurnBytes(turns[i]!);
    if (i > 0 && bytes > COMPACTION_INPUT_BYTES) return turns.slice(0, i);
    n += turns[i]!.tokenCount;
    if (n >= gate) return turns.slice(0, i + 1);
  }
  return null;
}

/**
 * One turn as `appendTurn` takes it, and its validation. Kept apart from memory.ts so that readers of turns (the
 * dump reader) do not load the model stack that AkashicMemory needs.
 */
import { invalidArgument } from '../errors.js';
import { LIMITS } from '../api/chunk-input.js';
import { checkId } from '../api/ids.js';
import { COMPACTION_INPUT_BYTES, framedTurnBytes } from './active-chunk.js';

/** One conversation turn to append. */
export interface TurnInput {
  readonly role: string;
  readonly text: string;
  /** Milliseconds since the epoch; default: the store clock. */
  readonly at?: number;
  /** Stable id, kept as provenance; default: a fresh ULID. Must be unique within the active chunk. */
  readonly turnId?: string;
  /**
   * The agent the turn belongs to (an id). Turns of different agent/run scopes in one session are compacted
   * separately, and the chunk compacted from a turn carries its `agentId` and `runId`. Default: none.
   */
  readonly agentId?: string;
  /** The run the turn belongs to (an id). Default: none. */
  readonly runId?: string;
}

/** A checked turn as appendTurn and the dump reader take it. */
export interface CheckedTurn {
  role: string;
  text: string;
  at?: number;
  turnId?: string;
  agentId?: string;
  runId?: string;
}

function checkShortText(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0 || !v.isWellFormed() || Buffer.byteLength(v, 'utf8') > LIMITS.keywordBytes) {
    throw invalidArgument(`${what} must be a non-empty well-formed string of at most ${LIMITS.keywordBytes} bytes`);
  }
  return v;
}

/** Validates one turn as appendTurn accepts it (also used by the dump reader for active-turn lines). */
export function checkTurn(t: TurnInput, what: string): CheckedTurn {
  if (t === null || typeof t !== 'object') throw invalidArgument(`${what} must be an object`);
  const role = checkShortText(t.role, `${what}.role`);
  if (typeof t.text !== 'string' || !t.text.isWellFormed() || Buffer.byteLength(t.text, 'utf8') > LIMITS.textBytes) {
    throw invalidArgument(`${what}.text must be a well-formed string of at most ${LIMITS.textBytes} bytes`);
  }
  if (framedTurnBytes({ role, text: t.text }) > COMPACTION_INPUT_BYTES) {
    throw invalidArgument(`${what}.text with its role takes more than ${COMPACTION_INPUT_BYTES} bytes, the most one compacted chunk can hold`);
  }
  const out: CheckedTurn = { role, text: t.text };
  if (t.at !== undefined) {
    if (typeof t.at !== 'number' || !Number.isFinite(t.at) || t.at < 0) throw invalidArgument(`${what}.at must be a non-negative number of ms`);
    out.at = t.at;
  }
  if (t.turnId !== undefined) out.turnId = checkShortText(t.turnId, `${what}.turnId`);
  if (t.agentId !== undefined) out.agentId = checkId(t.agentId, `${what}.agentId`);
  if (t.runId !== undefined) out.runId = checkId(t.runId, `${what}.runId`);
  return out;
}

import { invalidArgument } from '../errors.js';
import type { DirEntry } from '../record/dir-entry.js';
import { checkId } from './ids.js';

/**
 * Agent and run scopes of a read, beside user and session. Each is one id or a list of ids (a shared scope: a
 * team's memory that several agents read), matched against the chunk's own `agentId` / `runId`; a chunk without
 * one is outside every scope that names that dimension.
 */
export interface ScopeSelector {
  readonly agentId?: string | readonly string[];
  readonly runId?: string | readonly string[];
}

/** Ids per dimension of one selector. */
export const MAX_SCOPE_IDS = 256;

/** A compiled selector: a test on directory entries, or null when it selects nothing beyond user and session. */
export type ScopeTest = ((e: Pick<DirEntry, 'agentId' | 'runId'>) => boolean) | null;

function ids(v: unknown, what: string): ReadonlySet<string> | null {
  if (v === undefined) return null;
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_SCOPE_IDS) {
    throw invalidArgument(`${what} must be an id or a non-empty array of at most ${MAX_SCOPE_IDS} ids`);
  }
  return new Set(Array.from(list as unknown[], (x, i) => checkId(x, `${what}[${i}]`)));
}

/** Validates a selector from an untrusted caller (AKASHIC_INVALID_ARGUMENT) and compiles it. */
export function compileScope(o: ScopeSelector, what: string): ScopeTest {
  const agents = ids(o.agentId, `${what}.agentId`);
  const runs = ids(o.runId, `${what}.runId`);
  if (agents === null && runs === null) return null;
  return (e) => (agents === null || (e.agentId !== undefined && agents.has(e.agentId))) && (runs === null || (e.runId !== undefined && runs.has(e.runId)));
}

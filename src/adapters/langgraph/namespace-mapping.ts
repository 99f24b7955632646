/**
 * How a LangGraph store namespace maps onto the engine's (user, session) scoping.
 *
 *   namespace [l0, l1, …, ln]  →  user    = esc(l0)
 *                                 session = "lg.store" + ".esc(l1)" + … + ".esc(ln)"
 *
 * `esc` is id-escaping.ts (`%` and control characters as `%XX`). LangGraph forbids `.` inside labels, so `.` is an
 * unambiguous separator and decoding splits on it; prefix matching is done label by label on the decoded namespace,
 * never on the string, so the prefix ["a"] does not match ["ab"]. The first label being the engine user keeps every
 * user's items in that user's blocks (the engine never mixes users in a block) and next to the user's MemAttention
 * memories; the reserved session prefix `lg.store` keeps them apart from conversation sessions.
 *
 * Frozen: changing the prefix or the escaping orphans stored items.
 * @internal
 */
import { InvalidNamespaceError } from '@langchain/langgraph-checkpoint';
import { escapeIdPart, fitsEngineId, unescapeIdPart } from '../shared/id-escaping.js';

export const STORE_SESSION_PREFIX = 'lg.store';

export interface EngineScope {
  readonly userId: string;
  readonly sessionId: string;
}

/**
 * Checks a namespace the way LangGraph's `validateNamespace` does (non-empty string labels without `.`, `:` or NUL)
 * plus what the engine needs (well-formed text, ids of at most 256 bytes). `allowEmpty`: the empty namespace of
 * `search([])`. The reserved root `langgraph` is accepted, as `BaseStore.get`/`search` and `InMemoryStore.batch` do.
 */
export function checkNamespace(namespace: unknown, what: string, allowEmpty = false): string[] {
  if (!Array.isArray(namespace)) throw new InvalidNamespaceError(`${what} must be an array of strings`);
  if (namespace.length === 0 && !allowEmpty) throw new InvalidNamespaceError(`${what} cannot be empty.`);
  for (const label of namespace) {
    if (typeof label !== 'string') throw new InvalidNamespaceError(`${what}: labels must be strings, got ${typeof label}`);
    if (label === '') throw new InvalidNamespaceError(`${what}: labels cannot be empty strings`);
    if (label.includes('.')) throw new InvalidNamespaceError(`${what}: label ${JSON.stringify(label)} contains a period ('.')`);
    if (label.includes(':')) throw new InvalidNamespaceError(`${what}: label ${JSON.stringify(label)} contains a colon (':')`);
    if (label.includes('\0')) throw new InvalidNamespaceError(`${what}: labels cannot contain NUL bytes`);
    if (!label.isWellFormed()) throw new InvalidNamespaceError(`${what}: label contains a lone UTF-16 surrogate`);
  }
  return namespace as string[];
}

/** The engine scope of a namespace, or null when it cannot exist in the engine (an id over 256 bytes). */
export function scopeOf(namespace: readonly string[]): EngineScope | null {
  const [first, ...rest] = namespace;
  if (first === undefined) return null;
  const userId = escapeIdPart(first);
  const sessionId = STORE_SESSION_PREFIX + rest.map((l) => '.' + escapeIdPart(l)).join('');
  return fitsEngineId(userId) && fitsEngineId(sessionId) ? { userId, sessionId } : null;
}

/** Like scopeOf, for writes: a namespace too long for the engine is an InvalidNamespaceError. */
export function writableScope(namespace: readonly string[]): EngineScope {
  const scope = scopeOf(namespace);
  if (scope === null) {
    throw new InvalidNamespaceError(
      `namespace ${JSON.stringify(namespace)} is too long for Akashic: the first label and the escaped rest must each fit in 256 UTF-8 bytes`,
    );
  }
  return scope;
}

/** The namespace a (user, session) pair holds, or null when the session is not a store session. */
export function namespaceOf(userId: string, sessionId: string): string[] | null {
  if (sessionId !== STORE_SESSION_PREFIX && !sessionId.startsWith(STORE_SESSION_PREFIX + '.')) return null;
  const rest = sessionId === STORE_SESSION_PREFIX ? [] : sessionId.slice(STORE_SESSION_PREFIX.length + 1).split('.');
  if (rest.some((l) => l === '')) return null;
  return [unescapeIdPart(userId), ...rest.map(unescapeIdPart)];
}

/**
 * True when `namespace` starts with `prefix`, label by label. With `wildcards` (listNamespaces match conditions), `*`
 * in the prefix matches any one label; a search prefix has none and compares `*` literally.
 */
export function hasPrefix(namespace: readonly string[], prefix: readonly string[], wildcards: boolean): boolean {
  return prefix.length <= namespace.length && prefix.every((p, i) => (wildcards && p === '*') || p === namespace[i]);
}

/** True when `namespace` ends with `suffix`, label by label; `*` matches any one label. */
export function hasSuffix(namespace: readonly string[], suffix: readonly string[]): boolean {
  const off = namespace.length - suffix.length;
  return off >= 0 && suffix.every((s, i) => s === '*' || s === namespace[off + i]);
}

/** Label-by-label code-unit order: the order `listNamespaces` returns. */
export function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The `filter` of a LangGraph store search: `{ field: value }` (equality) or `{ field: { $op: value, … } }` with
 * `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`, on top-level fields of the item's value. All conditions
 * must hold.
 *
 * Semantics are those of LangGraph's Python stores, not InMemoryStore.js's quirks:
 * - equality is deep (`{ tags: ["a"] }` matches an item whose tags are ["a"]; InMemoryStore.js compares with `===`);
 * - `$gt`/`$gte`/`$lt`/`$lte` compare two numbers numerically or two strings by code unit, and are false for any
 *   other pair (InMemoryStore.js converts with `Number()`, so `null > -1` and `true > 0` hold there);
 * - an unknown operator is an error, not a silent false.
 * @internal
 */
import { isDeepStrictEqual } from 'node:util';
import { invalidArgument } from '../../errors.js';

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

export type StoreFilter = Readonly<Record<string, unknown>>;

function isOperatorObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));
}

/** Validates a filter; throws AKASHIC_INVALID_ARGUMENT naming the bad part. */
export function checkFilter(filter: unknown): StoreFilter | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw invalidArgument('search filter must be an object');
  for (const [field, cond] of Object.entries(filter)) {
    if (!isOperatorObject(cond)) continue;
    for (const [op, arg] of Object.entries(cond)) {
      if (!OPERATORS.has(op)) throw invalidArgument(`search filter ${JSON.stringify(field)}: unknown operator ${JSON.stringify(op)}`);
      if ((op === '$in' || op === '$nin') && !Array.isArray(arg)) throw invalidArgument(`search filter ${JSON.stringify(field)}: ${op} needs an array`);
    }
  }
  return filter as StoreFilter;
}

function ordered(a: unknown, b: unknown): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

function holds(op: string, item: unknown, arg: unknown): boolean {
  switch (op) {
    case '$eq':
      return isDeepStrictEqual(item, arg);
    case '$ne':
      return !isDeepStrictEqual(item, arg);
    case '$in':
      return (arg as unknown[]).some((x) => isDeepStrictEqual(item, x));
    case '$nin':
      return !(arg as unknown[]).some((x) => isDeepStrictEqual(item, x));
    default: {
      const c = ordered(item, arg);
      if (c === null || Number.isNaN(c)) return false;
      return op === '$gt' ? c > 0 : op === '$gte' ? c >= 0 : op === '$lt' ? c < 0 : c <= 0;
    }
  }
}

/** True when the item value satisfies every condition of a checked filter. */
export function matchesFilter(value: Readonly<Record<string, unknown>>, filter: StoreFilter): boolean {
  return Object.entries(filter).every(([field, cond]) => {
    const item = Object.hasOwn(value, field) ? value[field] : undefined;
    if (isOperatorObject(cond)) return Object.entries(cond).every(([op, arg]) => holds(op, item, arg));
    return isDeepStrictEqual(item, cond);
  });
}

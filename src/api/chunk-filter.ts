import { invalidArgument } from '../errors.js';
import type { DirEntry } from '../record/dir-entry.js';

/**
 * A condition on one attribute. A bare string means `{ eq: string }`. Ordering operators compare numerically when
 * both the attribute value and the operand are finite numbers (the operand may be a number or a numeric string),
 * otherwise as strings (UTF-16 code units). `ne` and `exists: false` match chunks without the attribute; every
 * other operator needs it present. Several operators in one condition must all hold.
 */
export type AttributeCondition =
  | string
  | {
      readonly eq?: string;
      readonly ne?: string;
      readonly in?: readonly string[];
      readonly gt?: string | number;
      readonly gte?: string | number;
      readonly lt?: string | number;
      readonly lte?: string | number;
      readonly exists?: boolean;
    };

/** What `list` and `recall` keep: every given condition must hold. */
export interface ChunkFilter {
  /** Conditions on attributes, by attribute key. */
  readonly attributes?: Readonly<Record<string, AttributeCondition>>;
  /** Chunks created strictly after this time (ms since the epoch). */
  readonly createdAfter?: number;
  /** Chunks created strictly before this time (ms since the epoch). */
  readonly createdBefore?: number;
}

/** A validated filter. `needsAttributes`: whether it reads attributes (entries without them need their record). */
export interface CompiledFilter {
  readonly needsAttributes: boolean;
  /** Whether an entry (with `attributes` from its record when the entry lacks them) passes. */
  matches(entry: Pick<DirEntry, 'createdAt'>, attributes: Readonly<Record<string, string>> | undefined): boolean;
}

const OPS = new Set(['eq', 'ne', 'in', 'gt', 'gte', 'lt', 'lte', 'exists']);
const MAX_CONDITIONS = 64;
const MAX_IN = 1024;

function num(v: string | number): number | null {
  const n = typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v);
  return Number.isFinite(n) ? n : null;
}

/** <0, 0, >0 like a comparator: numeric when both sides are numbers, else by string. */
function compare(value: string, operand: string | number): number {
  const a = num(value);
  const b = num(operand);
  if (a !== null && b !== null) return a - b;
  const s = String(operand);
  return value < s ? -1 : value > s ? 1 : 0;
}

function checkTime(v: unknown, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidArgument(`${what} must be a finite number of ms`);
  return v;
}

type Test = (attrs: Readonly<Record<string, string>>) => boolean;

function compileCondition(key: string, c: unknown, what: string): Test {
  if (typeof c === 'string') return (a) => Object.hasOwn(a, key) && a[key] === c;
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw invalidArgument(`${what} must be a string or an operator object`);
  const o = c as Record<string, unknown>;
  const ops = Object.keys(o).filter((k) => o[k] !== undefined);
  if (ops.length === 0) throw invalidArgument(`${what} has no operator`);
  const tests: Test[] = [];
  for (const op of ops) {
    if (!OPS.has(op)) throw invalidArgument(`${what}: unknown operator ${JSON.stringify(op)} (use ${[...OPS].join(', ')})`);
    const arg = o[op];
    const has = (a: Readonly<Record<string, string>>): boolean => Object.hasOwn(a, key);
    switch (op) {
      case 'eq':
      case 'ne': {
        if (typeof arg !== 'string') throw invalidArgument(`${what}.${op} must be a string`);
        tests.push(op === 'eq' ? (a) => has(a) && a[key] === arg : (a) => !has(a) || a[key] !== arg);
        break;
      }
      case 'in': {
        if (!Array.isArray(arg) || arg.length > MAX_IN || !arg.every((s) => typeof s === 'string')) throw invalidArgument(`${what}.in must be an array of at most ${MAX_IN} strings`);
        const set = new Set(arg as string[]);
        tests.push((a) => has(a) && set.has(a[key]!));
        break;
      }
      case 'exists': {
        if (typeof arg !== 'boolean') throw invalidArgument(`${what}.exists must be a boolean`);
        tests.push((a) => has(a) === arg);
        break;
      }
      default: {
        if (!((typeof arg === 'number' && Number.isFinite(arg)) || typeof arg === 'string')) throw invalidArgument(`${what}.${op} must be a string or a finite number`);
        const operand = arg;
        const ok = op === 'gt' ? (d: number) => d > 0 : op === 'gte' ? (d: number) => d >= 0 : op === 'lt' ? (d: number) => d < 0 : (d: number) => d <= 0;
        tests.push((a) => has(a) && ok(compare(a[key]!, operand)));
      }
    }
  }
  return (a) => tests.every((t) => t(a));
}

/** Validates a filter from an untrusted caller (AKASHIC_INVALID_ARGUMENT naming the bad part) and compiles it. */
export function compileFilter(f: unknown, what = 'filter'): CompiledFilter {
  if (f === null || typeof f !== 'object' || Array.isArray(f)) throw invalidArgument(`${what} must be an object`);
  const o = f as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!['attributes', 'createdAfter', 'createdBefore'].includes(k)) throw invalidArgument(`${what}: unknown field ${JSON.stringify(k)}`);
  const after = checkTime(o['createdAfter'], `${what}.createdAfter`);
  const before = checkTime(o['createdBefore'], `${what}.createdBefore`);
  const tests: Test[] = [];
  const attrs = o['attributes'];
  if (attrs !== undefined) {
    if (attrs === null || typeof attrs !== 'object' || Array.isArray(attrs)) throw invalidArgument(`${what}.attributes must be an object`);
    const entries = Object.entries(attrs as Record<string, unknown>);
    if (entries.length > MAX_CONDITIONS) throw invalidArgument(`${what}.attributes has ${entries.length} conditions; the limit is ${MAX_CONDITIONS}`);
    for (const [k, c] of entries) tests.push(compileCondition(k, c, `${what}.attributes[${JSON.stringify(k)}]`));
  }
  return {
    needsAttributes: tests.length > 0,
    matches(entry, attributes) {
      if (after !== undefined && !(entry.createdAt > after)) return false;
      if (before !== undefined && !(entry.createdAt < before)) return false;
      if (tests.length === 0) return true;
      const a = attributes ?? {};
      return tests.every((t) => t(a));
    },
  };
}

/**
 * Search filters pushed down to the engine's attribute filters. An item's top-level fields are copied into its
 * chunk's attributes (so into its directory entry), one attribute per field, named by the field's JSON type:
 *
 *   `lg.n.<field>` number, as `String(n)` (the engine compares two numbers numerically)
 *   `lg.s.<field>` string, as `s:` + the string (never numeric, so the engine compares it by code unit)
 *   `lg.b.<field>` boolean, `true` / `false`
 *   `lg.z.<field>` null, empty
 *   `lg.o.<field>` object or array, empty (present only: deep equality needs the body)
 *
 * and `lg.format` is "2" when every top-level field is there ("1": written before this, or some field did not
 * fit an attribute: too many fields, a name or string too long). A search compiles its filter into an engine
 * `ChunkFilter` that every item matching the LangGraph filter also matches (a superset: `$ne`, `$nin` and mixed
 * `$in` lists are not pushed down), runs it on the directory entries before any body is read, and checks the
 * exact LangGraph semantics (store-filter.ts) on the bodies of the entries that pass. Items of format "1" skip the
 * pushdown and are checked on their bodies, as before.
 *
 * Frozen: the prefixes and encodings are read back from stored data.
 * @internal
 */
import { AkashicError } from '../../errors.js';
import { compileFilter, type AttributeCondition, type CompiledFilter } from '../../api/chunk-filter.js';
import { LIMITS } from '../../api/chunk-input.js';
import type { StoreFilter } from './store-filter.js';

export const FORMAT_ATTRIBUTE = 'lg.format';
/** Attributes an item always has besides its fields: `lg.key` and `lg.format`. */
const FIXED_ATTRIBUTES = 2;
const STRING_PREFIX = 's:';

type Tag = 'n' | 's' | 'b' | 'z' | 'o';

function attributeName(tag: Tag, field: string): string {
  return `lg.${tag}.${field}`;
}

function encode(v: unknown): { tag: Tag; value: string } {
  if (typeof v === 'number') return { tag: 'n', value: String(v) };
  if (typeof v === 'string') return { tag: 's', value: STRING_PREFIX + v };
  if (typeof v === 'boolean') return { tag: 'b', value: String(v) };
  if (v === null) return { tag: 'z', value: '' };
  return { tag: 'o', value: '' };
}

/**
 * The field attributes of a stored value (the parsed JSON the item holds) and whether they are complete.
 * Incomplete attributes are dropped entirely: the item is then format "1" and always checked on its body.
 */
export function fieldAttributes(value: Readonly<Record<string, unknown>>): { attributes: Record<string, string>; complete: boolean } {
  const fields = Object.keys(value);
  const none = { attributes: {}, complete: false };
  if (fields.length > LIMITS.attributes - FIXED_ATTRIBUTES) return none;
  const attributes: Record<string, string> = {};
  for (const f of fields) {
    const { tag, value: v } = encode(value[f]);
    const name = attributeName(tag, f);
    if (!f.isWellFormed() || Buffer.byteLength(name, 'utf8') > LIMITS.attributeKeyBytes || Buffer.byteLength(v, 'utf8') > LIMITS.attributeValueBytes) return none;
    attributes[name] = v; // never a prototype key: every name starts with `lg.`
  }
  return { attributes, complete: true };
}

type Conditions = Record<string, Record<string, string | number | boolean | readonly string[]>>;

function add(out: Conditions, name: string, op: string, arg: string | number | boolean | readonly string[]): void {
  const c = Object.hasOwn(out, name) ? out[name]! : (out[name] = {});
  c[op] = arg;
}

/** The engine condition an equality with `v` implies (none for undefined). */
function equality(out: Conditions, field: string, v: unknown): void {
  if (v === undefined) return;
  const { tag, value } = encode(v);
  if (tag === 'n') {
    add(out, attributeName('n', field), 'gte', v as number);
    add(out, attributeName('n', field), 'lte', v as number);
  } else if (tag === 's' || tag === 'b') add(out, attributeName(tag, field), 'eq', value);
  else add(out, attributeName(tag, field), 'exists', true);
}

function isOperatorObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));
}

/**
 * The engine filter implied by a checked LangGraph filter, or null when nothing can be pushed down. Every item
 * matching `filter` matches the result (when its attributes are complete); the converse need not hold.
 */
export function pushdownFilter(filter: StoreFilter): CompiledFilter | null {
  const out: Conditions = {};
  for (const [field, cond] of Object.entries(filter)) {
    if (!isOperatorObject(cond)) {
      equality(out, field, cond);
      continue;
    }
    for (const [op, arg] of Object.entries(cond)) {
      switch (op) {
        case '$eq':
          equality(out, field, arg);
          break;
        case '$in': {
          const list = arg as unknown[];
          if (list.length > 0 && list.every((x) => typeof x === 'string')) add(out, attributeName('s', field), 'in', list.map((x) => STRING_PREFIX + (x as string)));
          else if (list.length > 0 && list.every((x) => typeof x === 'number')) add(out, attributeName('n', field), 'in', list.map((x) => String(x)));
          break;
        }
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
          // Other operand types never match (store-filter.ts); the exact check on the body removes those items.
          if (typeof arg === 'number') add(out, attributeName('n', field), op.slice(1), arg);
          else if (typeof arg === 'string') add(out, attributeName('s', field), op.slice(1), STRING_PREFIX + arg);
          break;
        default: // $ne, $nin: they match items without the field or of another type; no pushdown.
      }
    }
  }
  if (Object.keys(out).length === 0) return null;
  try {
    return compileFilter({ attributes: out as Record<string, AttributeCondition> }, 'search filter');
  } catch (err) {
    // Beyond the engine filter's limits (conditions, `in` length) or a non-finite bound: no pushdown, only the
    // exact check (which treats a non-finite bound as LangGraph does).
    if (err instanceof AkashicError) return null;
    throw err;
  }
}

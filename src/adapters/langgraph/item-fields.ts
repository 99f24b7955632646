/**
 * Field paths of a LangGraph store item, as `IndexConfig.fields` and `put(…, index)` name them: `$` (the whole value),
 * `a.b`, `list[*].text`, `list[0]`, `list[-1]`, `*` (every value of an object). Mirrors InMemoryStore's extraction so
 * the same value yields the same texts (and so the same embeddings); the multi-field form `{a,b}` is not supported.
 * @internal
 */

const TOKEN = /\[[^\]]*\]|[^.[\]]+/g;

export function tokenizeFieldPath(path: string): string[] {
  return path.match(TOKEN) ?? [];
}

function leafText(v: unknown): string[] {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (v !== null && typeof v === 'object') return [JSON.stringify(v, null, 2)];
  return [];
}

function extract(v: unknown, tokens: readonly string[], pos: number): string[] {
  if (pos >= tokens.length) return leafText(v);
  const t = tokens[pos]!;
  if (t.startsWith('[')) {
    if (!Array.isArray(v)) return [];
    const index = t.slice(1, -1);
    if (index === '*') return v.flatMap((x: unknown) => extract(x, tokens, pos + 1));
    let i = Number.parseInt(index, 10);
    if (Number.isNaN(i)) return [];
    if (i < 0) i += v.length;
    return i >= 0 && i < v.length ? extract(v[i], tokens, pos + 1) : [];
  }
  if (v === null || typeof v !== 'object') return [];
  if (t === '*') return Object.values(v).flatMap((x: unknown) => extract(x, tokens, pos + 1));
  return Object.hasOwn(v, t) ? extract((v as Record<string, unknown>)[t], tokens, pos + 1) : [];
}

/** Texts at one field path of a value (several for `[*]` and `*`). */
export function textsAtPath(value: unknown, path: string): string[] {
  if (path === '$' || path === '') return [JSON.stringify(value, null, 2)];
  return extract(value, tokenizeFieldPath(path), 0);
}

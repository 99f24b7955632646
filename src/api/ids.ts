import { invalidArgument } from '../errors.js';

/** Longest user or session id, in UTF-8 bytes. Frozen in docs/format.md. */
export const MAX_ID_BYTES = 256;
const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
// Control characters include U+0000, the key separator; none of them belongs in an id.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

/**
 * Validates a user or session id: a non-empty well-formed string of at most MAX_ID_BYTES UTF-8 bytes without
 * control characters (U+0000, the key separator, among them). Throws AKASHIC_INVALID_ARGUMENT naming `what`.
 */
export function checkId(value: unknown, what: string): string {
  if (typeof value !== 'string') throw invalidArgument(`${what} must be a string, got ${typeof value}`);
  if (value.length === 0) throw invalidArgument(`${what} must not be empty`);
  if (!value.isWellFormed()) throw invalidArgument(`${what} contains a lone UTF-16 surrogate`);
  if (CONTROL_RE.test(value)) throw invalidArgument(`${what} contains a control character (separator bytes are not allowed)`);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_ID_BYTES) throw invalidArgument(`${what} is ${bytes} bytes; the limit is ${MAX_ID_BYTES}`);
  return value;
}

/** True for a canonical upper-case ULID (what every stored chunk id is). */
export function isChunkId(value: string): boolean {
  return ULID_RE.test(value);
}

/** Validates a chunk id: a canonical upper-case ULID (26 Crockford base-32 characters). */
export function checkChunkId(value: unknown, what = 'chunkId'): string {
  if (typeof value !== 'string' || !ULID_RE.test(value)) {
    // Only strings are quoted: String() itself throws for some values (null-prototype objects, for one).
    const got = typeof value === 'string' ? JSON.stringify(value).slice(0, 60) : `a ${value === null ? 'null' : typeof value}`;
    throw invalidArgument(`${what} must be a 26-character upper-case ULID, got ${got}`);
  }
  return value;
}

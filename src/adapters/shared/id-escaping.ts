/**
 * Reversible mapping of framework identifiers (LangGraph namespace labels, thread ids, chat session ids) onto the
 * engine's user and session ids, which are 1–256 UTF-8 bytes without control characters.
 *
 * `%` and the control characters U+0000–U+001F and U+007F become `%XX` (upper-case hex); everything else is kept, so
 * ordinary ids map onto themselves and the mapping stays injective. Nothing else is escaped, in particular not `.`,
 * which the adapters use as a separator only where the framework forbids it inside labels.
 * @internal
 */
import { MAX_ID_BYTES } from '../../api/ids.js';

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[%\u0000-\u001f\u007f]/g;
const ESCAPED = /%([0-9A-F]{2})/g;

export function escapeIdPart(s: string): string {
  return s.replace(NEEDS_ESCAPE, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}

export function unescapeIdPart(s: string): string {
  return s.replace(ESCAPED, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** True when `id` is a valid engine user or session id (length and well-formedness; escaping removed the rest). */
export function fitsEngineId(id: string): boolean {
  return id.length > 0 && id.isWellFormed() && Buffer.byteLength(id, 'utf8') <= MAX_ID_BYTES;
}

/**
 * The one error body of the service: `{ code, message }`, `code` an `AKASHIC_*` error code. The server writes it
 * for every failed request; the client turns it back into an `AkashicError` with the same code.
 */
import { AkashicError, type AkashicErrorCode } from '../errors.js';

export interface ErrorBody {
  readonly code: AkashicErrorCode;
  readonly message: string;
}

const CODES: ReadonlySet<string> = new Set<AkashicErrorCode>([
  'AKASHIC_NOT_OPEN',
  'AKASHIC_LOCKED',
  'AKASHIC_CORRUPTION',
  'AKASHIC_INVALID_ARGUMENT',
  'AKASHIC_CONFLICT',
  'AKASHIC_NOT_FOUND',
  'AKASHIC_FORMAT_VERSION',
  'AKASHIC_MODEL',
  'AKASHIC_IO',
  'AKASHIC_READ_ONLY',
  'AKASHIC_UNAUTHORIZED',
  'AKASHIC_FORBIDDEN',
  'AKASHIC_TIMEOUT',
  'AKASHIC_MISSING_PACKAGE',
]);

/** Whether `code` is one of the engine's error codes. */
export function isErrorCode(code: unknown): code is AkashicErrorCode {
  return typeof code === 'string' && CODES.has(code);
}

/**
 * The AkashicError an error body (already parsed from JSON) stands for. A body that is not an error body (a proxy's
 * HTML page, say) becomes AKASHIC_IO naming the HTTP status.
 */
export function errorFromBody(body: unknown, status: number): AkashicError {
  if (body !== null && typeof body === 'object') {
    const { code, message } = body as { code?: unknown; message?: unknown };
    if (isErrorCode(code)) return new AkashicError(code, typeof message === 'string' ? message : code);
  }
  return new AkashicError('AKASHIC_IO', `the service answered HTTP ${status} without an error body`);
}

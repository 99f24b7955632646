/**
 * The one table from error code to HTTP status. Every failed request answers `{ code, message }` with the status
 * its code has here, whatever route or face (REST or MCP over HTTP) it came through.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AkashicError, type AkashicErrorCode } from '../errors.js';
import type { ErrorBody } from '../protocol/error-body.js';

export const HTTP_STATUS: Readonly<Record<AkashicErrorCode, ContentfulStatusCode>> = {
  /** Bad input of any kind: malformed JSON, a wrong type, an unknown field, an id or a filter out of range, a body over the limit. */
  AKASHIC_INVALID_ARGUMENT: 400,
  AKASHIC_UNAUTHORIZED: 401,
  AKASHIC_FORBIDDEN: 403,
  AKASHIC_NOT_FOUND: 404,
  AKASHIC_CONFLICT: 409,
  /** A model the memory calls failed after its retries: an upstream failure. */
  AKASHIC_MODEL: 502,
  /** The service is shutting down (or its store closed). */
  AKASHIC_NOT_OPEN: 503,
  /** The store latched read-only after a storage write failed: writes are refused until a restart. */
  AKASHIC_READ_ONLY: 503,
  AKASHIC_TIMEOUT: 503,
  AKASHIC_LOCKED: 503,
  AKASHIC_CORRUPTION: 500,
  AKASHIC_FORMAT_VERSION: 500,
  AKASHIC_IO: 500,
  /** A running service has its packages; a Redis URL without ioredis installed is a server-side fault. */
  AKASHIC_MISSING_PACKAGE: 500,
};

/**
 * The status and body for a failure. An error that is not an AkashicError is a bug of ours: its message is not sent
 * (it may name internals); it is reported as AKASHIC_IO and handed to `onInternal` for the log.
 */
export function failure(err: unknown, onInternal: (err: unknown) => void): { status: ContentfulStatusCode; body: ErrorBody } {
  if (err instanceof AkashicError) return { status: HTTP_STATUS[err.code], body: { code: err.code, message: err.message } };
  onInternal(err);
  return { status: 500, body: { code: 'AKASHIC_IO', message: 'internal error (see the service log)' } };
}

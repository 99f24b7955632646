/**
 * The one error class of Akashic. Callers branch on `code`, never on `message`.
 * Codes are a public contract: they never change meaning and are never reused.
 */
export type AkashicErrorCode =
  /** The engine is not open (never opened, closing or closed). */
  | 'AKASHIC_NOT_OPEN'
  /** Another process holds the database lock. */
  | 'AKASHIC_LOCKED'
  /** Stored bytes failed a checksum, a structural check or a cross-reference check. */
  | 'AKASHIC_CORRUPTION'
  /** An argument was rejected before anything was changed. */
  | 'AKASHIC_INVALID_ARGUMENT'
  /** A compare-and-swap lost to a concurrent change; nothing was applied. */
  | 'AKASHIC_CONFLICT'
  /** The addressed chunk (or block) does not exist. */
  | 'AKASHIC_NOT_FOUND'
  /** The database was written by an incompatible format version. */
  | 'AKASHIC_FORMAT_VERSION'
  /** A model (LLM or embedded) failed after its bounded retries; nothing was applied. */
  | 'AKASHIC_MODEL'
  /** The underlying key-value store failed for another reason. */
  | 'AKASHIC_IO'
  /**
   * The store refuses writes because an earlier storage write failed (disk full, I/O error): acknowledged data is
   * safe, reads still work; close and reopen the store to recover.
   */
  | 'AKASHIC_READ_ONLY'
  /** A service request carried no API key, or one the service does not know. */
  | 'AKASHIC_UNAUTHORIZED'
  /** A service request's API key is not allowed the user (tenant) it names; nothing was read or changed. */
  | 'AKASHIC_FORBIDDEN'
  /**
   * A service request did not finish within the service's request timeout. The reply is an error, but a write
   * that was already under way may still land: read back before retrying a non-idempotent write.
   */
  | 'AKASHIC_TIMEOUT'
  /**
   * A feature was used whose optional packages are not installed (the HTTP service, the MCP server, the Redis
   * backend); the message names the packages and the command that installs them. Nothing was opened or changed.
   */
  | 'AKASHIC_MISSING_PACKAGE';

export class AkashicError extends Error {
  readonly code: AkashicErrorCode;

  constructor(code: AkashicErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AkashicError';
    this.code = code;
  }
}

/** True when `err` is an AkashicError, optionally of the given code. */
export function isAkashicError(err: unknown, code?: AkashicErrorCode): err is AkashicError {
  return err instanceof AkashicError && (code === undefined || err.code === code);
}

export function invalidArgument(message: string): AkashicError {
  return new AkashicError('AKASHIC_INVALID_ARGUMENT', message);
}

export function corruption(message: string, cause?: unknown): AkashicError {
  return new AkashicError('AKASHIC_CORRUPTION', message, cause === undefined ? undefined : { cause });
}

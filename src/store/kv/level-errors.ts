/**
 * How errors of the key-value store (abstract-level's stable `LEVEL_*` codes) surface: as AkashicError with a stable
 * code and the original error as `cause`. The one place that reads those codes: every layer maps through it (the
 * engine's calls, MemAttention's, the batch writer, opening and destroying a database, salvage's source).
 */
import { join } from 'node:path';
import { AkashicError, isAkashicError } from '../../errors.js';

/** The `code`s of `err` and of its causes, outermost first (abstract-level wraps the binding's error). */
function levelCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = (e as Error & { cause?: unknown }).cause) {
    const c = (e as Error & { code?: unknown }).code;
    if (typeof c === 'string') codes.push(c);
  }
  return codes;
}

/** A database or iterator closed under a racing call: a lifecycle error, nothing was done (not an I/O failure). */
export function isNotOpen(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'LEVEL_DATABASE_NOT_OPEN' || code === 'LEVEL_ITERATOR_NOT_OPEN';
}

/** LevelDB found its own files damaged (on open, or while reading a block). */
export function isCorruption(err: unknown): boolean {
  return levelCodes(err).includes('LEVEL_CORRUPTION');
}

/**
 * An error of a call on an open database: LevelDB corruption → AKASHIC_CORRUPTION; a database or iterator closed
 * under a racing call → AKASHIC_NOT_OPEN (a lifecycle error, not an I/O failure); any other Error → AKASHIC_IO.
 * AkashicErrors pass through unchanged.
 */
export function storageError(err: unknown): unknown {
  if (isAkashicError(err)) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'LEVEL_CORRUPTION') return new AkashicError('AKASHIC_CORRUPTION', `storage corruption: ${(err as Error).message}`, { cause: err });
  if (isNotOpen(err)) return new AkashicError('AKASHIC_NOT_OPEN', 'database is not open', { cause: err });
  if (err instanceof Error) return new AkashicError('AKASHIC_IO', err.message, { cause: err });
  return err;
}

/**
 * Why a database could not be opened: AKASHIC_LOCKED naming the lock file, AKASHIC_CORRUPTION, AKASHIC_NOT_FOUND
 * only for a database that does not exist (LevelDB failing to recover, as on a full disk, is AKASHIC_IO).
 */
export function openError(err: unknown, path: string | undefined): AkashicError {
  const codes = levelCodes(err);
  if (codes.includes('LEVEL_LOCKED')) return lockedError(err, path, '');
  if (codes.includes('LEVEL_CORRUPTION')) return new AkashicError('AKASHIC_CORRUPTION', `database is corrupt: ${(err as Error).message}`, { cause: err });
  const detail = String((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
  if (codes.includes('LEVEL_DATABASE_NOT_OPEN') && path !== undefined && /does not exist/.test(detail)) {
    return new AkashicError('AKASHIC_NOT_FOUND', `cannot open database at ${path}: ${detail}`, { cause: err });
  }
  if (path !== undefined) return new AkashicError('AKASHIC_IO', `cannot open database at ${path}: ${detail}`, { cause: err });
  return new AkashicError('AKASHIC_IO', `cannot open database: ${(err as Error).message}`, { cause: err });
}

/**
 * Why a database could not be destroyed (LevelDB takes its lock first): AKASHIC_LOCKED when another process (or this
 * one) holds it open, else AKASHIC_IO. Either way nothing was deleted by the failed call.
 */
export function destroyError(err: unknown, path: string): AkashicError {
  if (levelCodes(err).includes('LEVEL_LOCKED')) return lockedError(err, path, '; nothing was deleted');
  return new AkashicError('AKASHIC_IO', `cannot delete the database at ${path}: ${(err as Error).message}`, { cause: err });
}

function lockedError(err: unknown, path: string | undefined, detail: string): AkashicError {
  const lock = path === undefined ? 'LOCK' : join(path, 'LOCK');
  return new AkashicError('AKASHIC_LOCKED', `database is locked by another process or already open in this one (lock file ${lock})${detail}`, { cause: err });
}

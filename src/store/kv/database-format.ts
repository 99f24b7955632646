import { AkashicError } from '../../errors.js';
import type { BatchWriter } from './batch-writer.js';
import type { ColumnFamilies } from './column-families.js';
import { META_FORMAT_KEY } from './keys.js';

/** The database format this engine writes (docs/format.md, "Database format"). */
export const DATABASE_FORMAT = 6;
/** The oldest database format an engine must read to open a database this engine wrote. */
export const READABLE_FROM = 6;

/** What `meta/format` says: the database's format, and the oldest format an engine must read to open it. */
export interface DatabaseFormat {
  readonly format: number;
  readonly readableFrom: number;
}

/**
 * Reads `meta/format` and refuses, before anything is read or written, a database that needs a newer engine
 * (`readableFrom` above this engine's format): AKASHIC_FORMAT_VERSION naming both. Absent (a database written before
 * the record existed) gives null. A value of the wrong size is AKASHIC_CORRUPTION.
 */
export async function checkDatabaseFormat(cf: ColumnFamilies): Promise<DatabaseFormat | null> {
  const v = await cf.meta.get(META_FORMAT_KEY);
  if (v === undefined) return null;
  if (v.length !== 8) throw new AkashicError('AKASHIC_CORRUPTION', `meta/format is ${v.length} bytes, not 8`);
  const stored = { format: v.readUInt32LE(0), readableFrom: v.readUInt32LE(4) };
  if (stored.readableFrom > DATABASE_FORMAT) {
    throw new AkashicError(
      'AKASHIC_FORMAT_VERSION',
      `database format ${stored.format} needs an engine that reads format ${stored.readableFrom} or later; this engine reads up to ${DATABASE_FORMAT}`,
    );
  }
  return stored;
}

/**
 * Records this engine's format in a database it opened writable, once its upgrades are done: when the record is
 * absent or older. A newer record (a later engine whose format this one may still open) is left as it is.
 */
export async function recordDatabaseFormat(cf: ColumnFamilies, writer: BatchWriter, stored: DatabaseFormat | null): Promise<void> {
  if (stored !== null && stored.format >= DATABASE_FORMAT) return;
  const v = Buffer.alloc(8);
  v.writeUInt32LE(DATABASE_FORMAT, 0);
  v.writeUInt32LE(READABLE_FROM, 4);
  await writer.write([{ type: 'put', sublevel: cf.meta, key: META_FORMAT_KEY, value: v }]);
}

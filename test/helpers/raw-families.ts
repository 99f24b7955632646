/**
 * Fault injection: the engine's column families over a database handle, for the tests that damage stored bytes on
 * purpose (flipped frames, truncated entries, dangling locations). The one place outside the engine that touches
 * column families; nothing else in the tests may (use the public API or the engine's internal seams).
 */
import { ClassicLevel } from 'classic-level';
import { AkashicStore, type AkashicStoreOptions } from '../../src/index.js';
import type { ColumnFamilies } from '../../src/store/column-families.js';
import { openFamilies } from '../../src/store/column-families.js';
import type { AnyLevel } from '../../src/store/options.js';

export type { ColumnFamilies };

/** The column families of `db` (open, or opening with the store that uses it). */
export function rawFamilies(db: AnyLevel): ColumnFamilies {
  return openFamilies(db);
}

/** Opens the store at `path` over a handle the test keeps, so it can damage bytes under the open store. */
export async function openWithRawFamilies(path: string, opts: Partial<AkashicStoreOptions> = {}): Promise<{ store: AkashicStore; raw: ColumnFamilies }> {
  const db = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  const store = await AkashicStore.open({ ...opts, db });
  return { store, raw: rawFamilies(db) };
}

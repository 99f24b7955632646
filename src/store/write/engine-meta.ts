import { AkashicError } from '../../errors.js';
import { decodeEngineMeta, encodeEngineMeta, type EngineMeta } from '../../record/engine-records.js';
import { FORMAT_VERSION } from '../../record/envelope.js';
import type { BatchWriter } from '../kv/batch-writer.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import { META_ENGINE_KEY } from '../kv/keys.js';
import type { ResolvedStoreOptions } from '../../api/store-options.js';

import { ENGINE_VERSION } from '../../api/engine-version.js';

export { ENGINE_VERSION };

/**
 * Reads the engine meta record, creating it for a new database, and settles the layout options: `explicit` names
 * the layout options the caller set; the others come from the settings recorded when the database was created (a
 * database keeps its block capacity, byte budget and session mixing unless told otherwise). An explicit setting
 * that differs is written back (not when read-only). Throws AKASHIC_NOT_FOUND read-only on an empty database and
 * AKASHIC_FORMAT_VERSION for a format this engine does not read.
 */
export async function openEngineMeta(
  cf: ColumnFamilies,
  writer: BatchWriter,
  given: ResolvedStoreOptions,
  explicit: ReadonlySet<string>,
): Promise<{ meta: EngineMeta; options: ResolvedStoreOptions }> {
  let options = given;
  const metaValue = await cf.meta.get(META_ENGINE_KEY);
  let meta: EngineMeta;
  if (metaValue === undefined) {
    if (options.readOnly) throw new AkashicError('AKASHIC_NOT_FOUND', 'no Akashic database here (opened read-only, so none was created)');
    meta = {
      createdAt: options.now(),
      engineVersion: ENGINE_VERSION,
      blockCapacity: options.blockCapacity,
      blockMaxBytes: options.blockMaxBytes,
      crossSessionBlocks: options.crossSessionBlocks,
    };
    await writer.write([{ type: 'put', sublevel: cf.meta, key: META_ENGINE_KEY, value: encodeEngineMeta(meta) }]);
  } else {
    if (metaValue.length > 4 && metaValue[4] !== FORMAT_VERSION) {
      throw new AkashicError('AKASHIC_FORMAT_VERSION', `database format version ${metaValue[4]}; this engine reads ${FORMAT_VERSION}`);
    }
    meta = decodeEngineMeta(metaValue, 'engine meta');
    options = {
      ...options,
      blockCapacity: explicit.has('blockCapacity') ? options.blockCapacity : meta.blockCapacity,
      blockMaxBytes: explicit.has('blockMaxBytes') ? options.blockMaxBytes : meta.blockMaxBytes,
      crossSessionBlocks: explicit.has('crossSessionBlocks') ? options.crossSessionBlocks : meta.crossSessionBlocks,
    };
    const changed =
      options.blockCapacity !== meta.blockCapacity || options.blockMaxBytes !== meta.blockMaxBytes || options.crossSessionBlocks !== meta.crossSessionBlocks;
    if (changed && !options.readOnly) {
      // An explicit setting becomes the database's own from now on; blocks already written keep their shape.
      meta = { ...meta, blockCapacity: options.blockCapacity, blockMaxBytes: options.blockMaxBytes, crossSessionBlocks: options.crossSessionBlocks };
      await writer.write([{ type: 'put', sublevel: cf.meta, key: META_ENGINE_KEY, value: encodeEngineMeta(meta) }]);
    }
  }
  return { meta, options };
}

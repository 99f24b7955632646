import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readableBlocks, tableDamage, type TableDamage } from './table-check.js';
import { writeTable } from './table-format.js';
import { liveTableNumbers } from './manifest.js';

export interface TableLoss extends TableDamage {
  readonly whatIsLost: string;
}

/**
 * Replaces every damaged table of a LevelDB directory — meant for a private working copy, never a database in
 * use — by a table of its readable data blocks (same file name, entries and sequence numbers unchanged), or
 * removes it when nothing in it is readable. The directory's MANIFEST then no longer matches its tables: run
 * LevelDB's repair on it before opening. Returns what was lost. A replaced table is written to a new file and
 * renamed over the old name, so a hard link to the original (the source database's file) is left untouched.
 *
 * With `skipOrphans`, a table the current MANIFEST does not name is left alone, as the table check at open does: a
 * compaction or flush killed mid-write leaves such a partial table, LevelDB never reads it and deletes it at open,
 * and its entries are still in the tables (or the log) it was being written from. Without it (before LevelDB's
 * repair, which reads every table file in the directory, named or not), every table is checked.
 */
export async function rebuildDamagedTables(dir: string, opts: { readonly skipOrphans: boolean }): Promise<TableLoss[]> {
  const lost: TableLoss[] = [];
  const live = opts.skipOrphans ? await liveTableNumbers(dir) : null;
  const tables = (await readdir(dir)).filter((n) => /^\d+\.(ldb|sst)$/.test(n) && (live === null || live.has(Number.parseInt(n, 10))));
  for (const name of tables.sort()) {
    const path = join(dir, name);
    const buf = await readFile(path);
    if (tableDamage(name, buf, 1).length === 0) continue;
    const readable = readableBlocks(name, buf);
    const kept = readable.blocks.reduce((n, b) => n + b.length, 0);
    if (kept === 0) {
      await rm(path);
      lost.push(...readable.lost.map((d) => ({ ...d, whatIsLost: 'nothing in this table was readable: it was left out' })));
      continue;
    }
    await writeFile(`${path}.rebuilt`, writeTable(readable.blocks));
    await rename(`${path}.rebuilt`, path);
    // Damage only outside the data blocks (filter, metaindex) loses no entry.
    const whatIsLost = readable.lost.length === 0 ? 'no entry lost: the table was rebuilt without it' : 'the entries of that block are lost';
    lost.push(...(readable.lost.length === 0 ? tableDamage(name, buf) : readable.lost).map((d) => ({ ...d, whatIsLost })));
  }
  return lost;
}

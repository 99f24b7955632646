import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readableBlocks, tableDamage, type TableDamage } from './table-check.js';
import { writeTable } from './table-format.js';

export interface TableLoss extends TableDamage {
  readonly whatIsLost: string;
}

/**
 * Replaces every damaged table of a LevelDB directory — meant for a private working copy, never a database in
 * use — by a table of its readable data blocks (same file name, entries and sequence numbers unchanged), or
 * removes it when nothing in it is readable. The directory's MANIFEST then no longer matches its tables: run
 * LevelDB's repair on it before opening. Returns what was lost. A replaced table is written to a new file and
 * renamed over the old name, so a hard link to the original (the source database's file) is left untouched.
 */
export async function rebuildDamagedTables(dir: string): Promise<TableLoss[]> {
  const lost: TableLoss[] = [];
  for (const name of (await readdir(dir)).filter((n) => /^\d+\.(ldb|sst)$/.test(n)).sort()) {
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

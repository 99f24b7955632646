import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { liveTableNumbers } from './manifest.js';
import { join } from 'node:path';
import { blockEntries, checkBlock, decodeHandle, readBlock, readFooter, TableFormatError, type BlockHandle, type Entry } from './table-format.js';

/**
 * Damage in LevelDB's table files (`*.ldb`, `*.sst`), found before LevelDB opens the database.
 *
 * Why: classic-level opens LevelDB without `paranoid_checks` and reads without `verify_checksums`, so LevelDB hands
 * up whatever bytes a damaged block holds. Akashic's own envelope catches a damaged value, but not a damaged key:
 * a key whose bytes changed is out of order, reads report its chunk as missing, and the next compaction that merges
 * the table aborts the whole process (an assertion in LevelDB's `TableBuilder::Add`). Every table block carries a
 * CRC-32C (table-format.ts); checking them all before LevelDB sees the directory turns any such damage into a
 * refusal to open (AKASHIC_CORRUPTION, pointing at `akashic salvage`).
 *
 * Cost: table files are immutable, so each is checked once. The names, sizes and modification times of the tables
 * that passed are kept in the directory's `AKASHIC-VERIFIED-TABLES` file (a cache: losing it only means checking
 * again; format in docs/format.md), and an open checks only tables not listed there with the same size and time —
 * in practice the ones LevelDB wrote since the last open. Damage that keeps a listed table's size and time (decay
 * of the medium, not a write) is found by a full check: `akashic salvage` always checks every table.
 */
export interface TableDamage {
  readonly file: string;
  readonly offset: number;
  readonly reason: string;
}

export const VERIFIED_TABLES_FILE = 'AKASHIC-VERIFIED-TABLES';
const HEADER = 'akashic verified tables 1';
const TABLE = /^\d+\.(ldb|sst)$/;

/** Damage in one table file's bytes: footer, index, every data block, metaindex and filter (at most `max`). */
export function tableDamage(file: string, buf: Uint8Array, max = 16): TableDamage[] {
  const out: TableDamage[] = [];
  const note = (err: unknown): void => {
    if (!(err instanceof TableFormatError)) throw err;
    out.push({ file, offset: err.offset, reason: err.message });
  };
  let footer: ReturnType<typeof readFooter>;
  let handles: BlockHandle[];
  try {
    footer = readFooter(buf);
    handles = blockEntries(readBlock(buf, footer.index)).map((e) => decodeHandle(e.value));
  } catch (err) {
    note(err);
    return out;
  }
  for (const h of handles) {
    if (out.length >= max) return out;
    try {
      checkBlock(buf, h);
    } catch (err) {
      note(err);
    }
  }
  try {
    for (const e of blockEntries(readBlock(buf, footer.metaindex))) checkBlock(buf, decodeHandle(e.value));
  } catch (err) {
    note(err);
  }
  return out;
}

/**
 * The entries of a table's readable data blocks, block by block in file order, and what could not be read: a
 * data block that fails its checksum or does not decode is left out; a damaged footer or index block leaves
 * nothing readable.
 */
export function readableBlocks(file: string, buf: Uint8Array): { blocks: Entry[][]; lost: TableDamage[] } {
  const blocks: Entry[][] = [];
  const lost: TableDamage[] = [];
  const note = (err: unknown): void => {
    if (!(err instanceof TableFormatError)) throw err;
    lost.push({ file, offset: err.offset, reason: err.message });
  };
  let handles: BlockHandle[];
  try {
    handles = blockEntries(readBlock(buf, readFooter(buf).index)).map((e) => decodeHandle(e.value));
  } catch (err) {
    note(err);
    return { blocks, lost };
  }
  for (const h of handles) {
    try {
      blocks.push(blockEntries(readBlock(buf, h)));
    } catch (err) {
      note(err);
    }
  }
  return { blocks, lost };
}

export interface TableCheck {
  readonly damage: TableDamage[];
  /** Tables read and checked now (the others were listed as verified). */
  readonly checked: number;
  /** Records every table that passed as verified, so the next open skips it (best effort: a cache). */
  record(): Promise<void>;
}

/**
 * Checks the table files of a LevelDB directory. With `trustVerified`, tables listed in the directory's verified
 * file with their current size and modification time are skipped. A directory that does not exist has no damage.
 * A table that disappears while this runs (LevelDB deleted it after a compaction) is skipped.
 */
export async function checkTables(dir: string, opts: { trustVerified: boolean }): Promise<TableCheck> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => TABLE.test(n)).sort();
  } catch {
    return { damage: [], checked: 0, record: async () => {} };
  }
  // Tables no MANIFEST names (a compaction killed mid-write) are never read by LevelDB and deleted at open.
  const live = await liveTableNumbers(dir);
  if (live !== null) names = names.filter((n) => live.has(Number.parseInt(n, 10)));
  const listed = opts.trustVerified ? await readVerified(dir) : new Map<string, string>();
  const passed = new Map<string, string>();
  const damage: TableDamage[] = [];
  let checked = 0;
  for (const name of names) {
    const path = join(dir, name);
    try {
      const s = await stat(path, { bigint: true });
      const id = `${s.size} ${s.mtimeNs}`;
      if (listed.get(name) === id) {
        passed.set(name, id);
        continue;
      }
      const found = tableDamage(name, await readFile(path));
      checked++;
      if (found.length === 0) passed.set(name, id);
      damage.push(...found);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const record = async (): Promise<void> => {
    if (damage.length > 0 || sameMap(passed, listed)) return;
    const text = [HEADER, ...[...passed].map(([name, id]) => `${name} ${id}`)].join('\n') + '\n';
    const tmp = join(dir, `${VERIFIED_TABLES_FILE}.tmp`);
    try {
      await writeFile(tmp, text);
      await rename(tmp, join(dir, VERIFIED_TABLES_FILE));
    } catch {
      // A cache: when it cannot be written, the next open checks these tables again.
    }
  };
  return { damage, checked, record };
}

async function readVerified(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let text: string;
  try {
    text = await readFile(join(dir, VERIFIED_TABLES_FILE), 'utf8');
  } catch {
    return out;
  }
  const lines = text.split('\n');
  if (lines[0] !== HEADER) return out;
  for (const line of lines.slice(1)) {
    const m = /^(\d+\.(?:ldb|sst)) (\d+ \d+)$/.exec(line);
    if (m !== null) out.set(m[1]!, m[2]!);
  }
  return out;
}

function sameMap(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { logRecords } from './log-check.js';

/**
 * The table files LevelDB's current MANIFEST names as live.
 *
 * Why: a compaction killed mid-write leaves a partial `*.ldb` that no MANIFEST names. LevelDB never reads such an
 * orphan and deletes it at open, so the table check must not call it damage (it would refuse every open after a
 * crash during a compaction).
 *
 * Format (LevelDB 1.x): CURRENT names the MANIFEST, a log-format file (read by `logRecords`, as the write-ahead
 * logs are) whose records are VersionEdits: varint tags, among them 6 = deleted file (level, number) and 7 = new
 * file (level, number, size, smallest key, largest key).
 *
 * Returns null when CURRENT or the MANIFEST cannot be read or parsed (a damaged frame included): the caller then
 * treats every table as live.
 */
export async function liveTableNumbers(dir: string): Promise<Set<number> | null> {
  try {
    const current = (await readFile(join(dir, 'CURRENT'), 'utf8')).trim();
    if (!/^MANIFEST-\d+$/.test(current)) return null;
    const buf = await readFile(join(dir, current));
    const live = new Set<number>();
    for (const edit of logRecords(buf)) applyEdit(edit, live);
    return live;
  } catch {
    return null;
  }
}

function applyEdit(edit: Uint8Array, live: Set<number>): void {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= edit.length) throw new Error('a varint runs past its VersionEdit');
      const b = edit[at++]!;
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
  };
  const slice = (): void => {
    const length = varint(); // read first: `at += varint()` would add to the value of `at` before the varint
    at += length;
  };
  while (at < edit.length) {
    const tag = varint();
    switch (tag) {
      case 1: slice(); break; // comparator name
      case 2: case 3: case 4: case 9: varint(); break; // log number, next file, last sequence, prev log number
      case 5: varint(); slice(); break; // compact pointer: level, key
      case 6: varint(); live.delete(varint()); break; // deleted file: level, number
      case 7: { varint(); const n = varint(); varint(); slice(); slice(); live.add(n); break; } // new file
      default: throw new Error(`unknown VersionEdit tag ${tag}`);
    }
  }
}

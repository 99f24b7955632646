import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32c, unmaskCrc } from './crc32c.js';

/**
 * Damage in LevelDB's write-ahead logs (`*.log`), found before LevelDB opens the database.
 *
 * Why: on open, LevelDB replays its logs and, on a record that fails its checksum, silently drops the rest of that
 * 32 KiB log block — acknowledged writes among them — then writes what it kept into a table and deletes the log.
 * Reads would then return stale versions and deleted chunks as live with no error. Checking the logs first lets the
 * engine refuse to open (AKASHIC_CORRUPTION, pointing at `akashic salvage`) while the evidence is still on disk.
 *
 * What counts as damage, following LevelDB's own log reader (log format: 32 KiB blocks of records, each a 7-byte
 * header — masked CRC-32C, length, type — and a payload; a record never spans blocks): a record whose payload is
 * complete but fails its checksum; a record longer than its block where more of the file follows; an unknown type;
 * fragments out of order. Not damage: a record cut short by the end of the file (a write torn by a crash or a full
 * disk — never acknowledged), zero padding (preallocation), a block trailer under 7 bytes.
 *
 * Limit: a flipped length byte in the file's very last record that points past the end of the file looks exactly
 * like a torn write and is not reported; LevelDB drops that one record.
 */
export interface LogDamage {
  readonly file: string;
  readonly offset: number;
  readonly reason: string;
}

const BLOCK = 32 * 1024;
const HEADER = 7;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;

/** Damage in one log file's bytes (at most `max` findings). */
export function logDamage(file: string, buf: Uint8Array, max = 16): LogDamage[] {
  const out: LogDamage[] = [];
  let inFragment = false;
  for (let block = 0; block < buf.length && out.length < max; block += BLOCK) {
    const end = Math.min(block + BLOCK, buf.length);
    let at = block;
    while (end - at >= HEADER && out.length < max) {
      const length = buf[at + 4]! | (buf[at + 5]! << 8);
      const type = buf[at + 6]!;
      const stored = (buf[at]! | (buf[at + 1]! << 8) | (buf[at + 2]! << 16) | (buf[at + 3]! << 24)) >>> 0;
      if (type === 0 && length === 0 && stored === 0) break; // zero padding: the rest of the block is unused
      if (at + HEADER + length > end) {
        // Cut short by the end of the file: a torn, unacknowledged write. Anywhere else: damage.
        if (end === buf.length && end - block < BLOCK) return out;
        out.push({ file, offset: at, reason: `record length ${length} overruns its log block` });
        break;
      }
      if (crc32c(buf, at + 6, at + HEADER + length) !== unmaskCrc(stored)) {
        out.push({ file, offset: at, reason: 'checksum mismatch' });
        inFragment = false;
        break; // LevelDB drops the rest of the block; so does this check
      }
      if (type === FULL || type === FIRST) {
        if (inFragment) out.push({ file, offset: at, reason: 'a fragmented record has no end' });
        inFragment = type === FIRST;
      } else if (type === MIDDLE || type === LAST) {
        if (!inFragment) out.push({ file, offset: at, reason: 'a record fragment has no start' });
        inFragment = type === MIDDLE;
      } else {
        out.push({ file, offset: at, reason: `unknown record type ${type}` });
      }
      at += HEADER + length;
    }
  }
  return out;
}

/** Damage in every `*.log` file of a LevelDB directory (none when the directory does not exist). */
export async function findLogDamage(dir: string): Promise<LogDamage[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: LogDamage[] = [];
  for (const name of names.filter((n) => /^\d+\.log$/.test(n)).sort()) {
    out.push(...logDamage(name, await readFile(join(dir, name))));
  }
  return out;
}

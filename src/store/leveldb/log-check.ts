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

/**
 * One physical record of a file in LevelDB's log format (the write-ahead logs and the MANIFEST): 32 KiB blocks of
 * records, each a 7-byte header (masked CRC-32C, length, type) and its payload; a record never spans blocks.
 */
export type LogFrame =
  /** A record; `intact` when its checksum matches. After one that is not, the rest of its block is skipped. */
  | { readonly kind: 'record'; readonly offset: number; readonly type: number; readonly payload: Uint8Array; readonly intact: boolean }
  /**
   * A record longer than what is left of its block: `torn` when the file ends there (a write cut short by a crash
   * or a full disk, never acknowledged). The rest of the block is skipped.
   */
  | { readonly kind: 'overrun'; readonly offset: number; readonly length: number; readonly torn: boolean };

/** The physical records of a log-format file, in order; zero padding and block trailers under 7 bytes are skipped. */
export function* logFrames(buf: Uint8Array): Generator<LogFrame> {
  for (let block = 0; block < buf.length; block += BLOCK) {
    const end = Math.min(block + BLOCK, buf.length);
    let at = block;
    while (end - at >= HEADER) {
      const length = buf[at + 4]! | (buf[at + 5]! << 8);
      const type = buf[at + 6]!;
      const stored = (buf[at]! | (buf[at + 1]! << 8) | (buf[at + 2]! << 16) | (buf[at + 3]! << 24)) >>> 0;
      if (type === 0 && length === 0 && stored === 0) break; // zero padding: the rest of the block is unused
      if (at + HEADER + length > end) {
        yield { kind: 'overrun', offset: at, length, torn: end === buf.length && end - block < BLOCK };
        break;
      }
      const intact = crc32c(buf, at + 6, at + HEADER + length) === unmaskCrc(stored);
      yield { kind: 'record', offset: at, type, payload: buf.subarray(at + HEADER, at + HEADER + length), intact };
      if (!intact) break; // LevelDB drops the rest of the block
      at += HEADER + length;
    }
  }
}

/**
 * The logical records of a log-format file: FULL records, and FIRST, MIDDLE…, LAST fragments joined. Stops at a
 * torn tail (LevelDB stops there too).
 * @throws Error on a damaged frame (checksum, overrun inside the file, unknown type, fragments out of order).
 */
export function* logRecords(buf: Uint8Array): Generator<Uint8Array> {
  let parts: Uint8Array[] | null = null;
  for (const f of logFrames(buf)) {
    if (f.kind === 'overrun') {
      if (f.torn) return;
      throw new Error(`record length ${f.length} overruns its log block at offset ${f.offset}`);
    }
    if (!f.intact) throw new Error(`checksum mismatch at offset ${f.offset}`);
    if (f.type === FULL && parts === null) yield f.payload;
    else if (f.type === FIRST && parts === null) parts = [f.payload];
    else if (f.type === MIDDLE && parts !== null) parts.push(f.payload);
    else if (f.type === LAST && parts !== null) {
      parts.push(f.payload);
      yield Buffer.concat(parts);
      parts = null;
    } else throw new Error(`record type ${f.type} out of place at offset ${f.offset}`);
  }
}

/** Damage in one log file's bytes (at most `max` findings). */
export function logDamage(file: string, buf: Uint8Array, max = 16): LogDamage[] {
  const out: LogDamage[] = [];
  let inFragment = false;
  for (const f of logFrames(buf)) {
    if (out.length >= max) break;
    if (f.kind === 'overrun') {
      // Cut short by the end of the file: a torn, unacknowledged write. Anywhere else: damage.
      if (f.torn) return out;
      out.push({ file, offset: f.offset, reason: `record length ${f.length} overruns its log block` });
    } else if (!f.intact) {
      out.push({ file, offset: f.offset, reason: 'checksum mismatch' });
      inFragment = false;
    } else if (f.type === FULL || f.type === FIRST) {
      if (inFragment) out.push({ file, offset: f.offset, reason: 'a fragmented record has no end' });
      inFragment = f.type === FIRST;
    } else if (f.type === MIDDLE || f.type === LAST) {
      if (!inFragment) out.push({ file, offset: f.offset, reason: 'a record fragment has no start' });
      inFragment = f.type === MIDDLE;
    } else {
      out.push({ file, offset: f.offset, reason: `unknown record type ${f.type}` });
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

/**
 * The crash test's fault steps (`--faults`), decided per cycle by the parent:
 *
 * - `write-error` / `disk-full`: the child's k-th LevelDB write after its open fails (an I/O error, or "No space
 *   left on device"), with k = 1, 2, 3, … over the run's fault cycles, as SQLite steps an I/O error through every
 *   write of a test. The op that hit it fails; one more write must be refused with AKASHIC_READ_ONLY; after reopen
 *   nothing acknowledged is lost.
 * - `torn-log` / `flipped-log`: after the kill, the newest write-ahead log is cut at a random offset, or one byte
 *   of its last 4 KiB is flipped. The open must then either refuse with AKASHIC_CORRUPTION (changing nothing), or
 *   open on exactly a prefix of the acknowledged ops (a cut tail looks like a torn, unacknowledged write: LevelDB
 *   cannot tell them apart) with verify() clean — never wrong data, never a crash.
 */
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Prng } from '../../src/lab/workload/prng.js';

export type FaultKind = 'none' | 'write-error' | 'disk-full' | 'torn-log' | 'flipped-log';

/** The fault of one cycle: half the cycles run without one, the rest spread over the four kinds. */
export function chooseFault(rng: Prng): FaultKind {
  const r = rng.next();
  return r < 0.5 ? 'none' : r < 0.65 ? 'write-error' : r < 0.75 ? 'disk-full' : r < 0.875 ? 'torn-log' : 'flipped-log';
}

/** What the child's injected failure says, per kind (LevelDB's wording of each). */
export function faultMessage(kind: 'write-error' | 'disk-full'): string {
  return kind === 'disk-full' ? 'IO error: 000007.log: No space left on device' : 'IO error: 000007.log: Input/output error';
}

export interface DamagedLog {
  readonly file: string;
  /** The log's bytes before the damage, to put back after a refused open. */
  readonly original: Buffer;
  readonly damaged: Buffer;
  readonly what: string;
}

/** Damages the newest `*.log` of a LevelDB directory (null when there is none or it is empty). */
export function damageNewestLog(dir: string, kind: 'torn-log' | 'flipped-log', rng: Prng): DamagedLog | null {
  const logs = readdirSync(dir)
    .filter((n) => /^\d+\.log$/.test(n))
    .sort((a, b) => Number(a.slice(0, -4)) - Number(b.slice(0, -4)));
  const name = logs.at(-1);
  if (name === undefined) return null;
  const file = join(dir, name);
  const size = statSync(file).size;
  if (size === 0) return null;
  const original = readFileSync(file);
  if (kind === 'torn-log') {
    const at = rng.int(0, size - 1);
    truncateSync(file, at);
    return { file, original, damaged: readFileSync(file), what: `${name} cut at byte ${at} of ${size}` };
  }
  const at = Math.max(0, size - 1 - rng.int(0, Math.min(size, 4096) - 1));
  const damaged = Buffer.from(original);
  damaged[at] = damaged[at]! ^ (1 << rng.int(0, 7));
  writeFileSync(file, damaged);
  return { file, original, damaged, what: `${name} byte ${at} of ${size} flipped` };
}

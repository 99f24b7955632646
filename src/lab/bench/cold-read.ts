/**
 * Cold-read instruments (docs/benchmarks.md, "The machine and the disks"): dropping the OS page cache before a
 * request, and the bytes this process caused to be read from storage (`read_bytes` of /proc/self/io, which counts page-fault
 * read-ahead on memory-mapped files too). Linux only; elsewhere both report that they are unavailable.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { DiskInfo } from './bench-figures.js';

const DROP_CACHES = '/proc/sys/vm/drop_caches';

/** Whether the page cache can be dropped here (root on Linux). Tries it once: the write is the only real test. */
export function probePageCacheDrop(): { readonly ok: boolean; readonly reason: string } {
  try {
    writeFileSync(DROP_CACHES, '1');
    return { ok: true, reason: `dropped through ${DROP_CACHES} before each measured request` };
  } catch (err) {
    return { ok: false, reason: `cannot write ${DROP_CACHES} (${(err as NodeJS.ErrnoException).code ?? String(err)}): reads were not cold` };
  }
}

/**
 * Writes dirty pages back, then drops clean page-cache pages (`echo 1`). Without the sync, data written since the
 * last writeback would stay cached and the next read would be warm.
 */
export function dropPageCache(syncFirst: boolean): void {
  if (syncFirst) execFileSync('sync');
  writeFileSync(DROP_CACHES, '1');
}

function procIo(field: 'read_bytes' | 'write_bytes'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s*(\\d+)$`, 'm').exec(readFileSync('/proc/self/io', 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** `read_bytes` of /proc/self/io, or null where it cannot be read. */
export function processReadBytes(): number | null {
  return procIo('read_bytes');
}

/**
 * `write_bytes` of /proc/self/io (bytes this process caused to be written to storage, all its threads included, so
 * LevelDB's background compactions count), or null where it cannot be read.
 */
export function processWriteBytes(): number | null {
  return procIo('write_bytes');
}

/** The whole-disk block device holding `path` (a partition maps to its disk), from /sys/dev/block. */
function blockDeviceOf(path: string): string | null {
  try {
    const dev = statSync(path).dev;
    const major = Math.floor(dev / 256) & 0xfff;
    const minor = (dev & 0xff) | ((Math.floor(dev / 4096) & 0xfff00) >>> 0);
    const sys = realpathSync(`/sys/dev/block/${major}:${minor}`);
    return existsSync(`${sys}/partition`) ? basename(dirname(sys)) : basename(sys);
  } catch {
    return null;
  }
}

function readAheadOf(device: string | null): number | null {
  if (device === null) return null;
  try {
    return Number(readFileSync(`/sys/block/${device}/queue/read_ahead_kb`, 'utf8').trim());
  } catch {
    return null;
  }
}

/** Which device (and read-ahead) a directory lives on; a loop device is followed to its backing file's device. */
export function describeDisk(workDir: string): DiskInfo {
  const device = blockDeviceOf(workDir);
  const readAheadKb = readAheadOf(device);
  let summary = `${workDir} on ${device ?? 'an unknown device'}, read-ahead ${readAheadKb ?? '?'} KiB`;
  if (device !== null && device.startsWith('loop')) {
    try {
      const backingFile = readFileSync(`/sys/block/${device}/loop/backing_file`, 'utf8').trim();
      const backingDevice = blockDeviceOf(backingFile);
      const backingReadAheadKb = readAheadOf(backingDevice);
      summary += ` (loop device over ${backingFile} on ${backingDevice ?? '?'}, read-ahead ${backingReadAheadKb ?? '?'} KiB)`;
      return { workDir, device, readAheadKb, backingFile, backingDevice, backingReadAheadKb, summary };
    } catch {
      // no backing file information: report the loop device alone
    }
  }
  return { workDir, device, readAheadKb, summary };
}

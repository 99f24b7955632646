/**
 * Cold-read instruments (docs/benchmarks.md, ../shared MEASURING.md): dropping the OS page cache before a request,
 * and the bytes this process caused to be read from storage (`read_bytes` of /proc/self/io, which counts page-fault
 * read-ahead on memory-mapped files too). Linux only; elsewhere both report that they are unavailable.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

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

/** `read_bytes` of /proc/self/io, or null where it cannot be read. */
export function processReadBytes(): number | null {
  try {
    const m = /^read_bytes:\s*(\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/**
 * Device-level write amplification: for each store, the bytes the process wrote to
 * storage (`write_bytes` of /proc/self/io — LevelDB's log, tables and compactions, SQLite's pages and journal, the
 * engine's relocation and GC) while that store ALONE replays the whole trace, divided by the trace's logical bytes.
 *
 * The lockstep comparison cannot attribute these bytes: every LevelDB in the process shares one background
 * compaction thread, so a compaction started by one store's write lands during another's. Here the stores run one
 * after another, each closed (LevelDB waits for its compactions) before the next starts, so each delta is one store's.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { processWriteBytes } from './cold-read.js';
import { POLICIES, type LayoutParams, type PolicyName } from './layout-policies.js';
import type { PeerStore } from './peer-stores.js';
import { PolicyReplayer } from './policy-replayer.js';
import type { Trace } from './trace.js';

/** Logical bytes of a trace: UTF-8 text, keywords and provenance of every put and update. Deletes add nothing. */
export function traceLogicalBytes(trace: Trace): number {
  let n = 0;
  for (const ev of trace.events) {
    if (ev.kind !== 'write') continue;
    for (const o of ev.ops) {
      if (o.op === 'delete') continue;
      n += Buffer.byteLength(o.text, 'utf8');
      for (const k of o.keywords) n += Buffer.byteLength(k, 'utf8');
      for (const p of o.provenance) n += Buffer.byteLength(p, 'utf8');
    }
  }
  return n;
}

export interface DeviceWrites {
  readonly bytesWritten: number;
  readonly writeAmp: number | null;
}

/**
 * Replays `trace` into a fresh store per policy and per peer (created by `openPeer` under `dir`), one store at a
 * time, and returns each one's write_bytes delta. Policies replay requests as in the comparison (so relocation and
 * GC write what they write there); peers only take the writes (their reads write nothing).
 * Returns an empty map where /proc/self/io cannot be read.
 */
export async function measureDeviceWrites(
  trace: Trace,
  policies: readonly PolicyName[],
  peers: readonly { readonly name: string; readonly open: (dir: string) => Promise<PeerStore> }[],
  params: LayoutParams,
  dir: string,
  writeBufferSize: number,
  onProgress?: (done: number, total: number) => void,
): Promise<Map<string, DeviceWrites>> {
  const out = new Map<string, DeviceWrites>();
  if (processWriteBytes() === null) return out;
  const logical = traceLogicalBytes(trace);
  const total = policies.length + peers.length;
  let done = 0;
  const measure = async (name: string, run: () => Promise<void>): Promise<void> => {
    const before = processWriteBytes()!;
    await run();
    const bytes = processWriteBytes()! - before;
    out.set(name, { bytesWritten: bytes, writeAmp: logical === 0 ? null : bytes / logical });
    onProgress?.(++done, total);
  };
  for (const name of policies) {
    const path = join(dir, name);
    await mkdir(path, { recursive: true });
    await measure(name, async () => {
      const r = await PolicyReplayer.open(name, POLICIES[name], params, { kind: 'disk', path, writeBufferSize });
      try {
        for (const ev of trace.events) {
          if (ev.kind === 'write') await r.write(ev);
          else if (ev.recall.length === 0) await r.skip();
          else await r.afterRequest(ev.user, await r.read(ev.user, ev.recall));
        }
        await r.finish();
      } finally {
        await r.close();
      }
    });
  }
  for (const p of peers) {
    const path = join(dir, p.name);
    await mkdir(path, { recursive: true });
    await measure(p.name, async () => {
      const store = await p.open(path);
      try {
        for (const ev of trace.events) if (ev.kind === 'write') await store.write(ev);
      } finally {
        await store.close();
      }
    });
  }
  return out;
}

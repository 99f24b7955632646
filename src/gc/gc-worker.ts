// Piscina worker entry for GC: the CPU side of a GC pass (verify, decompress, parse, re-encode,
// compress). It has no database handle; see gc-protocol.ts.
import { decodeFrame, encodeFrame } from '../block/frame-codec.js';
import { decodeChunkRecord } from '../record/chunk-record.js';
import type { ExtractResult, GcTask, EncodeBlocksResult } from './gc-protocol.js';

export default async function gcWorker(task: GcTask): Promise<ExtractResult | EncodeBlocksResult> {
  if (task.kind === 'extract') {
    const records: ExtractResult['records'] = [];
    const damaged: ExtractResult['damaged'] = [];
    for (const { key, value } of task.frames) {
      try {
        const f = await decodeFrame(value, `block frame ${key}`);
        const recs = f.records.map((bytes, slot) => {
          const r = decodeChunkRecord(bytes, `block frame ${key} slot ${slot}`);
          return { blockId: f.blockId, frame: f.frameNo, slot, sessionId: r.sessionId, chunkId: r.chunkId, version: r.version, bytes };
        });
        records.push(...recs);
      } catch (err) {
        damaged.push({ key, message: err instanceof Error ? err.message : String(err) });
      }
    }
    return { records, damaged };
  }
  const frames: EncodeBlocksResult['frames'] = [];
  for (const b of task.blocks) {
    const f = await encodeFrame(b.blockId, 0, b.userId, b.records, task.zstdLevel);
    frames.push({ blockId: b.blockId, value: f.value, rawBytes: f.rawBytes });
  }
  return { frames };
}

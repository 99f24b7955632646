import * as flatbuffers from 'flatbuffers';
import { scratchBuilder } from './scratch-builder.js';
import { undecodable } from './undecodable.js';
import { FORMAT_VERSION, ValueType, unwrapEnvelope, wrapEnvelope } from './envelope.js';
import { Accounting as FbAccounting } from './generated/akashic/fb/accounting.js';
import { ModelUsage as FbModelUsage } from './generated/akashic/fb/model-usage.js';
import type { ModelUsageRow } from './model-usage-rows.js';

/**
 * Exact, persistent byte and event counters. Written in the same batch as every change they describe,
 * so they survive restarts and crashes exactly. All byte counts are encoded ChunkRecord bytes unless named
 * otherwise (`storedBytes` is what the block frames occupy as values).
 */
export interface Accounting {
  /** Encoded bytes of every record a caller handed to the engine (first writes and content updates). */
  logicalBytesIngested: number;
  /** Encoded record bytes the engine wrote, counting every copy (append, relocation, GC, load). */
  engineBytesWritten: number;
  /** Encoded bytes of the live version of every live chunk. */
  liveBytes: number;
  /** Uncompressed record bytes held by non-released blocks, live or not. */
  storedRawBytes: number;
  /** Bytes of the frame values of non-released blocks, as stored (compressed, enveloped). */
  storedBytes: number;
  chunksWritten: number;
  relocations: number;
  relocatedChunks: number;
  gcRuns: number;
  gcMovedChunks: number;
  blocksCreated: number;
  blocksReleased: number;
  retrievals: number;
  retrievalBlocks: number;
  /** Superseded versions kept as history, and their encoded record bytes (uncompressed). */
  historyVersions: number;
  historyBytes: number;
  /**
   * Model calls charged to the user, per (usage kind, call kind), sorted (appended field; absent in records written
   * before it, which read as none). Immutable: a change replaces the array.
   */
  modelUsage: readonly ModelUsageRow[];
}

export const ACCOUNTING_FIELDS = [
  'logicalBytesIngested',
  'engineBytesWritten',
  'liveBytes',
  'storedRawBytes',
  'storedBytes',
  'chunksWritten',
  'relocations',
  'relocatedChunks',
  'gcRuns',
  'gcMovedChunks',
  'blocksCreated',
  'blocksReleased',
  'retrievals',
  'retrievalBlocks',
  'historyVersions',
  'historyBytes',
] as const satisfies readonly (keyof Accounting)[];

export function emptyAccounting(): Accounting {
  const a = { modelUsage: [] } as unknown as Record<(typeof ACCOUNTING_FIELDS)[number], number> & { modelUsage: readonly ModelUsageRow[] };
  for (const f of ACCOUNTING_FIELDS) a[f] = 0;
  return a;
}

export function encodeAccounting(a: Accounting): Buffer {
  const b = scratchBuilder();
  // A record without model usage is written as before the field existed (no vector).
  let usage = 0;
  if (a.modelUsage.length > 0) {
    const rows = a.modelUsage.map((r) => {
      // Shared: a kind repeats across a user's rows, and a call across kinds (the builder writes each string once).
      const kind = b.createSharedString(r.kind);
      const call = b.createSharedString(r.call);
      FbModelUsage.startModelUsage(b);
      FbModelUsage.addKind(b, kind);
      FbModelUsage.addCall(b, call);
      FbModelUsage.addCalls(b, BigInt(r.calls));
      FbModelUsage.addFailedCalls(b, BigInt(r.failedCalls));
      FbModelUsage.addPromptTokens(b, BigInt(r.promptTokens));
      FbModelUsage.addCompletionTokens(b, BigInt(r.completionTokens));
      FbModelUsage.addRetries(b, BigInt(r.retries));
      FbModelUsage.addLatencyUs(b, BigInt(r.latencyUs));
      return FbModelUsage.endModelUsage(b);
    });
    usage = FbAccounting.createModelUsageVector(b, rows);
  }
  FbAccounting.startAccounting(b);
  FbAccounting.addFormatVersion(b, FORMAT_VERSION);
  FbAccounting.addLogicalBytesIngested(b, BigInt(a.logicalBytesIngested));
  FbAccounting.addEngineBytesWritten(b, BigInt(a.engineBytesWritten));
  FbAccounting.addLiveBytes(b, BigInt(a.liveBytes));
  FbAccounting.addStoredRawBytes(b, BigInt(a.storedRawBytes));
  FbAccounting.addStoredBytes(b, BigInt(a.storedBytes));
  FbAccounting.addChunksWritten(b, BigInt(a.chunksWritten));
  FbAccounting.addRelocations(b, BigInt(a.relocations));
  FbAccounting.addRelocatedChunks(b, BigInt(a.relocatedChunks));
  FbAccounting.addGcRuns(b, BigInt(a.gcRuns));
  FbAccounting.addGcMovedChunks(b, BigInt(a.gcMovedChunks));
  FbAccounting.addBlocksCreated(b, BigInt(a.blocksCreated));
  FbAccounting.addBlocksReleased(b, BigInt(a.blocksReleased));
  FbAccounting.addRetrievals(b, BigInt(a.retrievals));
  FbAccounting.addRetrievalBlocks(b, BigInt(a.retrievalBlocks));
  FbAccounting.addHistoryVersions(b, BigInt(a.historyVersions));
  FbAccounting.addHistoryBytes(b, BigInt(a.historyBytes));
  if (usage !== 0) FbAccounting.addModelUsage(b, usage);
  b.finish(FbAccounting.endAccounting(b));
  return wrapEnvelope(ValueType.Accounting, b.asUint8Array());
}

export function decodeAccounting(value: Uint8Array, what: string): Accounting {
  const body = unwrapEnvelope(ValueType.Accounting, value, what);
  try {
    const a = FbAccounting.getRootAsAccounting(new flatbuffers.ByteBuffer(body));
    return {
      logicalBytesIngested: Number(a.logicalBytesIngested()),
      engineBytesWritten: Number(a.engineBytesWritten()),
      liveBytes: Number(a.liveBytes()),
      storedRawBytes: Number(a.storedRawBytes()),
      storedBytes: Number(a.storedBytes()),
      chunksWritten: Number(a.chunksWritten()),
      relocations: Number(a.relocations()),
      relocatedChunks: Number(a.relocatedChunks()),
      gcRuns: Number(a.gcRuns()),
      gcMovedChunks: Number(a.gcMovedChunks()),
      blocksCreated: Number(a.blocksCreated()),
      blocksReleased: Number(a.blocksReleased()),
      retrievals: Number(a.retrievals()),
      retrievalBlocks: Number(a.retrievalBlocks()),
      historyVersions: Number(a.historyVersions()),
      historyBytes: Number(a.historyBytes()),
      modelUsage: decodeUsage(a),
    };
  } catch (err) {
    throw undecodable(what, 'accounting record', err);
  }
}

function decodeUsage(a: FbAccounting): ModelUsageRow[] {
  const rows: ModelUsageRow[] = [];
  for (let i = 0; i < a.modelUsageLength(); i++) {
    const r = a.modelUsage(i)!;
    rows.push({
      kind: r.kind() ?? '',
      call: r.call() ?? '',
      calls: Number(r.calls()),
      failedCalls: Number(r.failedCalls()),
      promptTokens: Number(r.promptTokens()),
      completionTokens: Number(r.completionTokens()),
      retries: Number(r.retries()),
      latencyUs: Number(r.latencyUs()),
    });
  }
  return rows;
}

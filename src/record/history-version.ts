import * as flatbuffers from 'flatbuffers';
import { corruption } from '../errors.js';
import { FORMAT_VERSION, ValueType, unwrapEnvelope, wrapEnvelope } from './envelope.js';
import { undecodable } from './undecodable.js';
import { Codec } from './generated/akashic/fb/codec.js';
import { HistoryCause } from './generated/akashic/fb/history-cause.js';
import { HistoryVersion as FbHistoryVersion } from './generated/akashic/fb/history-version.js';

/** Why a version stopped being current. */
export type SupersedeCause = 'update' | 'delete';

/**
 * One superseded version of a chunk as the `hist` family stores it: when it was current, what ended it, and its
 * record bytes (zstd-compressed unless `codec` is 'none').
 */
export interface HistoryVersion {
  readonly version: number;
  /** When this version became current (the record's `updatedAt`). */
  readonly validFrom: number;
  /** When the write that ended it committed. */
  readonly supersededAt: number;
  readonly cause: SupersedeCause;
  /** The chunk (same user) that replaced it, when reconciliation named one. */
  readonly supersededBy: { readonly sessionId: string; readonly chunkId: string } | null;
  /** Encoded ChunkRecord size (uncompressed). */
  readonly recordBytes: number;
  readonly codec: 'none' | 'zstd';
  /** The record bytes as stored (compressed with `codec`). */
  readonly record: Uint8Array;
  /** Why reconciliation ended it (what matched), when it said; absent otherwise (and in versions written before). */
  readonly reason?: string;
}

export function encodeHistoryVersion(h: HistoryVersion): Buffer {
  const b = new flatbuffers.Builder(64 + h.record.length);
  const bySession = h.supersededBy === null ? 0 : b.createString(h.supersededBy.sessionId);
  const byChunk = h.supersededBy === null ? 0 : b.createString(h.supersededBy.chunkId);
  const record = FbHistoryVersion.createRecordVector(b, h.record);
  const reason = h.reason === undefined ? 0 : b.createString(h.reason);
  FbHistoryVersion.startHistoryVersion(b);
  FbHistoryVersion.addFormatVersion(b, FORMAT_VERSION);
  FbHistoryVersion.addVersion(b, h.version);
  FbHistoryVersion.addValidFromMs(b, h.validFrom);
  FbHistoryVersion.addSupersededAtMs(b, h.supersededAt);
  FbHistoryVersion.addCause(b, h.cause === 'update' ? HistoryCause.Update : HistoryCause.Delete);
  if (bySession !== 0) FbHistoryVersion.addSupersededBySession(b, bySession);
  if (byChunk !== 0) FbHistoryVersion.addSupersededByChunk(b, byChunk);
  FbHistoryVersion.addRecordBytes(b, h.recordBytes);
  FbHistoryVersion.addCodec(b, h.codec === 'zstd' ? Codec.Zstd : Codec.None);
  FbHistoryVersion.addRecord(b, record);
  if (reason !== 0) FbHistoryVersion.addReason(b, reason);
  b.finish(FbHistoryVersion.endHistoryVersion(b));
  return wrapEnvelope(ValueType.HistoryVersion, b.asUint8Array());
}

export function decodeHistoryVersion(value: Uint8Array, what: string): HistoryVersion {
  const body = unwrapEnvelope(ValueType.HistoryVersion, value, what);
  try {
    const h = FbHistoryVersion.getRootAsHistoryVersion(new flatbuffers.ByteBuffer(body));
    const cause = h.cause();
    if (cause !== HistoryCause.Update && cause !== HistoryCause.Delete) throw corruption(`${what}: unknown history cause ${cause}`);
    const codec = h.codec();
    if (codec !== Codec.Zstd && codec !== Codec.None) throw corruption(`${what}: unknown codec ${codec}`);
    const bySession = h.supersededBySession();
    const byChunk = h.supersededByChunk();
    const rec = h.recordArray();
    const reason = h.reason();
    return {
      version: h.version(),
      validFrom: h.validFromMs(),
      supersededAt: h.supersededAtMs(),
      cause: cause === HistoryCause.Update ? 'update' : 'delete',
      supersededBy: bySession !== null && byChunk !== null ? { sessionId: bySession, chunkId: byChunk } : null,
      recordBytes: h.recordBytes(),
      codec: codec === Codec.Zstd ? 'zstd' : 'none',
      record: rec === null ? new Uint8Array(0) : Uint8Array.from(rec),
      ...(reason === null ? {} : { reason }),
    };
  } catch (err) {
    throw undecodable(what, 'history version', err);
  }
}

/** The value of a history age-index entry: an envelope around nothing (the key says everything). */
export const HISTORY_AGE_MARK: Buffer = wrapEnvelope(ValueType.HistoryAgeMark, new Uint8Array(0));

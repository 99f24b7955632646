import * as flatbuffers from 'flatbuffers';
import { scratchBuilder } from './scratch-builder.js';
import { corruption } from '../errors.js';
import { undecodable } from './undecodable.js';
import { FORMAT_VERSION, ValueType, unwrapEnvelope, wrapEnvelope } from './envelope.js';
import { BlockFrame as FbBlockFrame } from './generated/akashic/fb/block-frame.js';
import { Codec } from './generated/akashic/fb/codec.js';

/** A frame as stored: header fields plus the (compressed) payload. */
export interface BlockFrameValue {
  readonly blockId: number;
  readonly frameNo: number;
  readonly userId: string;
  readonly codec: 'none' | 'zstd';
  readonly rawBytes: number;
  readonly recordCount: number;
  readonly payload: Uint8Array;
}

export function encodeBlockFrame(f: BlockFrameValue): Buffer {
  const b = scratchBuilder();
  const user = b.createString(f.userId);
  const payload = FbBlockFrame.createPayloadVector(b, f.payload);
  FbBlockFrame.startBlockFrame(b);
  FbBlockFrame.addFormatVersion(b, FORMAT_VERSION);
  FbBlockFrame.addBlockId(b, BigInt(f.blockId));
  FbBlockFrame.addFrameNo(b, f.frameNo);
  FbBlockFrame.addUserId(b, user);
  FbBlockFrame.addCodec(b, f.codec === 'zstd' ? Codec.Zstd : Codec.None);
  FbBlockFrame.addRawBytes(b, f.rawBytes);
  FbBlockFrame.addRecordCount(b, f.recordCount);
  FbBlockFrame.addPayload(b, payload);
  b.finish(FbBlockFrame.endBlockFrame(b));
  return wrapEnvelope(ValueType.BlockFrame, b.asUint8Array());
}

/** Verifies the envelope checksum and decodes the header; `payload` is a view into `value`. */
export function decodeBlockFrame(value: Uint8Array, what: string): BlockFrameValue {
  const body = unwrapEnvelope(ValueType.BlockFrame, value, what);
  try {
    const f = FbBlockFrame.getRootAsBlockFrame(new flatbuffers.ByteBuffer(body));
    const codec = f.codec();
    if (codec !== Codec.Zstd && codec !== Codec.None) throw corruption(`${what}: unknown codec ${codec}`);
    const payload = f.payloadArray();
    if (payload === null) throw corruption(`${what}: frame without payload`);
    return {
      blockId: Number(f.blockId()),
      frameNo: f.frameNo(),
      userId: f.userId() ?? '',
      codec: codec === Codec.Zstd ? 'zstd' : 'none',
      rawBytes: f.rawBytes(),
      recordCount: f.recordCount(),
      payload,
    };
  } catch (err) {
    throw undecodable(what, 'block frame', err);
  }
}

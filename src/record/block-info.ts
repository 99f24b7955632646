import * as flatbuffers from 'flatbuffers';
import { scratchBuilder } from './scratch-builder.js';
import { corruption } from '../errors.js';
import { undecodable } from './undecodable.js';
import { FORMAT_VERSION, ValueType, unwrapEnvelope, wrapEnvelope } from './envelope.js';
import { BlockInfo as FbBlockInfo } from './generated/akashic/fb/block-info.js';
import { BlockState as FbBlockState } from './generated/akashic/fb/block-state.js';
import { BlockOrigin as FbBlockOrigin } from './generated/akashic/fb/block-origin.js';

export type BlockState = 'open' | 'sealed' | 'released';
export type BlockOrigin = 'append' | 'relocation' | 'gc';
const STATES: readonly BlockState[] = ['open', 'sealed', 'released'];
// Index = the FlatBuffers enum value (frozen). Value 3 (`Load`) is reserved and never written: `load` restores
// through the ordinary write path, so its blocks are `append` blocks.
const ORIGINS: readonly BlockOrigin[] = ['append', 'relocation', 'gc'];

/** Per-block bookkeeping, kept beside the block's frames and updated in the same batch as they are. */
export interface BlockInfo {
  readonly blockId: number;
  readonly userId: string;
  /** The single session all records belong to, or '' when the block holds several sessions. */
  readonly sessionId: string;
  readonly state: BlockState;
  readonly origin: BlockOrigin;
  /** Records per frame; the block's slot count is their sum. */
  readonly frameSlots: readonly number[];
  /** Stored (compressed, enveloped) bytes per frame. */
  readonly frameBytes: readonly number[];
  readonly liveSlots: number;
  readonly liveBytes: number;
  readonly rawBytes: number;
  readonly storedBytes: number;
  readonly createdAt: number;
  readonly lastWriteAt: number;
  readonly sealedAt: number | null;
  readonly releasedAt: number | null;
}

export function totalSlots(info: BlockInfo): number {
  let n = 0;
  for (const s of info.frameSlots) n += s;
  return n;
}

/** φ(B): invalid slots over total slots (0 for an empty block). */
export function invalidRatio(info: BlockInfo): number {
  return slotInvalidRatio(totalSlots(info), info.liveSlots);
}

/** φ from a block's slot counts: `slots` in all, `liveSlots` of them live (0 for an empty block). */
export function slotInvalidRatio(slots: number, liveSlots: number): number {
  return slots === 0 ? 0 : (slots - liveSlots) / slots;
}

export function encodeBlockInfo(i: BlockInfo): Buffer {
  const b = scratchBuilder();
  const user = b.createString(i.userId);
  const session = b.createString(i.sessionId);
  const slots = FbBlockInfo.createFrameSlotsVector(b, [...i.frameSlots]);
  const bytes = FbBlockInfo.createFrameBytesVector(b, [...i.frameBytes]);
  FbBlockInfo.startBlockInfo(b);
  FbBlockInfo.addFormatVersion(b, FORMAT_VERSION);
  FbBlockInfo.addBlockId(b, BigInt(i.blockId));
  FbBlockInfo.addUserId(b, user);
  FbBlockInfo.addSessionId(b, session);
  FbBlockInfo.addState(b, STATES.indexOf(i.state) as FbBlockState);
  FbBlockInfo.addOrigin(b, ORIGINS.indexOf(i.origin) as FbBlockOrigin);
  FbBlockInfo.addFrameSlots(b, slots);
  FbBlockInfo.addFrameBytes(b, bytes);
  FbBlockInfo.addLiveSlots(b, i.liveSlots);
  FbBlockInfo.addLiveBytes(b, i.liveBytes);
  FbBlockInfo.addRawBytes(b, i.rawBytes);
  FbBlockInfo.addStoredBytes(b, i.storedBytes);
  FbBlockInfo.addCreatedAtMs(b, i.createdAt);
  FbBlockInfo.addLastWriteMs(b, i.lastWriteAt);
  if (i.sealedAt !== null) FbBlockInfo.addSealedAtMs(b, i.sealedAt);
  if (i.releasedAt !== null) FbBlockInfo.addReleasedAtMs(b, i.releasedAt);
  b.finish(FbBlockInfo.endBlockInfo(b));
  return wrapEnvelope(ValueType.BlockInfo, b.asUint8Array());
}

export function decodeBlockInfo(value: Uint8Array, what: string): BlockInfo {
  const body = unwrapEnvelope(ValueType.BlockInfo, value, what);
  try {
    const i = FbBlockInfo.getRootAsBlockInfo(new flatbuffers.ByteBuffer(body));
    const state = STATES[i.state()];
    const origin = ORIGINS[i.origin()];
    if (state === undefined || origin === undefined) throw corruption(`${what}: unknown block state or origin`);
    const frameSlots: number[] = [];
    for (let k = 0; k < i.frameSlotsLength(); k++) frameSlots.push(i.frameSlots(k) ?? 0);
    const frameBytes: number[] = [];
    for (let k = 0; k < i.frameBytesLength(); k++) frameBytes.push(i.frameBytes(k) ?? 0);
    return {
      blockId: Number(i.blockId()),
      userId: i.userId() ?? '',
      sessionId: i.sessionId() ?? '',
      state,
      origin,
      frameSlots,
      frameBytes,
      liveSlots: i.liveSlots(),
      liveBytes: i.liveBytes(),
      rawBytes: i.rawBytes(),
      storedBytes: i.storedBytes(),
      createdAt: i.createdAtMs(),
      lastWriteAt: i.lastWriteMs(),
      sealedAt: state === 'open' ? null : i.sealedAtMs(),
      releasedAt: state === 'released' ? i.releasedAtMs() : null,
    };
  } catch (err) {
    throw undecodable(what, 'block info', err);
  }
}

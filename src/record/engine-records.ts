import * as flatbuffers from 'flatbuffers';
import { FORMAT_VERSION, ValueType, unwrapEnvelope, wrapEnvelope } from './envelope.js';
import { undecodable } from './undecodable.js';
import { AllocatorState } from './generated/akashic/fb/allocator-state.js';
import { OpenBlockRef } from './generated/akashic/fb/open-block-ref.js';
import { CoAccess } from './generated/akashic/fb/co-access.js';
import { EngineMeta as FbEngineMeta } from './generated/akashic/fb/engine-meta.js';
import { ActiveTurn as FbActiveTurn } from './generated/akashic/fb/active-turn.js';

// Small engine-state records. Each is enveloped (checksum + version), like every stored value.

function guard<T>(what: string, kind: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw undecodable(what, kind, err);
  }
}

export function encodeAllocator(nextBlockId: number): Buffer {
  const b = new flatbuffers.Builder(32);
  b.finish(AllocatorState.createAllocatorState(b, FORMAT_VERSION, BigInt(nextBlockId)));
  return wrapEnvelope(ValueType.AllocatorState, b.asUint8Array());
}

export function decodeAllocator(value: Uint8Array, what: string): number {
  const body = unwrapEnvelope(ValueType.AllocatorState, value, what);
  return guard(what, 'allocator state', () =>
    Number(AllocatorState.getRootAsAllocatorState(new flatbuffers.ByteBuffer(body)).nextBlockId()),
  );
}

export function encodeOpenBlockRef(blockId: number): Buffer {
  const b = new flatbuffers.Builder(32);
  b.finish(OpenBlockRef.createOpenBlockRef(b, FORMAT_VERSION, BigInt(blockId)));
  return wrapEnvelope(ValueType.OpenBlockRef, b.asUint8Array());
}

export function decodeOpenBlockRef(value: Uint8Array, what: string): number {
  const body = unwrapEnvelope(ValueType.OpenBlockRef, value, what);
  return guard(what, 'open block ref', () =>
    Number(OpenBlockRef.getRootAsOpenBlockRef(new flatbuffers.ByteBuffer(body)).blockId()),
  );
}

export interface CoAccessValue {
  readonly count: number;
  readonly lastAt: number;
}

export function encodeCoAccess(v: CoAccessValue): Buffer {
  const b = new flatbuffers.Builder(32);
  b.finish(CoAccess.createCoAccess(b, FORMAT_VERSION, v.count, v.lastAt));
  return wrapEnvelope(ValueType.CoAccess, b.asUint8Array());
}

export function decodeCoAccess(value: Uint8Array, what: string): CoAccessValue {
  const body = unwrapEnvelope(ValueType.CoAccess, value, what);
  return guard(what, 'co-access record', () => {
    const c = CoAccess.getRootAsCoAccess(new flatbuffers.ByteBuffer(body));
    return { count: c.count(), lastAt: c.lastMs() };
  });
}

/** Engine-wide settings fixed when the database is created. */
export interface EngineMeta {
  readonly createdAt: number;
  readonly engineVersion: string;
  readonly blockCapacity: number;
  readonly blockMaxBytes: number;
  readonly crossSessionBlocks: boolean;
}

export function encodeEngineMeta(m: EngineMeta): Buffer {
  const b = new flatbuffers.Builder(64);
  const v = b.createString(m.engineVersion);
  b.finish(
    FbEngineMeta.createEngineMeta(b, FORMAT_VERSION, m.createdAt, v, m.blockCapacity, m.blockMaxBytes, m.crossSessionBlocks),
  );
  return wrapEnvelope(ValueType.EngineMeta, b.asUint8Array());
}

export function decodeEngineMeta(value: Uint8Array, what: string): EngineMeta {
  const body = unwrapEnvelope(ValueType.EngineMeta, value, what);
  return guard(what, 'engine meta', () => {
    const m = FbEngineMeta.getRootAsEngineMeta(new flatbuffers.ByteBuffer(body));
    return {
      createdAt: m.createdAtMs(),
      engineVersion: m.engineVersion() ?? '',
      blockCapacity: m.blockCapacity(),
      blockMaxBytes: m.blockMaxBytes(),
      crossSessionBlocks: m.crossSessionBlocks(),
    };
  });
}

/** One turn of an active chunk (MemAttention layer). */
export interface ActiveTurnValue {
  readonly turnId: string;
  readonly role: string;
  readonly text: string;
  readonly at: number;
  readonly tokenCount: number;
  /** The agent the turn belongs to; the chunk compacted from it carries it. */
  readonly agentId?: string;
  /** The run the turn belongs to. */
  readonly runId?: string;
}

export function encodeActiveTurn(t: ActiveTurnValue): Buffer {
  const b = new flatbuffers.Builder(64 + t.text.length * 2);
  const id = b.createString(t.turnId);
  const role = b.createString(t.role);
  const text = b.createString(t.text);
  const agent = t.agentId === undefined ? 0 : b.createString(t.agentId);
  const run = t.runId === undefined ? 0 : b.createString(t.runId);
  b.finish(FbActiveTurn.createActiveTurn(b, FORMAT_VERSION, id, role, text, t.at, t.tokenCount, agent, run));
  return wrapEnvelope(ValueType.ActiveTurn, b.asUint8Array());
}

export function decodeActiveTurn(value: Uint8Array, what: string): ActiveTurnValue {
  const body = unwrapEnvelope(ValueType.ActiveTurn, value, what);
  return guard(what, 'active turn', () => {
    const t = FbActiveTurn.getRootAsActiveTurn(new flatbuffers.ByteBuffer(body));
    const agentId = t.agentId();
    const runId = t.runId();
    return {
      turnId: t.turnId() ?? '',
      role: t.role() ?? '',
      text: t.text() ?? '',
      at: t.atMs(),
      tokenCount: t.tokenCount(),
      ...(agentId === null ? {} : { agentId }),
      ...(runId === null ? {} : { runId }),
    };
  });
}

/** The value of an expiry index entry: an envelope around nothing (the key says everything). */
export function encodeExpiryMark(): Buffer {
  return wrapEnvelope(ValueType.ExpiryMark, new Uint8Array(0));
}

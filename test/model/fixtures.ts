/** Tiny builders for model inputs, shared by the model tests. */
import type { ChunkBodyView, ChunkMetaView, CoAccessView, ModelTurn } from '../../src/model/memory-model.js';
import { pairKey } from '../../src/model/association.js';

export function meta(id: string, keywords: readonly string[], createdAt = 0): ChunkMetaView {
  return { id, sessionId: 's1', createdAt, tokenCount: 100, keywords };
}

export function body(id: string, text: string, keywords: readonly string[], createdAt = 0): ChunkBodyView {
  return { ...meta(id, keywords, createdAt), text };
}

export function turn(turnId: string, role: string, text: string, at = Date.UTC(2024, 4, 1, 10, 0)): ModelTurn {
  return { turnId, role, text, at };
}

export const NO_CO_ACCESS: CoAccessView = { accesses: new Map(), pairs: new Map() };

/** Co-access statistics from per-chunk access counts and `[a, b, count]` pair counts. */
export function coAccess(
  accesses: Readonly<Record<string, number>>,
  pairs: ReadonlyArray<readonly [string, string, number]>,
): CoAccessView {
  return {
    accesses: new Map(Object.entries(accesses)),
    pairs: new Map(pairs.map(([a, b, n]) => [pairKey(a, b), n])),
  };
}

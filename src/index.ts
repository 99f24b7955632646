// Public entry point of `akashic`. Everything exported here is the supported API; the rest is @internal.
// Benchmarks, evaluation, replay and workload generators are not part of it: they live behind `akashic/lab`.
export { AkashicError, isAkashicError, type AkashicErrorCode } from './errors.js';
export * from './api/index.js';
export { AkashicStore } from './engine/akashic-store.js';
export type { ChunkRecord, ChunkKind, FullChunkRef } from './record/chunk-record.js';
export type { RecalledChunk } from './memattention/recall.js';
export type { BlockInfo, BlockState, BlockOrigin } from './record/block-info.js';
export type { DirEntry, SlotRef } from './record/dir-entry.js';
export { DefaultAffinityModel } from './gc/default-affinity.js';
export { FORMAT_VERSION } from './record/envelope.js';
export * from './memattention/index.js';
export * from './model/index.js';
export { salvage, type SalvageOptions, type SalvageReport } from './engine/salvage.js';
export { reportModelUsage } from './util/model-usage.js';
export { instrumentOpenTelemetry, type OpenTelemetryHandle, type OpenTelemetryOptions } from './telemetry/open-telemetry.js';

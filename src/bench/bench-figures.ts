/**
 * The result shapes of `akashic bench`. The seven fields every entry carries (`blocksPerRequest`,
 * `blocksPerRequestP95`, `lowerBound`, `p95ColdMs`, `bytesReadPerRequest`, `spaceAmp`, `writeAmp`) and the two
 * top-level maps (`policies`, `peers`) are a stable schema (issue 5): scripts compare runs by them. Other fields
 * may be added; none of these may be renamed.
 */
import type { PolicyName } from './layout-policies.js';
import type { PeerName } from './peer-stores.js';

/** The stable core of every entry; null where a figure is undefined for the entry or was not measured. */
export interface CoreFigures {
  /** Mean distinct blocks a request's getMany touched, measured online before any relocation it triggered. */
  readonly blocksPerRequest: number | null;
  readonly blocksPerRequestP95: number | null;
  /** Mean over requests of ceil(live chunks ÷ block capacity): the fewest blocks that could hold each set. */
  readonly lowerBound: number | null;
  /** p95 of the cold-read latency of the sampled requests (ms). */
  readonly p95ColdMs: number | null;
  /** Mean /proc/self/io read_bytes per sampled cold request. */
  readonly bytesReadPerRequest: number | null;
  /** storedRawBytes ÷ liveBytes at the end of the trace (StoreStats.spaceAmplification). */
  readonly spaceAmp: number | null;
  /** engineBytesWritten ÷ logicalBytesIngested (StoreStats.writeAmplification). */
  readonly writeAmp: number | null;
}

/** Blocks figures of the replay driven by the oracle sets. */
export interface OracleFigures {
  readonly requests: number;
  readonly blocksPerRequest: number | null;
  readonly blocksPerRequestP95: number | null;
  readonly lowerBound: number | null;
  readonly spaceAmp: number | null;
  readonly writeAmp: number | null;
}

export interface PolicyFigures extends CoreFigures {
  /** Requests (non-empty recall sets) replayed. */
  readonly requests: number;
  readonly p50ColdMs: number | null;
  readonly coldSamples: number;
  /** Median of the sampled requests' read_bytes. */
  readonly bytesReadPerRequestP50: number | null;
  /** Mean stored (compressed) frame bytes getMany fetched per request, over all requests (engine cache off). */
  readonly engineBytesReadPerRequest: number | null;
  /** blocksPerRequest ÷ append-only's. */
  readonly blocksRatioToAppendOnly: number | null;
  readonly relocatedChunks: number;
  readonly gcMovedChunks: number;
  readonly gcPasses: number;
  readonly blocks: number;
  /** Live chunks ÷ blocks holding data at the end: how full the layout's blocks are. */
  readonly chunksPerBlock: number | null;
  /** Size of the database directory at the end (LevelDB files; compressed). */
  readonly diskBytes: number | null;
  readonly oracle: OracleFigures;
}

export interface PeerFigures extends CoreFigures {
  readonly available: boolean;
  /** Why the peer was not measured (available: false). */
  readonly reason?: string;
  readonly p50ColdMs: number | null;
  readonly coldSamples: number;
  readonly bytesReadPerRequestP50: number | null;
  readonly diskBytes: number | null;
  /** This peer's figure ÷ akashic's, on the same sampled requests. */
  readonly coldP50RatioToAkashic: number | null;
  readonly coldP95RatioToAkashic: number | null;
  readonly bytesReadRatioToAkashic: number | null;
}

/** One point of a sweep. */
export interface SweepPoint {
  readonly value: number;
  readonly policy: PolicyName;
  readonly blocksPerRequest: number | null;
  readonly blocksPerRequestP95: number | null;
  readonly lowerBound: number | null;
  readonly spaceAmp: number | null;
  readonly writeAmp: number | null;
  readonly relocatedChunks: number;
  readonly gcMovedChunks: number;
  readonly chunksPerBlock: number | null;
}

export interface Sweeps {
  /** GC threshold θ (akashic): space vs write amplification. */
  readonly theta: readonly SweepPoint[];
  /** τ_assoc (akashic): blocks per request vs write amplification. */
  readonly tauAssoc: readonly SweepPoint[];
  /** Block capacity: append-only and akashic at each capacity. */
  readonly blockCapacity: readonly SweepPoint[];
}

export interface BenchMeta {
  readonly command: string;
  readonly source: string;
  readonly users: number;
  readonly chunks: number;
  readonly requests: number;
  /** Requests whose recall set was empty (the model matched nothing): not replayed. */
  readonly emptyRecallRequests: number;
  readonly oracleRequests: number;
  /** Share of questions with evidence whose every evidence turn was in the top-p recall. */
  readonly evidenceRecall: number | null;
  readonly meanRecallSetSize: number | null;
  readonly meanOracleSetSize: number | null;
  readonly pageCacheDropped: boolean;
  readonly pageCacheNote: string;
  readonly coldSamples: number;
  readonly params: Readonly<Record<string, number>>;
  readonly machine: { readonly nproc: number; readonly memGiB: number; readonly node: string; readonly platform: string; readonly readAheadKb: string | null };
  readonly timingsMs: Readonly<Record<string, number>>;
  readonly startedAt: string;
}

export interface BenchResult {
  readonly meta: BenchMeta;
  readonly policies: Readonly<Record<PolicyName, PolicyFigures>>;
  readonly peers: Readonly<Record<PeerName, PeerFigures>>;
  readonly sweeps?: Sweeps;
}

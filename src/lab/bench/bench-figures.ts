/**
 * The result shapes of `akashic bench`. The seven fields every entry carries (`blocksPerRequest`,
 * `blocksPerRequestP95`, `lowerBound`, `p95ColdMs`, `bytesReadPerRequest`, `spaceAmp`, `writeAmp`) and the two
 * top-level maps (`policies`, `peers`) are a stable schema: scripts compare runs by them. Other fields
 * may be added; none of these may be renamed.
 */
import type { TraceRecurrence } from './trace-recurrence.js';
import type { PolicyName } from './layout-policies.js';
import type { PeerName } from './peer-stores.js';
import type { TraceKind } from './trace.js';
import type { SelectLabel } from '../../model/select-variants.js';

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

/** Cold recall end to end and device-level write amplification (figures every entry carries, null where undefined). */
export interface EndToEndFigures {
  /**
   * Median cold latency of the whole recall of the sampled requests: candidate gathering, SELECT and the fetch (for
   * sqlite-fts5: the FTS5 search and the rows), page cache dropped first. null for stores that cannot search.
   */
  readonly p50ColdRecallMs: number | null;
  readonly p95ColdRecallMs: number | null;
  /** Mean /proc/self/io read_bytes of those cold recalls. */
  readonly bytesReadPerRecall: number | null;
  /**
   * Bytes the process wrote to storage while this store alone replayed the whole trace (/proc/self/io write_bytes:
   * LevelDB logs, tables and compactions, SQLite pages and journal) ÷ the trace's logical bytes (meta.logicalBytes).
   * null when not measured.
   */
  readonly deviceWriteAmp: number | null;
  readonly deviceBytesWritten: number | null;
}

export interface PolicyFigures extends CoreFigures, EndToEndFigures {
  /** false when the run left this policy out (`--policies`); its figures are then empty. */
  readonly available: boolean;
  /** Requests (non-empty recall sets) replayed. */
  readonly requests: number;
  /**
   * Median cold fetch of the sampled requests' chunks, by slot (`getManyBySlot`, as a recall fetches: the locations
   * come with its candidates and are read warm before the cache drop); `p95ColdMs` and `bytesReadPerRequest` too.
   */
  readonly p50ColdMs: number | null;
  /** The same fetch by ref (`getMany`: a directory read, then the blocks), cold. */
  readonly p50ColdFetchByRefMs: number | null;
  readonly bytesReadPerFetchByRef: number | null;
  readonly coldSamples: number;
  /** Median of the sampled requests' read_bytes. */
  readonly bytesReadPerRequestP50: number | null;
  /** Mean stored (compressed) frame bytes getMany fetched per request, over all requests (engine cache off). */
  readonly engineBytesReadPerRequest: number | null;
  /** blocksPerRequest ÷ append-only's. */
  readonly blocksRatioToAppendOnly: number | null;
  /**
   * The part of writeAmp that is superseded versions kept in history (StoreStats.historyBytes ÷
   * logicalBytesIngested): what the trace's updates and deletes write whatever the placement.
   */
  readonly historyWriteAmp: number | null;
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

export interface PeerFigures extends CoreFigures, EndToEndFigures {
  readonly available: boolean;
  /** Why the peer was not measured (available: false). */
  readonly reason?: string;
  readonly p50ColdMs: number | null;
  readonly coldSamples: number;
  readonly bytesReadPerRequestP50: number | null;
  readonly diskBytes: number | null;
  /** This peer's figure ÷ akashic's, on the same sampled requests. */
  readonly coldP50RatioToAkashic: number | null;
  /** p50ColdRecallMs ÷ akashic's. */
  readonly coldRecallP50RatioToAkashic: number | null;
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

/** The device the stores lived on (the one under the work directory), for every cold figure. */
export interface DiskInfo {
  readonly workDir: string;
  /** Block device name under the work directory (e.g. `vda`, `loop0`), or null when it cannot be found. */
  readonly device: string | null;
  /** Its `/sys/block/<dev>/queue/read_ahead_kb`. */
  readonly readAheadKb: number | null;
  /** For a loop device: the backing file and the device (and read-ahead) it lives on. */
  readonly backingFile?: string;
  readonly backingDevice?: string | null;
  readonly backingReadAheadKb?: number | null;
  /** One line for reports. */
  readonly summary: string;
}

export interface BenchMeta {
  readonly command: string;
  /** Which requests the trace holds (questions asked once, or a recall at every user turn). */
  readonly trace: TraceKind;
  readonly source: string;
  /**
   * The SELECT the trace was recorded with: `lexical` (the engine default), `hybrid` (an embedder fused with BM25),
   * `dense` (the embedder alone, an experiment); the embedder's id; what it means for the figures.
   */
  readonly select: SelectLabel & { readonly note: string };
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
  readonly disk: DiskInfo | null;
  /**
   * What placement could win on this trace at the comparison's capacity: blocks per request in write order and
   * under an offline co-access clustering that knows every request in advance (offline-layout-bound.ts).
   */
  readonly offlineBound: { readonly appendOrder: number | null; readonly coAccessClustering: number | null };
  /** How much the trace's recall sets recur (trace-recurrence.ts): whether a co-access layout can pay on it at all. */
  readonly recurrence: TraceRecurrence;
  /** Logical bytes the trace ingests (UTF-8 text, keywords and provenance of every put and update): the denominator of deviceWriteAmp. */
  readonly logicalBytes: number;
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

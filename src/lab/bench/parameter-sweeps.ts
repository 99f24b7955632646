/**
 * Sweeps of the layout parameters (the Akashic paper §5.5, Fig. 12): each point replays the recall stream of the trace into
 * an in-memory store (blocks and amplification do not depend on the backend; nothing here is timed).
 */
import type { StoreStats } from '../../api/reports.js';
import type { SweepPoint, Sweeps } from './bench-figures.js';
import { POLICIES, type LayoutParams, type PolicyName } from './layout-policies.js';
import { PolicyReplayer } from './policy-replayer.js';
import { mean, quantile } from './summary-stats.js';
import type { RequestSet, Trace } from './trace.js';

/** Replays `trace` under one policy in memory; returns its blocks figures and final stats. */
export async function replayInMemory(
  trace: Trace,
  policy: PolicyName,
  params: LayoutParams,
  set: RequestSet = 'recall',
): Promise<{ blocks: number[]; bounds: number[]; stats: StoreStats }> {
  const r = await PolicyReplayer.open(policy, POLICIES[policy], params, { kind: 'memory' });
  const blocks: number[] = [];
  const bounds: number[] = [];
  try {
    for (const ev of trace.events) {
      if (ev.kind === 'write') {
        await r.write(ev);
        continue;
      }
      const refs = set === 'recall' ? ev.recall : ev.oracle;
      if (refs.length === 0) {
        await r.skip();
        continue;
      }
      const cost = await r.read(ev.user, refs);
      blocks.push(cost.blocksTouched);
      bounds.push(cost.lowerBound);
      await r.afterRequest(ev.user, cost);
    }
    return { blocks, bounds, stats: await r.finish() };
  } finally {
    await r.close();
  }
}

async function point(trace: Trace, policy: PolicyName, params: LayoutParams, value: number): Promise<SweepPoint> {
  const { blocks, bounds, stats } = await replayInMemory(trace, policy, params);
  return {
    value,
    policy,
    blocksPerRequest: mean(blocks),
    blocksPerRequestP95: quantile(blocks, 0.95),
    lowerBound: mean(bounds),
    spaceAmp: stats.spaceAmplification,
    writeAmp: stats.writeAmplification,
    relocatedChunks: stats.relocatedChunks,
    gcMovedChunks: stats.gcMovedChunks,
    chunksPerBlock: stats.blocks === 0 ? null : stats.chunks / stats.blocks,
  };
}

export interface SweepValues {
  readonly theta: readonly number[];
  readonly tauAssoc: readonly number[];
  readonly blockCapacity: readonly number[];
}

export const DEFAULT_SWEEP_VALUES: SweepValues = {
  theta: [0.1, 0.2, 0.3, 0.5, 0.75],
  tauAssoc: [0.3, 0.5, 0.7, 0.9, 1],
  blockCapacity: [2, 4, 8, 16, 32],
};

export const FAST_SWEEP_VALUES: SweepValues = { theta: [0.3, 0.75], tauAssoc: [0.5, 0.9], blockCapacity: [4, 16] };

export async function runSweeps(trace: Trace, base: LayoutParams, values: SweepValues, onPoint?: (label: string) => void): Promise<Sweeps> {
  const theta: SweepPoint[] = [];
  for (const v of values.theta) {
    theta.push(await point(trace, 'akashic', { ...base, gcThreshold: v }, v));
    onPoint?.(`θ=${v}`);
  }
  const tauAssoc: SweepPoint[] = [];
  for (const v of values.tauAssoc) {
    tauAssoc.push(await point(trace, 'akashic', { ...base, tauAssoc: v }, v));
    onPoint?.(`τ=${v}`);
  }
  const blockCapacity: SweepPoint[] = [];
  for (const v of values.blockCapacity) {
    for (const p of ['append-only', 'akashic'] as const) blockCapacity.push(await point(trace, p, { ...base, blockCapacity: v }, v));
    onPoint?.(`capacity=${v}`);
  }
  return { theta, tauAssoc, blockCapacity };
}

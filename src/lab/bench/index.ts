/**
 * `akashic bench`: locality and storage efficiency of the layout policies of the Akashic paper §5.4 against peer stores,
 * on one recorded trace. See docs/benchmarks.md.
 */
export type { BenchMeta, BenchResult, CoreFigures, OracleFigures, PeerFigures, PolicyFigures, SweepPoint, Sweeps } from './bench-figures.js';
export { POLICIES, POLICY_NAMES } from './layout-policies.js';
export type { LayoutParams, PolicyName, PolicySpec } from './layout-policies.js';
export { PEER_NAMES } from './peer-stores.js';
export type { PeerName } from './peer-stores.js';
export { benchMarkdown } from './report-markdown.js';
export { benchSvg } from './report-svg.js';
export { DEFAULT_LAYOUT_PARAMS, runBench } from './run-bench.js';
export type { BenchOptions } from './run-bench.js';
export { recordTrace } from './trace.js';
export type { Trace, TraceEvent, TraceRequest, TraceWrite } from './trace.js';

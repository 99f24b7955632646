/**
 * `akashic/lab`: the measuring side of the package, kept apart from the product's entry point. Workload generators
 * (LoCoMo loader, seeded synthetic conversations), conversation replay and the demo, the recall and answer-quality
 * evaluations, and the layout benchmarks. The `akashic` command uses it; a program that only stores and recalls
 * memory never loads it.
 */
export * from './workload/index.js';
export * from './bench/index.js';
export * from './eval/index.js';
export { replayConversation } from './harness/replay.js';
export { runDemo } from './harness/demo.js';
export type { AskedQuestion, ReplayOptions } from './harness/replay.js';
export type { DemoOptions, DemoReport, RetrievalFigures } from './harness/demo.js';
export { runScale, scaleMarkdown } from './bench/scale-run.js';
export { historySweepMarkdown, runHistorySweep } from './bench/history-sweep.js';
export type { TraceKind } from './bench/trace.js';
export { runServeBench, serveBenchMarkdown, type ServeBenchOptions, type ServeBenchReport, type ServeBenchRow } from './bench/serve-bench.js';

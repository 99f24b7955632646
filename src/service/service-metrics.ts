/**
 * The service's Prometheus metrics (prom-client, one registry per service so two services in a process do not
 * mix): per-route latency, errors by code, recalls and the blocks each touched, compactions, and the store's own
 * figures (GC passes, relocations, blocks, chunks) read from `stats()` at each scrape.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AkashicStore } from '../engine/akashic-store.js';
import type { StoreStats } from '../api/reports.js';

/** Store figures exported as gauges: metric suffix → StoreStats field. */
const STATS_GAUGES: readonly (readonly [string, keyof StoreStats, string])[] = [
  ['users', 'users', 'Users with chunks.'],
  ['sessions', 'sessions', 'Sessions with chunks.'],
  ['chunks', 'chunks', 'Live chunks.'],
  ['deleted_chunks', 'deletedChunks', 'Tombstoned chunks.'],
  ['blocks', 'blocks', 'Blocks holding data.'],
  ['gc_runs', 'gcRuns', 'GC passes since the database was created.'],
  ['gc_moved_chunks', 'gcMovedChunks', 'Chunks GC moved since the database was created.'],
  ['relocations', 'relocations', 'Co-access relocations since the database was created.'],
  ['retrievals', 'retrievals', 'Retrievals since the database was created.'],
  ['blocks_per_retrieval', 'blocksPerRetrieval', 'Mean blocks touched per retrieval since the database was created.'],
  ['history_versions', 'historyVersions', 'Superseded versions kept as history.'],
  ['disk_bytes', 'diskBytes', 'Bytes of the database files on disk.'],
  ['write_amplification', 'writeAmplification', 'Engine bytes written per logical byte ingested.'],
  ['space_amplification', 'spaceAmplification', 'Stored bytes (history included) per live byte, uncompressed.'],
  ['conflicts_retried', 'conflictsRetried', 'Writes staged again since open because another process changed the same user first.'],
];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #latency: Histogram<'route' | 'method' | 'status'>;
  readonly #errors: Counter<'code'>;
  readonly #recalls: Counter;
  readonly #blocksTouched: Histogram;
  readonly #compactions: Counter;

  constructor(store: AkashicStore) {
    const registers = [this.registry];
    this.#latency = new Histogram({
      name: 'akashic_http_request_duration_seconds',
      help: 'Latency of service requests by route, method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers,
    });
    this.#errors = new Counter({ name: 'akashic_errors_total', help: 'Failed requests by error code.', labelNames: ['code'], registers });
    this.#recalls = new Counter({ name: 'akashic_recalls_total', help: 'Recalls served (REST and MCP).', registers });
    this.#blocksTouched = new Histogram({
      name: 'akashic_recall_blocks_touched',
      help: 'Distinct blocks read per recall.',
      buckets: [0, 1, 2, 3, 4, 6, 8, 12, 16, 32, 64],
      registers,
    });
    this.#compactions = new Counter({ name: 'akashic_compactions_total', help: 'Compactions run by appends and session ends.', registers });
    // One stats() read per scrape, shared by every store gauge of that scrape.
    let pending: Promise<StoreStats | null> | null = null;
    const read = (): Promise<StoreStats | null> => {
      pending ??= store
        .stats()
        .catch(() => null)
        .finally(() => setImmediate(() => (pending = null)));
      return pending;
    };
    for (const [suffix, field, help] of STATS_GAUGES) {
      new Gauge({
        name: `akashic_store_${suffix}`,
        help,
        registers,
        async collect() {
          const s = await read();
          const v = s?.[field];
          if (typeof v === 'number') this.set(v);
        },
      });
    }
    collectDefaultMetrics({ register: this.registry, prefix: 'akashic_process_' });
  }

  /** Records one finished request. `route` is the route's path template, never the raw URL. */
  request(route: string, method: string, status: number, seconds: number): void {
    this.#latency.observe({ route, method, status: String(status) }, seconds);
  }

  error(code: string): void {
    this.#errors.inc({ code });
  }

  recall(blocksTouched: number): void {
    this.#recalls.inc();
    this.#blocksTouched.observe(blocksTouched);
  }

  compactions(n: number): void {
    if (n > 0) this.#compactions.inc(n);
  }

  /** Counts what a library result says happened (a recall, compactions), whichever face called. */
  observe(result: unknown): void {
    if (result === null || typeof result !== 'object') return;
    const r = result as { blocksTouched?: unknown; relocation?: unknown; compacted?: unknown };
    if (r.relocation !== undefined && typeof r.blocksTouched === 'number') this.recall(r.blocksTouched);
    if (Array.isArray(r.compacted)) this.compactions(r.compacted.length);
    else if (r.compacted !== undefined && r.compacted !== null) this.compactions(1);
  }
}

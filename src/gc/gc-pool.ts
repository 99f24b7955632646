import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type { ExtractResult, ExtractTask, EncodeBlocksResult, EncodeBlocksTask } from './gc-protocol.js';

/**
 * The worker file is the compiled `gc-worker.js`. Next to this module when running from `dist/`; when running
 * from TypeScript sources (vitest), the compiled copy under `dist/` is used, so `npm run build` must have run.
 */
function workerPath(): string {
  const here = new URL('./gc-worker.js', import.meta.url);
  const local = fileURLToPath(here);
  if (existsSync(local)) return local;
  const fromSrc = fileURLToPath(new URL('../../dist/src/gc/gc-worker.js', import.meta.url));
  if (existsSync(fromSrc)) return fromSrc;
  throw new Error(`GC worker not found at ${local} or ${fromSrc}: run \`npm run build\``);
}

/**
 * A lazily started piscina pool running GC's CPU work. The piscina module itself is imported on the first task:
 * a process that never runs a GC pass (a short CLI call, a read-only tool) does not pay for loading it.
 */
export class GcPool {
  readonly #threads: number;
  #pool: Piscina | null = null;
  #starting: Promise<Piscina> | null = null;

  constructor(threads: number) {
    this.#threads = threads;
  }

  async #get(): Promise<Piscina> {
    if (this.#pool !== null) return this.#pool;
    this.#starting ??= this.#start();
    return this.#starting;
  }

  async #start(): Promise<Piscina> {
    const { Piscina } = await import('piscina');
    const pool = new Piscina({ filename: workerPath(), minThreads: 0, maxThreads: this.#threads, idleTimeout: 5000 });
    // A worker that dies outside a task emits 'error' on the pool; unheard, it would crash the process. The task
    // in flight rejects on its own (the GC pass fails and changes nothing), and the next task starts a new worker.
    pool.on('error', () => undefined);
    this.#pool = pool;
    return pool;
  }

  async extract(task: ExtractTask): Promise<ExtractResult> {
    return (await this.#get()).run(task) as Promise<ExtractResult>;
  }

  async encodeBlocks(task: EncodeBlocksTask): Promise<EncodeBlocksResult> {
    return (await this.#get()).run(task) as Promise<EncodeBlocksResult>;
  }

  async close(): Promise<void> {
    const starting = this.#starting;
    this.#starting = null;
    // A pool still starting is destroyed once started, so close never leaves a worker behind.
    const p = this.#pool ?? (starting === null ? null : await starting.catch(() => null));
    this.#pool = null;
    if (p !== null) await p.destroy();
  }
}

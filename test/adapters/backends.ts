/**
 * The two ways an adapter reaches the engine: embedded (the library objects themselves) and remote (an in-process
 * `akashic serve` on a loopback port over the same engine, reached through `akashic/client`). Adapter suites run
 * over both with `describe.each(BACKENDS)`.
 */
import type { AkashicStore as Engine, MemoryOptions } from '../../src/index.js';
import { AkashicMemory } from '../../src/index.js';
import { RemoteMemory, RemoteStore, type MemorySurface, type StoreSurface } from '../../src/client/index.js';
import { startService } from '../../src/service/index.js';

export interface Attached {
  readonly store: StoreSurface;
  readonly memory: MemorySurface;
  /** Waits for the memory's background compactions (`AkashicMemory.flush`). */
  flush(): Promise<void>;
  /** Detaches (closes the memory, or the service); the engine stays open for the caller to close. */
  close(): Promise<void>;
}

export interface Backend {
  readonly name: 'embedded' | 'remote';
  attach(engine: Engine, memoryOptions?: MemoryOptions): Promise<Attached>;
}

export const EMBEDDED: Backend = {
  name: 'embedded',
  async attach(engine, memoryOptions) {
    const memory = new AkashicMemory(engine, memoryOptions);
    return { store: engine, memory, flush: () => memory.flush(), close: () => memory.close() };
  },
};

export const REMOTE: Backend = {
  name: 'remote',
  async attach(engine, memoryOptions) {
    // The service's memory awaits each compaction, so a request's compaction has committed when its response
    // arrives (the wire has no flush); background write-back is tested on the library itself.
    const service = await startService({ store: engine, port: 0, memoryOptions: { writeBack: 'await', ...memoryOptions } });
    return { store: new RemoteStore({ baseUrl: service.url }), memory: new RemoteMemory({ baseUrl: service.url }), flush: async () => undefined, close: () => service.close() };
  },
};

export const BACKENDS: readonly Backend[] = [EMBEDDED, REMOTE];

/**
 * RemoteMemory: the `AkashicMemory` calls (`MemorySurface`) made over HTTP to `akashic serve`. Same signatures,
 * same results, same errors (`AkashicError` with the server's code). The memory's options are the server's.
 */
import type { ActiveTurn } from '../memattention/active-chunk.js';
import type { CompactionResult } from '../memattention/compactor.js';
import type { AppendResult, RecallInput, RecallResult, SessionRef, TurnInput } from '../memattention/memory.js';
import type { ChunkVersion, PurgeReport } from '../index.js';
import { MEMORY_ROUTES } from '../protocol/routes.js';
import type { MemorySurface } from '../protocol/surfaces.js';
import { appendFromWire, recordFromWire } from '../protocol/wire-codec.js';
import { HttpCaller, type RemoteOptions } from './http-caller.js';

/**
 * The memory of a remote Akashic service: what several processes (workers of one app, apps in other languages
 * through the same HTTP API) share.
 *
 * @example
 *   const memory = new RemoteMemory({ baseUrl: 'http://127.0.0.1:8787' });
 *   await memory.appendTurn({ user: 'alice', session: 's1', role: 'user', text: 'I moved to Berlin.' });
 *   await memory.endSession({ user: 'alice', session: 's1' });
 *   const { text } = await memory.recall({ user: 'alice', session: 's2', query: 'where do I live?', scope: 'user' });
 */
export class RemoteMemory implements MemorySurface {
  readonly #http: HttpCaller;

  /** @throws AkashicError AKASHIC_INVALID_ARGUMENT for a bad or unknown option. No request is made. */
  constructor(options: RemoteOptions) {
    this.#http = new HttpCaller(options, 'RemoteMemory');
  }

  async appendTurn(input: SessionRef & TurnInput): Promise<AppendResult & { readonly turnId: string }> {
    return appendFromWire(await this.#http.call<AppendResult & { turnId: string }>(MEMORY_ROUTES.appendTurn, input));
  }

  async completeRequest(
    input: SessionRef & { readonly turns: readonly TurnInput[]; readonly enableWriteback?: boolean; readonly agentId?: string; readonly runId?: string },
  ): Promise<AppendResult & { readonly writtenBack: boolean }> {
    return appendFromWire(await this.#http.call<AppendResult & { writtenBack: boolean }>(MEMORY_ROUTES.completeRequest, input));
  }

  async endSession(input: SessionRef): Promise<{ readonly compacted: readonly CompactionResult[] }> {
    return this.#http.call(MEMORY_ROUTES.endSession, input);
  }

  async endOtherSessions(input: SessionRef): Promise<{ readonly sessions: readonly string[]; readonly compacted: readonly CompactionResult[] }> {
    return this.#http.call(MEMORY_ROUTES.endOtherSessions, input);
  }

  async activeTurns(input: SessionRef): Promise<ActiveTurn[]> {
    return this.#http.call(MEMORY_ROUTES.activeTurns, input);
  }

  async recall(input: RecallInput): Promise<RecallResult> {
    const r = await this.#http.call<RecallResult>(MEMORY_ROUTES.recall, input);
    r.chunks.forEach(recordFromWire);
    return r;
  }

  async history(input: SessionRef & { readonly chunkId: string }): Promise<ChunkVersion[]> {
    const versions = await this.#http.call<ChunkVersion[]>(MEMORY_ROUTES.history, input);
    for (const v of versions) recordFromWire(v.record);
    return versions;
  }

  async purge(scope: { readonly user: string; readonly session?: string }): Promise<PurgeReport> {
    return this.#http.call(MEMORY_ROUTES.purge, scope);
  }

  /** Ends this client (later calls fail with AKASHIC_NOT_OPEN). The service keeps running. */
  async close(): Promise<void> {
    this.#http.close();
  }
}


/**
 * RemoteStore: the `AkashicStore` calls of `StoreSurface` (what the framework adapters and remote callers use),
 * made over HTTP to `akashic serve`. Same signatures, same results (payload bytes and embedding vectors restored
 * to their typed forms), same errors: an `AkashicError` with the code the server's library call threw.
 */
import type { ChunkRecord, ChunkRef, ChunkVersion, ListOptions, ListedChunk, MutationResult, PurgeReport, PutInput, ReadResult, StoreStats, WriteOp } from '../index.js';
import { STORE_ROUTES } from '../protocol/routes.js';
import type { StoreSurface } from '../protocol/surfaces.js';
import { listedFromWire, recordFromWire } from '../protocol/wire-codec.js';
import { HttpCaller, type RemoteOptions } from './http-caller.js';

/**
 * The store of a remote Akashic service.
 *
 * @example
 *   const store = new RemoteStore({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.AKASHIC_KEY });
 *   const { chunkId } = await store.put('alice', { sessionId: 's1', text: 'likes green tea' });
 *   const chunk = await store.get('alice', 's1', chunkId);
 */
export class RemoteStore implements StoreSurface {
  readonly #http: HttpCaller;

  /** @throws AkashicError AKASHIC_INVALID_ARGUMENT for a bad or unknown option. No request is made. */
  constructor(options: RemoteOptions) {
    this.#http = new HttpCaller(options, 'RemoteStore');
  }

  /** 'open' until `close()`. The service's own state shows in each call's errors (AKASHIC_NOT_OPEN while it stops). */
  get status(): 'open' | 'closed' {
    return this.#http.closed ? 'closed' : 'open';
  }

  async put(userId: string, input: PutInput): Promise<MutationResult> {
    return this.#http.call(STORE_ROUTES.put, { userId, chunk: input });
  }

  async write(userId: string, ops: readonly WriteOp[]): Promise<MutationResult[]> {
    return this.#http.call(STORE_ROUTES.write, { userId, ops });
  }

  async get(userId: string, sessionId: string, chunkId: string, opts: { asOf?: number } = {}): Promise<ChunkRecord | null> {
    return recordFromWire(await this.#http.call<ChunkRecord | null>(STORE_ROUTES.get, { ...opts, userId, sessionId, chunkId }));
  }

  async getMany(userId: string, refs: readonly ChunkRef[], opts: { asOf?: number } = {}): Promise<ReadResult> {
    const r = await this.#http.call<ReadResult>(STORE_ROUTES.getMany, { ...opts, userId, refs: refFields(refs) });
    r.chunks.forEach(recordFromWire);
    return r;
  }

  /** Streams the listing: entries arrive as the server scans, so a long listing is not held in memory. */
  async *list(userId: string, opts: ListOptions = {}): AsyncGenerator<ListedChunk> {
    for await (const line of this.#http.lines(STORE_ROUTES.list, { ...opts, userId })) yield listedFromWire(line as ListedChunk);
  }

  async history(userId: string, sessionId: string, chunkId: string): Promise<ChunkVersion[]> {
    const versions = await this.#http.call<ChunkVersion[]>(STORE_ROUTES.history, { userId, sessionId, chunkId });
    for (const v of versions) recordFromWire(v.record);
    return versions;
  }

  async sessions(userId: string): Promise<string[]> {
    return this.#http.call(STORE_ROUTES.sessions, { userId });
  }

  /** The users with chunks that this client's key is allowed (all of them without keys). */
  async users(): Promise<string[]> {
    return this.#http.call(STORE_ROUTES.users, {});
  }

  async purge(scope: { user: string; session?: string }): Promise<PurgeReport> {
    return this.#http.call(STORE_ROUTES.purge, scope);
  }

  /** Engine figures of the whole database; needs an admin key when the service has keys. */
  async stats(): Promise<StoreStats> {
    return this.#http.get(STORE_ROUTES.stats);
  }

  /** Ends this client (later calls fail with AKASHIC_NOT_OPEN). The service and its store keep running. */
  async close(): Promise<void> {
    this.#http.close();
  }
}

/**
 * A ref is its session and chunk id; callers often pass richer objects (listed entries), whose other fields the
 * library ignores, so only these two travel. Anything else is sent as is for the server to refuse.
 */
function refFields(refs: readonly ChunkRef[]): unknown {
  if (!Array.isArray(refs)) return refs;
  return refs.map((r: unknown) => (r !== null && typeof r === 'object' ? { sessionId: (r as ChunkRef).sessionId, chunkId: (r as ChunkRef).chunkId } : r));
}

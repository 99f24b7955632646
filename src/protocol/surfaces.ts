/**
 * The surfaces a caller of the memory and of the store can rely on whether the object is the embedded library
 * (`AkashicMemory`, `AkashicStore`) or the remote client (`RemoteMemory`, `RemoteStore` of `akashic/client`). The
 * framework adapters accept these, so they work unchanged against a service.
 */
import type { AkashicStore } from '../engine/akashic-store.js';
import type { AkashicMemory } from '../memattention/memory.js';

/** The memory calls: append, complete a request, end sessions, recall, history, purge, close. */
export type MemorySurface = Pick<AkashicMemory, 'appendTurn' | 'completeRequest' | 'endSession' | 'endOtherSessions' | 'activeTurns' | 'recall' | 'history' | 'purge' | 'close'>;

/** The store calls the adapters and remote callers use (not the maintenance ones: GC, verify, blocks, dump). */
export type StoreSurface = Pick<AkashicStore, 'put' | 'write' | 'get' | 'getMany' | 'list' | 'history' | 'sessions' | 'users' | 'purge' | 'stats' | 'close'>;

/**
 * `akashic/client`: the memory and the store of a remote `akashic serve`, with the embedded library's signatures
 * and errors, so code written against `AkashicMemory` / `AkashicStore` (the framework adapters included) runs
 * against a service unchanged.
 */
export { RemoteMemory } from './remote-memory.js';
export { RemoteStore } from './remote-store.js';
export type { RemoteOptions } from './http-caller.js';
export type { MemorySurface, StoreSurface } from '../protocol/surfaces.js';
export { AkashicError, isAkashicError, type AkashicErrorCode } from '../errors.js';

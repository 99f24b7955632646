/**
 * `akashic/ai-sdk`: memory middleware for the Vercel AI SDK (`ai` 6, `LanguageModelV3Middleware`) over
 * MemAttention. Peer dependency: `ai`.
 */
export { akashicMemory } from './akashic-memory.js';
export type { AkashicMemoryOptions, AkashicProviderOptions } from './akashic-memory.js';

/**
 * `akashic/langchain`: LangChain.js chat message history persisted in Akashic. Peer dependency: `@langchain/core`.
 */
export { AkashicChatMessageHistory } from './akashic-chat-history.js';
export type { AkashicChatMessageHistoryOptions } from './akashic-chat-history.js';

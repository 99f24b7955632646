/**
 * `akashic/langgraph`: LangGraph.js persistence backed by Akashic. `AkashicLangGraphStore` is the long-term memory
 * store (`BaseStore`), `AkashicSaver` the checkpointer (`BaseCheckpointSaver`). Both take an open engine
 * (`AkashicStore` from `akashic`) and never close it. Peer dependency: `@langchain/langgraph-checkpoint`.
 */
export { AkashicLangGraphStore } from './akashic-store.js';
export type { AkashicLangGraphStoreOptions } from './akashic-store.js';
export { AkashicSaver } from './akashic-saver.js';
export type { AkashicSaverOptions } from './akashic-saver.js';

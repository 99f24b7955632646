/**
 * The model layer: the `MemoryModel` contract MemAttention calls, its two implementations, and the lexical and
 * token-counting functions they share with the engine.
 */
export type {
  ChunkBodyView,
  ChunkMetaView,
  CoAccessView,
  CompressResult,
  JointCompactResult,
  MemoryModel,
  MetaResult,
  ModelTurn,
} from './memory-model.js';
export { EmbeddedModel, DEFAULT_GROUP_THRESHOLD } from './embedded-model.js';
export type { EmbeddedModelOptions } from './embedded-model.js';
export { OpenAIChatModel } from './openai-model.js';
export type { OpenAIChatModelOptions, OpenAIChatModelStats } from './openai-model.js';
export type { Embedder } from './embedder.js';
export { OpenAIEmbedder } from './openai-embedder.js';
export type { OpenAIEmbedderOptions, OpenAIEmbedderStats } from './openai-embedder.js';
export type { OpenAIConnectionOptions } from './openai-connection.js';
export type { ChunkEmbedding } from '../record/chunk-embedding.js';
export { createTokenizer } from './tokenizer.js';
export type { Tokenizer, TokenizerEncoding } from './tokenizer.js';
export { DEFAULT_KEYWORD_LIMIT, extractKeywords, termsOf } from './keywords.js';
export { pairKey } from './association.js';

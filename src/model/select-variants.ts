/**
 * The SELECT variants the benchmark and the recall evaluation can run, as the model and embedder a user would hand
 * `AkashicMemory`:
 *
 * - `lexical` — the embedded model alone (the default: BM25 over keywords, the word-vector signal for candidates
 *   sharing no word with the query);
 * - `hybrid` — the embedded model plus the offline {@link WordMeanEmbedder} as `embedder`, so SELECT fuses the
 *   cosine ranking of chunk vectors with BM25 by reciprocal rank (`memattention/hybrid-select.ts`);
 * - `dense` — an experiment, not a configuration to use: the embedder's cosine ranking alone (the embedded model's
 *   SELECT answers nothing, so the fusion is the dense list). It shows how recall sets move when nothing lexical
 *   picks them.
 *
 * Everything else (compression, keywords, passages, joint compaction) is the embedded model's in every variant.
 * @internal
 */
import { invalidArgument } from '../errors.js';
import type { Embedder } from './embedder.js';
import { EmbeddedModel, type EmbeddedModelOptions } from './embedded-model.js';
import type { ChunkMetaView, MemoryModel } from './memory-model.js';
import { WordMeanEmbedder } from './word-mean-embedder.js';

export type SelectVariant = 'lexical' | 'hybrid' | 'dense';
export const SELECT_VARIANTS: readonly SelectVariant[] = ['lexical', 'hybrid', 'dense'];

/** The embedded model whose SELECT picks nothing: with an embedder, recall's fusion is then the dense ranking alone. */
class NoLexicalSelectModel extends EmbeddedModel {
  override async select(_query: { readonly text: string; readonly keywords: readonly string[] }, _candidates: readonly ChunkMetaView[], _topP: number): Promise<string[]> {
    return [];
  }
}

/** What a variant plugs into `AkashicMemory`, and how a report names it. */
export interface SelectSetup {
  readonly variant: SelectVariant;
  readonly model: MemoryModel;
  /** Absent for `lexical`. */
  readonly embedder?: Embedder;
  /** Whether the variant is an experiment (not a configuration a user should run). */
  readonly experiment: boolean;
}

/** How a report names a variant: the variant, the embedder's id, whether it is an experiment. */
export interface SelectLabel {
  readonly variant: SelectVariant;
  readonly embedder: string | null;
  readonly experiment: boolean;
}

/** @throws AkashicError `AKASHIC_INVALID_ARGUMENT` for an unknown variant. */
export function checkSelectVariant(v: unknown): SelectVariant {
  if (!SELECT_VARIANTS.includes(v as SelectVariant)) throw invalidArgument(`select must be one of ${SELECT_VARIANTS.join(', ')}, got ${JSON.stringify(v)}`);
  return v as SelectVariant;
}

/**
 * The model and embedder of `variant` (the embedded model built with `model` options).
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` for an unknown variant; `AKASHIC_MODEL` when a variant needing the
 * offline word vectors runs without them installed.
 */
export async function selectSetup(variant: SelectVariant, model: EmbeddedModelOptions = {}): Promise<SelectSetup> {
  checkSelectVariant(variant);
  if (variant === 'lexical') return { variant, model: new EmbeddedModel(model), experiment: false };
  const embedder = await WordMeanEmbedder.offline();
  return variant === 'hybrid'
    ? { variant, model: new EmbeddedModel(model), embedder, experiment: false }
    : { variant, model: new NoLexicalSelectModel(model), embedder, experiment: true };
}

export function selectLabel(s: SelectSetup): SelectLabel {
  return { variant: s.variant, embedder: s.embedder?.id ?? null, experiment: s.experiment };
}

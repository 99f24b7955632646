/**
 * Token counting for the chunk gate (`L_chunk >= tau_c`, seed 000 §4.1). The gate is defined in model tokens, so the
 * count comes from a real BPE tokenizer (`gpt-tokenizer`), not from a word-count estimate.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { invalidArgument } from '../errors.js';

/** The BPE encodings Akashic can count with. `o200k_base` is GPT-4o's; `cl100k_base` is GPT-4 / GPT-3.5's. */
export type TokenizerEncoding = 'o200k_base' | 'cl100k_base';

/** Counts model tokens in text. Implementations are pure and safe to share between callers. */
export interface Tokenizer {
  /** The encoding name, e.g. `o200k_base`; recorded next to token counts so they can be compared later. */
  readonly name: string;
  /** Number of tokens `text` encodes to. Special-token markers such as `<|endoftext|>` count as plain text. */
  count(text: string): number;
}

/**
 * User text may legitimately contain strings like `<|endoftext|>`; gpt-tokenizer throws on them by default.
 * Disallowing nothing makes them encode as ordinary text, which is what a chat template would do with user content.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() } as const;

const COUNTERS: Readonly<Record<TokenizerEncoding, (text: string) => number>> = {
  o200k_base: (text) => countO200k(text, PLAIN_TEXT),
  cl100k_base: (text) => countCl100k(text, PLAIN_TEXT),
};

/**
 * Creates a tokenizer for one encoding.
 *
 * @example
 * ```ts
 * const tok = createTokenizer();          // o200k_base
 * tok.count('hello world');               // 2
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` for an unknown encoding.
 */
export function createTokenizer(encoding: TokenizerEncoding = 'o200k_base'): Tokenizer {
  const counter = Object.hasOwn(COUNTERS, encoding) ? COUNTERS[encoding] : undefined;
  if (counter === undefined) {
    throw invalidArgument(`unknown tokenizer encoding: ${JSON.stringify(encoding)}`);
  }
  return {
    name: encoding,
    count(text: string): number {
      return text.length === 0 ? 0 : counter(text);
    },
  };
}

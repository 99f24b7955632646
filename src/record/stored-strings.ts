import { decodeStrings, int32At } from './string-vector.js';
import { startsWithBom, type Utf8Matcher } from '../util/utf8-matcher.js';

/**
 * A FlatBuffers vector of strings left in its bytes: decoded into strings (once, then kept) only when they are
 * asked for, and counted against a few sought strings byte for byte without being decoded.
 *
 * A recall gathers a few hundred directory entries, each with up to 64 keywords and their 64 matching terms, and
 * most of those strings are never read: SELECT only needs, per candidate, how many terms it has and how often each
 * query term occurs among them, and only the few candidates it picks (or scores by meaning) need their keywords.
 *
 * The strings' offsets are checked when it is made (a damaged vector throws then, as decoding it would), so a later
 * decoding cannot fail. `body` must be bytes of its own (see `ownBytes`): it is kept for as long as this is.
 * @internal
 */
export class StoredStrings {
  readonly #body: Buffer;
  readonly #vector: number;
  /** How many strings the vector holds. */
  readonly count: number;
  #strings: readonly string[] | undefined;
  /** Kept here for BM25, which scores these strings as a document (see its memo of term frequencies). */
  bm25Frequencies: ReadonlyMap<string, number> | null | undefined = undefined;

  /** @throws RangeError when a string runs past the end of the buffer. */
  constructor(body: Buffer, vector: number, count: number) {
    for (let i = 0; i < count; i++) {
      const at = vector + i * 4;
      const start = at + int32At(body, at);
      if (at + 4 > body.length || start < 0 || start + 4 > body.length) throw new RangeError('string runs past the end of the buffer');
      const length = int32At(body, start);
      if (length < 0 || start + 4 + length > body.length) throw new RangeError('string runs past the end of the buffer');
    }
    this.#body = body;
    this.#vector = vector;
    this.count = count;
  }

  /** The strings, decoded on the first call (as `readStringVector` decodes them) and frozen: the same array after. */
  strings(): readonly string[] {
    return (this.#strings ??= Object.freeze(decodeStrings(this.#body, this.#vector, this.count)));
  }

  /**
   * Adds to `counts[i]` how many of the strings equal the matcher's i-th string, comparing bytes; returns false
   * (with `counts` partly filled: the caller discards them) when a string starts with a byte-order mark, which
   * decoding drops, so that its bytes do not tell its decoded value: the caller then compares decoded strings.
   */
  countInto(matcher: Utf8Matcher, counts: Int32Array): boolean {
    const b = this.#body;
    for (let i = 0; i < this.count; i++) {
      const at = this.#vector + i * 4;
      const start = at + int32At(b, at);
      const length = int32At(b, start);
      if (startsWithBom(b, start + 4, length)) return false;
      const k = matcher.indexOf(b, start + 4, length);
      if (k >= 0) counts[k] = counts[k]! + 1;
    }
    return true;
  }
}

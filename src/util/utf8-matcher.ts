/**
 * Finds which of a few strings a run of stored UTF-8 bytes spells, without decoding it: each string's bytes are
 * compared with the run's, so a hit is exact (no hash, no collision). Built for the distinct terms of one query and
 * matched against thousands of stored terms, most of which match nothing and are told apart by their length.
 *
 * Equal bytes mean equal strings only for strings that UTF-8 spells one way: `of` refuses (returns null for) a set
 * holding a string with a lone surrogate, a replacement character (what undecodable bytes read as) or a leading
 * byte-order mark (what a decoder drops), and callers compare strings instead. A stored run that starts with a
 * byte-order mark is the caller's to detect ({@link startsWithBom}).
 * @internal
 */
export class Utf8Matcher {
  /** By byte length: the strings of that length, as [bytes, index] pairs. */
  readonly #byLength: (readonly (readonly [Uint8Array, number])[] | undefined)[];
  /** The strings themselves, first index of each. */
  readonly #index = new Map<string, number>();
  readonly size: number;

  private constructor(strings: readonly string[]) {
    this.size = strings.length;
    this.#byLength = [];
    strings.forEach((s, i) => {
      if (!this.#index.has(s)) this.#index.set(s, i);
      const bytes = Buffer.from(s, 'utf8');
      const list = (this.#byLength[bytes.length] ??= []) as (readonly [Uint8Array, number])[];
      list.push([bytes, i]);
    });
  }

  /** A matcher of `strings` (indices as given), or null when one of them has no single UTF-8 spelling to compare. */
  static of(strings: readonly string[]): Utf8Matcher | null {
    for (const s of strings) {
      if (!s.isWellFormed() || s.includes('\uFFFD') || s.charCodeAt(0) === 0xfeff) return null;
    }
    return new Utf8Matcher(strings);
  }

  /** The index of the first string equal to `s`, or -1. */
  indexOfString(s: string): number {
    return this.#index.get(s) ?? -1;
  }

  /** The index of the first string whose UTF-8 bytes are `bytes[start, start + length)`, or -1. */
  indexOf(bytes: Uint8Array, start: number, length: number): number {
    const list = this.#byLength[length];
    if (list === undefined) return -1;
    for (const [b, i] of list) {
      let k = 0;
      while (k < length && b[k] === bytes[start + k]) k++;
      if (k === length) return i;
    }
    return -1;
  }
}

/** Whether `bytes[start, start + length)` begins with UTF-8's byte-order mark (EF BB BF). */
export function startsWithBom(bytes: Uint8Array, start: number, length: number): boolean {
  return length >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf;
}

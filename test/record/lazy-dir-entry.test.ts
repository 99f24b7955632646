import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeDirEntry, decodeDirEntryLazily, encodeDirEntry, keywordCountOf, storedTermsOf, type DirEntry } from '../../src/record/dir-entry.js';
import { Utf8Matcher } from '../../src/util/utf8-matcher.js';
import { ownBytes } from '../../src/util/own-bytes.js';
import { AkashicError } from '../../src/errors.js';

// Strings a decoder may not give back as written: byte-order marks (dropped when leading), lone surrogates and the
// replacement character (what undecodable bytes read as), non-ASCII and astral characters, the empty string.
const odd = fc.constantFrom('\ufeffbom', '\ufeff', '\ufeff\ufeffx', 'a\ufeffb', '\ud800x', '\udc00', '\ufffd', 'caf\u00e9', '\u{1f600}', '', 'x', 'run');
const word = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: 'binary-ascii', maxLength: 10 }), odd);
// Repeats: terms drawn from the keywords, some several times.
const lists = fc.tuple(fc.array(word, { maxLength: 70 }), fc.array(word, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 40 })).map(([keywords, more, picks]) => ({
  keywords,
  terms: [...picks.map((p) => keywords[p % Math.max(1, keywords.length)] ?? 'x'), ...more],
}));

function entryOf(keywords: readonly string[], terms: readonly string[] | null): DirEntry {
  return {
    state: 'live', version: 3, location: { blockId: 9, frame: 1, slot: 2 }, recordBytes: 10, tokenCount: 5, createdAt: 7, updatedAt: 8,
    kind: 'memory', keywords, supersededBy: null, deletedAt: null, attributes: { a: 'b' },
    ...(terms === null ? {} : { keywordTerms: { version: 1, terms } }),
  };
}

describe('lazily decoded directory entries', () => {
  it('read, spread and serialize exactly as eagerly decoded ones (arbitrary Unicode, repeats, empty lists)', () => {
    fc.assert(
      fc.property(lists, fc.boolean(), ({ keywords, terms }, withTerms) => {
        const value = encodeDirEntry(entryOf(keywords, withTerms ? terms : null));
        const eager = decodeDirEntry(value, 't');
        const lazy = decodeDirEntryLazily(ownBytes(Buffer.from(value)), 't');
        expect(keywordCountOf(lazy)).toBe(eager.keywords.length);
        expect(storedTermsOf(lazy)?.terms.count).toBe(eager.keywordTerms?.terms.length);
        expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
        expect({ ...lazy }).toEqual(eager);
        expect(Object.keys(lazy)).toEqual(Object.keys(eager));
        expect(lazy.keywords).toEqual(eager.keywords);
        // Decoded once, then the same frozen lists.
        expect(lazy.keywords).toBe(lazy.keywords);
        expect(Object.isFrozen(lazy.keywords)).toBe(true);
        if (withTerms) {
          expect(lazy.keywordTerms).toEqual(eager.keywordTerms);
          expect(lazy.keywordTerms!.terms).toBe(storedTermsOf(lazy)!.terms.strings());
        } else expect(lazy.keywordTerms).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('count sought terms on the stored bytes exactly as comparing decoded strings does, or say they cannot', () => {
    fc.assert(
      fc.property(lists, fc.array(word, { maxLength: 8 }), ({ keywords, terms }, sought) => {
        const distinct = [...new Set(sought)];
        const lazy = decodeDirEntryLazily(ownBytes(Buffer.from(encodeDirEntry(entryOf(keywords, terms)))), 't');
        const stored = storedTermsOf(lazy)!.terms;
        const matcher = Utf8Matcher.of(distinct);
        // Strings with no single UTF-8 spelling to compare are refused.
        const comparable = distinct.every((s) => s.isWellFormed() && !s.includes('\ufffd') && !s.startsWith('\ufeff'));
        expect(matcher !== null).toBe(comparable);
        if (matcher === null) return;
        const counts = new Int32Array(distinct.length);
        const told = stored.countInto(matcher, counts);
        const decoded = stored.strings();
        // Only a stored term starting with a byte-order mark keeps the bytes from telling.
        expect(told).toBe(!terms.some((t) => Buffer.from(t, 'utf8').subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))));
        if (!told) return;
        expect([...counts]).toEqual(distinct.map((s) => decoded.filter((t) => t === s).length));
        distinct.forEach((s, i) => expect(matcher.indexOfString(s)).toBe(i));
      }),
      { numRuns: 500 },
    );
  });

  it('throw a typed error for a damaged vector when decoded, as eager decoding does', () => {
    const value = Buffer.from(encodeDirEntry(entryOf(['alpha', 'beta'], ['alpha', 'bet'])));
    // Point the first keyword's offset far past the end.
    const found = (() => {
      for (let at = value.length - 4; at >= 0; at--) {
        const copy = Buffer.from(value);
        copy.writeInt32LE(0x7ffffff0, at);
        let eagerError: unknown = null;
        try {
          decodeDirEntry(copy, 't');
        } catch (e) {
          eagerError = e;
        }
        if (eagerError === null) continue;
        let lazyError: unknown = null;
        try {
          const e = decodeDirEntryLazily(ownBytes(copy), 't');
          void e.keywords;
          void e.keywordTerms;
        } catch (e) {
          lazyError = e;
        }
        if (lazyError !== null) return { eagerError, lazyError };
      }
      return null;
    })();
    expect(found).not.toBeNull();
    expect(found!.lazyError).toBeInstanceOf(AkashicError);
    expect((found!.lazyError as AkashicError).code).toBe((found!.eagerError as AkashicError).code);
  });
});

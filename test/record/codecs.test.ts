import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame, decodeFrames, encodeFrame } from '../../src/block/frame-codec.js';
import { encodeBlockFrame } from '../../src/record/block-frame.js';
import { layoutGroups } from '../../src/block/group-layout.js';
import { decodeBlockInfo, encodeBlockInfo, type BlockInfo } from '../../src/record/block-info.js';
import { decodeChunkRecord, encodeChunkRecord, type ChunkRecord } from '../../src/record/chunk-record.js';
import { decodeDirEntry, encodeDirEntry, type DirEntry } from '../../src/record/dir-entry.js';
import { ValueType, unwrapEnvelope } from '../../src/record/envelope.js';
import { DirEntry as FbDirEntry } from '../../src/record/generated/akashic/fb/dir-entry.js';
import { ChunkRecord as FbChunkRecord } from '../../src/record/generated/akashic/fb/chunk-record.js';
import * as flatbuffers from 'flatbuffers';

const str = fc.string({ unit: 'grapheme', maxLength: 40 });
const record: fc.Arbitrary<ChunkRecord> = fc.record({
  userId: str,
  sessionId: str,
  chunkId: fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
  version: fc.integer({ min: 1, max: 0xffffffff }),
  // -0 is stored as the field default and reads back as 0; times are never -0.
  createdAt: fc.double({ noNaN: true }).map((x) => x + 0),
  updatedAt: fc.double({ noNaN: true }).map((x) => x + 0),
  tokenCount: fc.integer({ min: 0, max: 0xffffffff }),
  kind: fc.constantFrom('memory', 'turn', 'summary', 'note'),
  text: fc.string({ unit: 'grapheme', maxLength: 500 }),
  keywords: fc.array(str, { maxLength: 8 }),
  attributes: fc.dictionary(str, str, { maxKeys: 5 }),
  payload: fc.option(fc.uint8Array({ maxLength: 300 }), { nil: null }),
  supersedes: fc.array(fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), { maxLength: 3 }),
  provenance: fc.array(str, { maxLength: 5 }),
})
  .map((r) => ({
    ...r,
    // Refs of the record's own user: even ones in the record's session, odd ones in another.
    supersedes: r.supersedes.map((chunkId, i) => ({ userId: r.userId, sessionId: i % 2 === 1 ? 'other \u00e9' : r.sessionId, chunkId })),
  }));

function sortedAttrs(r: ChunkRecord): ChunkRecord {
  return { ...r, attributes: Object.fromEntries(Object.entries(r.attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

describe('record codecs', () => {
  it('round-trips any chunk record', () => {
    fc.assert(
      fc.property(record, (r) => {
        const back = decodeChunkRecord(encodeChunkRecord(r), 'test');
        expect(sortedAttrs(back)).toEqual({ ...sortedAttrs(r), payload: r.payload === null ? null : Uint8Array.from(r.payload) });
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips directory entries and block infos', () => {
    const entry: fc.Arbitrary<DirEntry> = fc.record({
      state: fc.constant('live' as const),
      version: fc.integer({ min: 1, max: 1000 }),
      location: fc.record({ blockId: fc.integer({ min: 1, max: 2 ** 40 }), frame: fc.integer({ min: 0, max: 65535 }), slot: fc.integer({ min: 0, max: 65535 }) }),
      recordBytes: fc.nat(),
      tokenCount: fc.nat(),
      createdAt: fc.nat(),
      updatedAt: fc.nat(),
      kind: fc.constantFrom('memory', 'turn', 'summary', 'note'),
      keywords: fc.array(str, { maxLength: 5 }),
      supersededBy: fc.constant(null),
      deletedAt: fc.constant(null),
    });
    fc.assert(
      fc.property(entry, (e) => {
        expect(decodeDirEntry(encodeDirEntry(e), 't')).toEqual(e);
      }),
      { numRuns: 200 },
    );
    const info: BlockInfo = {
      blockId: 7, userId: 'u', sessionId: '', state: 'sealed', origin: 'gc', frameSlots: [3, 2], frameBytes: [100, 90],
      liveSlots: 4, liveBytes: 400, rawBytes: 500, storedBytes: 190, createdAt: 1, lastWriteAt: 2, sealedAt: 3, releasedAt: null,
    };
    expect(decodeBlockInfo(encodeBlockInfo(info), 't')).toEqual(info);
  });

  it('decodes directory entry keywords exactly as the generated accessor does (non-ASCII, byte-order marks, lone surrogates)', () => {
    const odd = fc.constantFrom('\ufeffbom', '\ufeff', 'a\ufeffb', '\ud800x', 'caf\u00e9', '\u{1f600}', '');
    fc.assert(
      fc.property(fc.array(fc.oneof(str, odd), { maxLength: 12 }), (keywords) => {
        const value = encodeDirEntry({ state: 'live', version: 1, location: { blockId: 1, frame: 0, slot: 0 }, recordBytes: 1, tokenCount: 1, createdAt: 1, updatedAt: 1, kind: 'memory', keywords, supersededBy: null, deletedAt: null });
        const d = FbDirEntry.getRootAsDirEntry(new flatbuffers.ByteBuffer(unwrapEnvelope(ValueType.DirEntry, value, 't')));
        const generated = Array.from({ length: d.keywordsLength() }, (_, i) => d.keywords(i));
        expect(decodeDirEntry(value, 't').keywords).toEqual(generated);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes ASCII keyword lists (read as one span) exactly as the generated accessor does, long strings and a stray non-ASCII one included', () => {
    const ascii = fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 16 }), fc.string({ unit: 'binary-ascii', minLength: 120, maxLength: 300 }));
    const lists = fc.oneof(fc.array(ascii, { minLength: 2, maxLength: 70 }), fc.tuple(fc.array(ascii, { minLength: 1, maxLength: 40 }), fc.constantFrom('caf\u00e9', '\ufeffx', '\u0080')).map(([a, odd]) => [...a, odd]));
    fc.assert(
      fc.property(lists, (keywords) => {
        const value = encodeDirEntry({ state: 'live', version: 1, location: { blockId: 1, frame: 0, slot: 0 }, recordBytes: 1, tokenCount: 1, createdAt: 1, updatedAt: 1, kind: 'memory', keywords, supersededBy: null, deletedAt: null });
        const d = FbDirEntry.getRootAsDirEntry(new flatbuffers.ByteBuffer(unwrapEnvelope(ValueType.DirEntry, value, 't')));
        const generated = Array.from({ length: d.keywordsLength() }, (_, i) => d.keywords(i));
        expect(generated.length).toBe(keywords.length);
        expect(decodeDirEntry(value, 't').keywords).toEqual(generated);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips keyword terms (sharing their keyword strings or not), read exactly as the generated accessor reads them', () => {
    const words = fc.oneof(fc.constantFrom('running', 'run', 'caf\u00e9', '2023-07-07', '2023', '', 'x'), fc.string({ unit: 'binary-ascii', maxLength: 12 }));
    const entry = fc.record({
      keywords: fc.array(words, { maxLength: 70 }),
      terms: fc.array(words, { maxLength: 80 }),
      fromKeywords: fc.boolean(),
      version: fc.integer({ min: 1, max: 65535 }),
    });
    fc.assert(
      fc.property(entry, ({ keywords, terms, fromKeywords, version }) => {
        // Terms drawn from the keywords (most real terms) or independent of them.
        const t = fromKeywords ? [...keywords.filter((_, i) => i % 3 !== 0), ...terms.slice(0, 3)] : terms;
        const e: DirEntry = { state: 'live', version: 1, location: { blockId: 1, frame: 0, slot: 0 }, recordBytes: 1, tokenCount: 1, createdAt: 1, updatedAt: 1, kind: 'memory', keywords, supersededBy: null, deletedAt: null, keywordTerms: { version, terms: t } };
        const value = encodeDirEntry(e);
        expect(decodeDirEntry(value, 't')).toEqual(e);
        const d = FbDirEntry.getRootAsDirEntry(new flatbuffers.ByteBuffer(unwrapEnvelope(ValueType.DirEntry, value, 't')));
        expect(Array.from({ length: d.keywordTermsLength() }, (_, i) => d.keywordTerms(i))).toEqual(t);
        expect(d.keywordTermsVersion()).toBe(version);
      }),
      { numRuns: 300 },
    );
    // An entry without terms decodes without them; terms cost only their offsets where they equal a keyword.
    const plain: DirEntry = { state: 'live', version: 1, location: { blockId: 1, frame: 0, slot: 0 }, recordBytes: 1, tokenCount: 1, createdAt: 1, updatedAt: 1, kind: 'memory', keywords: ['alpha', 'beta', 'gamma'], supersededBy: null, deletedAt: null };
    expect(decodeDirEntry(encodeDirEntry(plain), 't').keywordTerms).toBeUndefined();
    const same = encodeDirEntry({ ...plain, keywordTerms: { version: 1, terms: ['alpha', 'beta', 'gamma'] } });
    const other = encodeDirEntry({ ...plain, keywordTerms: { version: 1, terms: ['alphx', 'betx', 'gammx'] } });
    // Each new string costs a length prefix, its bytes and a terminator, padded to 4: at least 8 bytes.
    expect(other.length - same.length).toBeGreaterThanOrEqual(3 * 8);
  });

  it('decodes chunk record keywords and provenance exactly as the generated accessors do (non-ASCII, byte-order marks, lone surrogates)', () => {
    const odd = fc.constantFrom('\ufeffbom', '\ufeff', 'a\ufeffb', '\ud800x', 'caf\u00e9', '\u{1f600}', '');
    const strings = fc.array(fc.oneof(str, odd), { maxLength: 12 });
    fc.assert(
      fc.property(record, strings, strings, (r, keywords, provenance) => {
        const bytes = encodeChunkRecord({ ...r, keywords, provenance });
        const fb = FbChunkRecord.getRootAsChunkRecord(new flatbuffers.ByteBuffer(bytes));
        const decoded = decodeChunkRecord(bytes, 't');
        expect(decoded.keywords).toEqual(Array.from({ length: fb.keywordsLength() }, (_, i) => fb.keywords(i)));
        expect(decoded.provenance).toEqual(Array.from({ length: fb.provenanceLength() }, (_, i) => fb.provenance(i)));
      }),
      { numRuns: 300 },
    );
  });

  it('detects every single flipped byte of an enveloped value', () => {
    const v = encodeDirEntry({
      state: 'live', version: 1, location: { blockId: 1, frame: 0, slot: 0 }, recordBytes: 10, tokenCount: 1, createdAt: 1,
      updatedAt: 1, kind: 'memory', keywords: ['a', 'b'], supersededBy: null, deletedAt: null,
    });
    for (let i = 0; i < v.length; i++) {
      const bad = Buffer.from(v);
      bad[i]! ^= 0x01;
      expect(() => decodeDirEntry(bad, 'flip'), `byte ${i}`).toThrow(expect.objectContaining({ code: 'AKASHIC_CORRUPTION' }));
    }
  });

  it('round-trips frames and detects damage in them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 6 }), fc.nat(), async (recs, at) => {
        const bytes = recs.map(encodeChunkRecord);
        const f = await encodeFrame(3, 1, 'u', bytes);
        const back = await decodeFrame(f.value, 'frame');
        expect(back.records.map((b) => Buffer.from(b))).toEqual(bytes.map((b) => Buffer.from(b)));
        const bad = Buffer.from(f.value);
        bad[at % bad.length]! ^= 0x80;
        await expect(decodeFrame(bad, 'frame')).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
      }),
      { numRuns: 60 },
    );
  });

  it('decodes several frames together as each alone, and names the damaged one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(record, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 6 }), fc.nat(), fc.nat(), async (groups, which, at) => {
        const bytes = groups.map((g) => g.map(encodeChunkRecord));
        const values = await Promise.all(bytes.map(async (b, i) => (await encodeFrame(7, i, 'u', b)).value));
        const whats = values.map((_, i) => `frame ${i}`);
        const back = await decodeFrames(values, whats);
        expect(back.map((f) => f.records.map((r) => Buffer.from(r)))).toEqual(bytes.map((b) => b.map((r) => Buffer.from(r))));
        expect(back.map((f) => f.frameNo)).toEqual(values.map((_, i) => i));
        const k = which % values.length;
        const bad = values.map((v) => Buffer.from(v));
        bad[k]![at % bad[k]!.length]! ^= 0x80;
        await expect(decodeFrames(bad, whats)).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION', message: expect.stringContaining(`frame ${k}`) });
      }),
      { numRuns: 40 },
    );
  });

  it('a frame whose checksum holds but whose payload does not decompress fails alone, named, in a joint decode', async () => {
    const good = await Promise.all([0, 2].map(async (i) => (await encodeFrame(9, i, 'u', [Buffer.from(`record ${i}`)])).value));
    const garbage = encodeBlockFrame({ blockId: 9, frameNo: 1, userId: 'u', codec: 'zstd', rawBytes: 12, recordCount: 1, payload: Buffer.from('not zstd at all') });
    await expect(decodeFrames([good[0]!, garbage, good[1]!], ['frame 0', 'frame 1', 'frame 2'])).rejects.toMatchObject({
      code: 'AKASHIC_CORRUPTION',
      message: expect.stringContaining('frame 1: zstd payload does not decompress'),
    });
    const ok = await decodeFrames(good, ['frame 0', 'frame 2']);
    expect(ok.map((f) => f.records.map((r) => r.toString()))).toEqual([['record 0'], ['record 2']]);
  });

  it('lays out groups whole where they fit, never over capacity', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 10 }), { maxLength: 10 }), fc.integer({ min: 1, max: 8 }), (groups, cap) => {
        const blocks = layoutGroups(groups, cap, 10_000);
        const flat = blocks.flat();
        expect(flat).toEqual([...flat.keys()]);
        for (const b of blocks) expect(b.length).toBeLessThanOrEqual(cap);
        // A group that fits in a block is never split.
        let at = 0;
        for (const g of groups) {
          const idx = g.map((_, i) => at + i);
          at += g.length;
          if (g.length <= cap) expect(new Set(idx.map((i) => blocks.findIndex((b) => b.includes(i)))).size).toBe(1);
        }
      }),
    );
  });
});

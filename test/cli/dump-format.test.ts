import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChunkKind, ChunkRecord } from '../../src/record/chunk-record.js';
import { chunkLine, decodeBase64, headerLine, parseChunkLine, parseHeaderLine, parseTurnLine, turnLine } from '../../src/admin/dump-format.js';
import { validateDumpFile } from '../../src/admin/load.js';
import { tempDir } from './fixtures.js';

const ULID = fc.stringMatching(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
const utf8Max = (max: number) => (s: string): boolean => Buffer.byteLength(s) <= max;
const ID = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s) && utf8Max(256)(s));
const SHORT = fc.string({ unit: 'binary', maxLength: 12 });

const record: fc.Arbitrary<ChunkRecord> = fc.record({
  userId: ID,
  sessionId: ID,
  chunkId: ULID,
  version: fc.integer({ min: 1, max: 0xffffffff }),
  createdAt: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
  updatedAt: fc.integer({ min: 0, max: 2 ** 48 }),
  tokenCount: fc.integer({ min: 0, max: 0xffffffff }),
  kind: fc.constantFrom<ChunkKind>('memory', 'turn', 'summary', 'note'),
  text: fc.string({ unit: 'binary', maxLength: 60 }),
  keywords: fc.array(SHORT, { maxLength: 4 }),
  attributes: fc.dictionary(SHORT.filter((k) => k !== '__proto__'), SHORT, { maxKeys: 4 }),
  payload: fc.option(fc.uint8Array({ maxLength: 40 }), { nil: null }),
  supersedes: fc.array(ULID, { maxLength: 3 }),
  provenance: fc.array(SHORT, { maxLength: 3 }),
})
  .map((r) => ({
    ...r,
    // Refs of the record's own user: even ones in the record's session, odd ones in another.
    supersedes: r.supersedes.map((chunkId, i) => ({ userId: r.userId, sessionId: i % 2 === 1 ? 'other' : r.sessionId, chunkId })),
  }));

describe('dump line format', () => {
  it('parses every chunk line it writes back to the same record and the same bytes', () => {
    fc.assert(
      fc.property(record, (r) => {
        const line = chunkLine(r);
        const back = parseChunkLine(line);
        expect({ ...back, payload: back.payload === null ? null : [...back.payload] }).toEqual({ ...r, payload: r.payload === null ? null : [...r.payload], attributes: { ...r.attributes } });
        expect(chunkLine(back)).toBe(line);
      }),
      { numRuns: 300 },
    );
  });

  it('writes attribute keys sorted, integer-like keys included', () => {
    const r = parseChunkLine(chunkLine({ ...base(), attributes: { b: '1', '10': 'x', '2': 'y', a: 'z' } }));
    expect(chunkLine(r)).toContain('"attributes":{"10":"x","2":"y","a":"z","b":"1"}');
  });

  it.each([
    ['{', /^not valid JSON/],
    ['[]', /^not a JSON object/],
    [JSON.stringify({ ...obj(), type: 'chunky' }), /^"type" must be "chunk"/],
    [JSON.stringify(without('text')), /^missing field "text"/],
    [JSON.stringify({ ...obj(), extra: 1 }), /^unknown field "extra"/],
    [JSON.stringify({ ...obj(), chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAu' }), /^"chunkId" must be a 26-character upper-case ULID/],
    [JSON.stringify({ ...obj(), userId: 'a\u0000b' }), /^"userId" contains a control character/],
    [JSON.stringify({ ...obj(), sessionId: '' }), /^"sessionId" must not be empty/],
    [JSON.stringify({ ...obj(), version: 0 }), /^"version" must be a positive 32-bit integer/],
    [JSON.stringify({ ...obj(), createdAt: '1' }), /^"createdAt" must be a finite number/],
    [JSON.stringify({ ...obj(), tokenCount: 1.5 }), /^"tokenCount" must be a non-negative integer/],
    [JSON.stringify({ ...obj(), kind: 'poem' }), /^"kind" must be one of/],
    [JSON.stringify({ ...obj(), keywords: [1] }), /^"keywords" must be an array of strings/],
    [JSON.stringify({ ...obj(), attributes: { a: 1 } }), /^"attributes" must be an object of string values/],
    [JSON.stringify({ ...obj(), payload: 'AAA' }), /^"payload" is not valid base64/],
    [JSON.stringify({ ...obj(), payload: 'AB==' }), /^"payload" is not canonical base64/],
    [JSON.stringify({ ...obj(), payload: 5 }), /^"payload" must be a base64 string or null/],
    [JSON.stringify({ ...obj(), supersedes: ['x'] }), /^"supersedes"\[0\] must be a 26-character upper-case ULID/],
    [JSON.stringify({ ...obj(), keywords: ['k'.repeat(300)] }), /^"keywords"\[0\] is 300 bytes; the limit is 256/],
  ])('rejects %s', (line, reason) => {
    expect(() => parseChunkLine(line)).toThrow(reason);
  });

  it('accepts only canonical base64', () => {
    expect([...decodeBase64('AQID', 'p')]).toEqual([1, 2, 3]);
    expect([...decodeBase64('', 'p')]).toEqual([]);
    expect(() => decodeBase64('AQI', 'p')).toThrow(/not valid base64/);
    expect(() => decodeBase64('AQ=D', 'p')).toThrow(/not valid base64/);
  });

  it('keeps prototype-like attribute keys as data', () => {
    const line = JSON.stringify({ ...obj(), attributes: JSON.parse('{"__proto__":"x","constructor":"c","prototype":"p"}') as unknown });
    const r = parseChunkLine(line);
    expect(Object.hasOwn(r.attributes, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(r.attributes)).toBe(Object.prototype);
    expect(Object.entries(r.attributes).sort()).toEqual([['__proto__', 'x'], ['constructor', 'c'], ['prototype', 'p']]);
    expect(chunkLine(r)).toContain('"attributes":{"__proto__":"x","constructor":"c","prototype":"p"}');
  });

  it('turn lines round-trip and are validated as appendTurn validates a turn', () => {
    const t = { userId: 'u', sessionId: 's', turnId: 't1', role: 'user', text: 'hi "there"', at: 5, tokenCount: 3 };
    expect(parseTurnLine(turnLine(t))).toEqual(t);
    expect(() => parseTurnLine(turnLine({ ...t, role: '' }))).toThrow(/"role" must be a non-empty/);
    expect(() => parseTurnLine(turnLine({ ...t, tokenCount: -1 }))).toThrow(/"tokenCount" must be a non-negative integer/);
    expect(() => parseTurnLine(turnLine({ ...t, text: 'x'.repeat(1024 * 1024) }))).toThrow(/"text"/);
    expect(() => parseTurnLine(JSON.stringify({ ...t, type: 'turn', extra: 1 }))).toThrow(/unknown field "extra"/);
  });

  it('validates headers', () => {
    const h = headerLine({ engineVersion: '0.1.0', user: null, session: null, agent: 'a', chunks: 3, versions: 4, turns: 2 });
    expect(h).toBe('{"type":"header","format":3,"engineVersion":"0.1.0","user":null,"session":null,"agent":"a","run":null,"chunks":3,"versions":4,"turns":2}');
    expect(parseHeaderLine(h)).toEqual({ type: 'header', format: 3, engineVersion: '0.1.0', user: null, session: null, agent: 'a', run: null, chunks: 3, versions: 4, turns: 2 });
    // Formats 1 (no turns) and 2 (no history, no agent/run) are still read.
    const v1 = '{"type":"header","format":1,"engineVersion":"0.1.0","user":null,"session":null,"chunks":3}';
    const old = { type: 'header', engineVersion: '0.1.0', user: null, session: null, agent: null, run: null, chunks: 3, versions: 0 };
    expect(parseHeaderLine(v1)).toEqual({ ...old, format: 1, turns: 0 });
    const v2 = '{"type":"header","format":2,"engineVersion":"0.1.0","user":null,"session":null,"chunks":3,"turns":2}';
    expect(parseHeaderLine(v2)).toEqual({ ...old, format: 2, turns: 2 });
    expect(() => parseHeaderLine(v2.replace('"turns":2', '"turns":2,"versions":1'))).toThrow(/unknown field "versions"/);
    expect(() => parseHeaderLine(h.replace('"format":3', '"format":4'))).toThrow(/unsupported dump format 4/);
    expect(() => parseHeaderLine(h.replace('"versions":4', '"versions":1.5'))).toThrow(/"versions" must be a non-negative integer/);
    expect(() => parseHeaderLine(h.replace('"agent":"a"', '"agent":""'))).toThrow(/"agent"/);
    expect(() => parseHeaderLine(h.replace('"turns":2', '"turns":-2'))).toThrow(/"turns" must be a non-negative integer/);
    expect(() => parseHeaderLine(chunkLine(base()))).toThrow(/expected the header line/);
    expect(() => parseHeaderLine(h.replace('"chunks":3', '"chunks":-1'))).toThrow(/"chunks" must be a non-negative integer/);
  });
});

describe('validateDumpFile', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir();
  });
  afterEach(async () => tmp.dispose());

  async function validate(lines: readonly string[]) {
    const file = join(tmp.dir, 'f.jsonl');
    await writeFile(file, lines.join('\n') + '\n');
    return validateDumpFile(file);
  }
  const header = (n: number, user: string | null = null): string => headerLine({ engineVersion: '0.1.0', user, session: null, chunks: n });

  it('accepts a sorted file and ignores blank lines', async () => {
    const v = await validate([header(2), chunkLine(base('01ARZ3NDEKTSV4RRFFQ69G5FAV')), '', chunkLine(base('01ARZ3NDEKTSV4RRFFQ69G5FAW'))]);
    expect(v).toMatchObject({ ok: true, chunks: 2, problems: [] });
  });

  it('reports an empty file, duplicates, disorder, a second header, a filter mismatch and a wrong count', async () => {
    expect((await validate([])).problems).toEqual([{ line: 1, reason: 'empty file: expected a header line' }]);
    const a = chunkLine(base('01ARZ3NDEKTSV4RRFFQ69G5FAV'));
    const b = chunkLine(base('01ARZ3NDEKTSV4RRFFQ69G5FAW'));
    const v = await validate([header(5, 'u'), b, a, a, header(1), chunkLine({ ...base('01ARZ3NDEKTSV4RRFFQ69G5FAX'), userId: 'v' })]);
    expect(v.ok).toBe(false);
    expect(v.problems.map((p) => `${p.line}: ${p.reason}`)).toEqual([
      '3: out of order: chunk lines must be sorted by (userId, sessionId, chunkId) as dump writes them',
      '4: duplicate chunk u/s/01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '5: a second header line',
      '6: chunk v/s is outside the header\'s filter',
    ]);
    const truncated = await validate([header(3), a]);
    expect(truncated.problems).toEqual([{ line: 1, reason: 'header says 3 chunks, the file has 1 chunk lines (truncated or edited?)' }]);
  });
});

function base(chunkId = '01ARZ3NDEKTSV4RRFFQ69G5FAV'): ChunkRecord {
  return {
    userId: 'u',
    sessionId: 's',
    chunkId,
    version: 1,
    createdAt: 1,
    updatedAt: 2,
    tokenCount: 3,
    kind: 'memory',
    text: 't',
    keywords: [],
    attributes: {},
    payload: null,
    supersedes: [],
    provenance: [],
  };
}

function obj(): Record<string, unknown> {
  return JSON.parse(chunkLine(base())) as Record<string, unknown>;
}

function without(field: string): Record<string, unknown> {
  const o = obj();
  delete o[field];
  return o;
}

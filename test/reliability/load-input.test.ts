/**
 * Hostile JSONL for the dump loader (src/admin/load.ts), property-based: whatever the file holds, validation
 * never throws and names the bad lines; a file with any bad line applies nothing and never even opens (so
 * never creates, locks or changes) the target database.
 */
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicStore, LIMITS, type ChunkRecord } from '../../src/index.js';
import { chunkLine, headerLine } from '../../src/admin/dump-format.js';
import { loadDump, validateDumpFile } from '../../src/admin/load.js';
import { snapshotStore } from './helpers.js';

const RUNS = { hostile: 300, structure: 150 } as const;
const tried: Record<string, number> = {};

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'akashic-load-input-'));
});
afterAll(async () => {
  console.log(`load-input cases tried per property: ${JSON.stringify(tried)}`);
  await rm(dir, { recursive: true, force: true });
});

async function file(text: string): Promise<string> {
  const p = join(dir, `f${n++}.jsonl`);
  await writeFile(p, text);
  return p;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ulid = fc.array(fc.constantFrom(...CROCKFORD), { minLength: 16, maxLength: 16 }).map((r) => '01HZZZZZZZ' + r.join(''));
const validRecord: fc.Arbitrary<ChunkRecord> = fc.record({
  userId: fc.constantFrom('alice', 'bob'),
  sessionId: fc.constantFrom('s0', 's1'),
  chunkId: ulid,
  version: fc.integer({ min: 1, max: 9 }),
  createdAt: fc.integer({ min: 0, max: 2e12 }),
  updatedAt: fc.integer({ min: 0, max: 2e12 }),
  tokenCount: fc.nat(1000),
  kind: fc.constantFrom('memory', 'turn', 'summary', 'note'),
  text: fc.string({ unit: 'grapheme', maxLength: 40 }),
  keywords: fc.array(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 3 }),
  attributes: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }).filter((k) => k !== '__proto__'), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  payload: fc.option(fc.uint8Array({ maxLength: 16 }), { nil: null }),
  supersedes: fc.array(ulid, { maxLength: 2 }),
  provenance: fc.array(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 2 }),
})
  .map((r) => ({
    ...r,
    // Refs of the record's own user: even ones in the record's session, odd ones in another.
    supersedes: r.supersedes.map((chunkId, i) => ({ userId: r.userId, sessionId: i % 2 === 1 ? 's1' : r.sessionId, chunkId })),
  }));

/** A chunk line that can never pass validation. */
const badLine: fc.Arbitrary<string> = fc.oneof(
  fc.string().filter((s) => s.trim() !== ''),
  fc.json().filter((j) => !j.startsWith('{')),
  fc.constantFrom('{', '{"type":"chunk"', '[]', 'null', '1e999', '"chunk"', '\u0000', '{"type":"chunk"}', '{"__proto__":{"type":"chunk"}}', '['.repeat(5000) + ']'.repeat(5000), '{"type":"header","format":1,"engineVersion":"x","user":null,"session":null,"chunks":0}'),
  fc
    .tuple(
      validRecord,
      fc.constantFrom(
        ['userId', ''],
        ['userId', 'a\u0000b'],
        ['userId', 'x'.repeat(300)],
        ['sessionId', 5],
        ['sessionId', '\ud800'],
        ['chunkId', 'not-a-ulid'],
        ['chunkId', '01hzzzzzzzzzzzzzzzzzzzzzzz'],
        ['version', 0],
        ['version', 1.5],
        ['version', 2 ** 33],
        ['version', '1'],
        ['createdAt', null],
        ['updatedAt', 'yesterday'],
        ['tokenCount', -1],
        ['kind', 'bogus'],
        ['text', 7],
        ['text', 'lone \udc00 surrogate'],
        ['text', 'x'.repeat(LIMITS.textBytes + 1)],
        ['keywords', 'tea'],
        ['keywords', [1]],
        ['attributes', ['a']],
        ['attributes', { k: 1 }],
        ['attributes', null],
        ['payload', '***'],
        ['payload', 'QQ'],
        ['payload', 5],
        ['supersedes', ['nope']],
        ['provenance', 'x'],
        ['type', 'chunks'],
        ['extra', true],
        ['__delete__', 'text'],
      ),
    )
    .map(([r, [field, value]]) => {
      const o = JSON.parse(chunkLine(r)) as Record<string, unknown>;
      if (field === '__delete__') delete o[value as string];
      else o[field as string] = value;
      return JSON.stringify(o);
    }),
);

/** A header that can never pass. */
const badHeader = fc.oneof(
  badLine,
  fc.constantFrom(
    '{"type":"header","format":2,"engineVersion":"x","user":null,"session":null,"chunks":0}',
    '{"type":"header","format":1,"engineVersion":5,"user":null,"session":null,"chunks":0}',
    '{"type":"header","format":1,"engineVersion":"x","user":"","session":null,"chunks":0}',
    '{"type":"header","format":1,"engineVersion":"x","user":null,"session":null,"chunks":-1}',
    '{"type":"header","format":1,"engineVersion":"x","user":null,"session":null}',
  ),
);

/** Lines in dump order (sorted by the engine's key order, no duplicates). */
function sorted(records: ChunkRecord[]): ChunkRecord[] {
  const key = (r: ChunkRecord): Buffer => Buffer.from(`${r.userId}\u0000${r.sessionId}\u0000${r.chunkId}`);
  const seen = new Set<string>();
  return records
    .filter((r) => {
      const k = key(r).toString('hex');
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => Buffer.compare(key(a), key(b)));
}

describe('hostile JSONL (property-based)', () => {
  it('any file with a bad line: validation names it, never throws; nothing is applied and the target is never opened', async () => {
    const store = await AkashicStore.open({ db: new MemoryLevel(), gc: { intervalMs: 0 } });
    await store.put('alice', { sessionId: 's0', text: 'already here' });
    const before = await snapshotStore(store);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(validRecord, { maxLength: 6 }),
          fc.array(fc.tuple(fc.nat(6), badLine), { minLength: 1, maxLength: 3 }),
          fc.boolean(),
          fc.constantFrom('\n', '\r\n'),
          fc.option(badHeader, { nil: null }),
          async (records, bad, withBom, eol, header) => {
            tried['hostile lines'] = (tried['hostile lines'] ?? 0) + 1;
            const good = sorted(records);
            const lines = good.map(chunkLine);
            for (const [at, l] of bad) lines.splice(Math.min(at, lines.length), 0, l);
            const head = header ?? headerLine({ engineVersion: '0.1.0', user: null, session: null, chunks: lines.length });
            const path = await file((withBom ? '\ufeff' : '') + [head, ...lines].join(eol) + eol);
            const v = await validateDumpFile(path);
            expect(v.ok).toBe(false);
            expect(v.problemCount).toBeGreaterThan(0);
            for (const p of v.problems) expect(p.line).toBeGreaterThanOrEqual(1);
            let opened = false;
            const out = await loadDump(path, async () => {
              opened = true;
              return store;
            });
            expect(out.result).toBeNull();
            expect(opened).toBe(false);
          },
        ),
        { numRuns: RUNS.hostile },
      );
      expect(await snapshotStore(store)).toEqual(before);
    } finally {
      await store.close();
    }
  });

  it('valid lines in a hostile arrangement (duplicates, disorder, a wrong count, outside the filter) are refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(validRecord, { minLength: 2, maxLength: 6 }), fc.constantFrom('duplicate', 'reversed', 'count', 'filter'), async (records, how) => {
        tried['hostile arrangements'] = (tried['hostile arrangements'] ?? 0) + 1;
        let good = sorted(records);
        if (good.length < 2) return;
        let header = { engineVersion: '0.1.0', user: null as string | null, session: null, chunks: good.length };
        if (how === 'duplicate') good = [...good, good[good.length - 1]!];
        if (how === 'reversed') good = [...good].reverse();
        if (how === 'count') header = { ...header, chunks: good.length + 1 };
        if (how === 'filter') header = { ...header, user: good[0]!.userId === 'alice' && good.some((r) => r.userId === 'bob') ? 'alice' : 'nobody' };
        if (how === 'duplicate') header = { ...header, chunks: good.length };
        const path = await file([headerLine(header), ...good.map(chunkLine)].join('\n') + '\n');
        const v = await validateDumpFile(path);
        expect(v.ok).toBe(false);
        const out = await loadDump(path, () => Promise.reject(new Error('must not open')));
        expect(out.result).toBeNull();
      }),
      { numRuns: RUNS.structure },
    );
  });
});

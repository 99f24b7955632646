import { afterEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/index.js';
import { AkashicError } from '../../src/index.js';
import { DecodedEntries } from '../../src/store/index/decoded-entries.js';
import { decodeDirEntry, encodeDirEntry, type DirEntry } from '../../src/record/dir-entry.js';
import { gatherCandidates, type Candidate } from '../../src/memattention/candidates.js';
import { coldReopen } from '../../src/engine/internal-seams.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

function entry(keywords: string[], version = 1): DirEntry {
  return {
    state: 'live',
    version,
    location: { blockId: 7, frame: 2, slot: 3 },
    recordBytes: 400,
    tokenCount: 90,
    createdAt: 1_000,
    updatedAt: 1_000,
    kind: 'memory',
    keywords,
    supersededBy: null,
    deletedAt: null,
  };
}

describe('DecodedEntries (decoded directory entries, checked against the stored bytes)', () => {
  it('decodes exactly as decodeDirEntry and reuses the decoded entry while the bytes are the same', () => {
    const memo = new DecodedEntries(1 << 20);
    const raw = encodeDirEntry(entry(['tea', 'jazz']));
    const first = memo.decode('u/s/a', raw, 'entry a', '');
    expect(first).toEqual(decodeDirEntry(raw, 'entry a'));
    // Another buffer with the same bytes (a fresh read): the same decoded object.
    const again = memo.decode('u/s/a', Buffer.from(raw), 'entry a', '');
    expect(again).toBe(first);
    expect([memo.hits, memo.misses]).toEqual([1, 1]);
  });

  it('decodes again when the stored bytes changed under the same key, and keeps the new decoding', () => {
    const memo = new DecodedEntries(1 << 20);
    memo.decode('u/s/a', encodeDirEntry(entry(['tea'])), 'entry a', '');
    const changed = memo.decode('u/s/a', encodeDirEntry(entry(['opera'], 2)), 'entry a', '');
    expect(changed.keywords).toEqual(['opera']);
    expect(changed.version).toBe(2);
    expect(memo.decode('u/s/a', encodeDirEntry(entry(['opera'], 2)), 'entry a', '')).toBe(changed);
    expect([memo.hits, memo.misses]).toEqual([1, 2]);
  });

  it('does not reuse a decoding made for another session argument', () => {
    const memo = new DecodedEntries(1 << 20);
    const raw = encodeDirEntry(entry(['tea']));
    const a = memo.decode('u/s/a', raw, 'entry a', '');
    expect(memo.decode('u/s/a', raw, 'entry a', 's')).not.toBe(a);
  });

  it('stays within its byte bound, dropping the least recently used first; 0 keeps nothing', () => {
    const raw = encodeDirEntry(entry(Array.from({ length: 64 }, (_, i) => `keyword${i}`)));
    const memo = new DecodedEntries(10 * raw.length);
    for (let i = 0; i < 20; i++) memo.decode(`u/s/${i}`, raw, 'e', '');
    expect(memo.bytes).toBeGreaterThan(0);
    expect(memo.bytes).toBeLessThanOrEqual(10 * raw.length);
    // The newest key is kept, the oldest was dropped.
    memo.decode('u/s/19', raw, 'e', '');
    memo.decode('u/s/0', raw, 'e', '');
    expect([memo.hits, memo.misses]).toEqual([1, 21]);
    const off = new DecodedEntries(0);
    off.decode('u/s/a', raw, 'e', '');
    off.decode('u/s/a', raw, 'e', '');
    expect([off.hits, off.misses, off.bytes]).toEqual([0, 2, 0]);
  });

  it('a damaged value throws AKASHIC_CORRUPTION every time and is not remembered', () => {
    const memo = new DecodedEntries(1 << 20);
    const raw = Buffer.from(encodeDirEntry(entry(['tea'])));
    raw[raw.length - 1]! ^= 0xff;
    for (let i = 0; i < 2; i++) {
      const err = (() => {
        try {
          memo.decode('u/s/a', raw, 'entry a', '');
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(AkashicError);
      expect((err as AkashicError).code).toBe('AKASHIC_CORRUPTION');
    }
    expect(memo.bytes).toBe(0);
  });
});

const KINDS = { kinds: new Set(['memory' as const]) };
const BOUNDS = { window: 4, prefilter: 4, keywords: 8 };

describe.each(BACKENDS)('recall candidates with decoded entries reused, on $name', ({ name, make }) => {
  let be: Backend;
  const stores: AkashicStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await be.cleanup();
  });

  const keywordsOf = async (store: AkashicStore, q: string[]): Promise<Map<string, readonly string[]>> => {
    const { candidates } = await gatherCandidates(store, 'u', null, q, BOUNDS, KINDS);
    return new Map(candidates.map((c) => [c.ref.chunkId, c.meta.keywords]));
  };

  it('an update, a delete and a new chunk are seen by the next gathering', async () => {
    be = await make();
    const store = await be.open();
    stores.push(store);
    const put = await store.write(
      'u',
      Array.from({ length: 8 }, (_, i) => ({ op: 'put' as const, sessionId: 's', kind: 'memory' as const, text: text(i), keywords: [`k${i}`, 'tea'], createdAt: 1_000 + i })),
    );
    const before = await keywordsOf(store, ['tea']);
    expect(before.get(put[7]!.chunkId)).toEqual(['k7', 'tea']);
    expect(await keywordsOf(store, ['tea'])).toEqual(before);
    // Gathered at the same version of the user: the same set, and a set gathered again while a write is waiting
    // for its batch is the same too (the write is not acknowledged yet).
    const writing = store.write('u', [{ op: 'update', sessionId: 's', chunkId: put[5]!.chunkId, keywords: ['k5', 'jazz'] }]);
    const during = await keywordsOf(store, ['tea']);
    expect([before, new Map([...before].map(([k, v]) => [k, k === put[5]!.chunkId ? ['k5', 'jazz'] : v]))]).toContainEqual(during);
    await writing;
    expect((await keywordsOf(store, ['tea'])).get(put[5]!.chunkId)).toEqual(['k5', 'jazz']);
    await store.write('u', [
      { op: 'update', sessionId: 's', chunkId: put[7]!.chunkId, keywords: ['k7', 'opera'] },
      { op: 'delete', sessionId: 's', chunkId: put[6]!.chunkId },
      { op: 'put', sessionId: 's', kind: 'memory', text: text(99), keywords: ['k99', 'tea'], createdAt: 2_000 },
    ]);
    const after = await keywordsOf(store, ['tea']);
    expect(after.get(put[7]!.chunkId)).toEqual(['k7', 'opera']);
    expect(after.has(put[6]!.chunkId)).toBe(false);
    expect([...after.values()]).toContainEqual(['k99', 'tea']);
    // A cold reopen empties the memo and reads the same set.
    await store[coldReopen]();
    expect(await keywordsOf(store, ['tea'])).toEqual(after);
  });

  it('an unchanged chunk keeps its candidate object between gatherings; an updated one gets its new version', async () => {
    be = await make();
    const store = await be.open();
    stores.push(store);
    const put = await store.write(
      'u',
      Array.from({ length: 6 }, (_, i) => ({ op: 'put' as const, sessionId: 's', kind: 'memory' as const, text: text(i), keywords: [`k${i}`, 'tea'], createdAt: 1_000 + i })),
    );
    const gather = async (): Promise<Map<string, Candidate>> => new Map((await gatherCandidates(store, 'u', null, ['tea'], BOUNDS, KINDS)).candidates.map((c) => [c.ref.chunkId, c]));
    const first = await gather();
    const second = await gather();
    expect(second.size).toBe(first.size);
    for (const [id, c] of second) expect(c).toBe(first.get(id));
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: put[5]!.chunkId, keywords: ['k5', 'jazz'] }]);
    const third = await gather();
    const updated = third.get(put[5]!.chunkId)!;
    expect(updated.version).toBe(first.get(put[5]!.chunkId)!.version + 1);
    expect(updated.meta.keywords).toEqual(['k5', 'jazz']);
    expect(updated.located?.version).toBe(updated.version);
    // A cold reopen decodes every entry again: new candidates, the same content.
    await store[coldReopen]();
    const cold = await gather();
    expect(cold.get(put[4]!.chunkId)).not.toBe(third.get(put[4]!.chunkId));
    expect(cold.get(put[4]!.chunkId)).toEqual(third.get(put[4]!.chunkId));
  });

  it('a purged and rewritten user gathers only its new chunks', async () => {
    be = await make();
    const store = await be.open();
    stores.push(store);
    const old = await store.write('u', [{ op: 'put', sessionId: 's', kind: 'memory', text: text(1), keywords: ['tea'], createdAt: 1_000 }]);
    expect([...(await keywordsOf(store, ['tea'])).keys()]).toEqual([old[0]!.chunkId]);
    await store.purge({ user: 'u' });
    expect((await keywordsOf(store, ['tea'])).size).toBe(0);
    expect((await keywordsOf(store, ['tea'])).size).toBe(0);
    const fresh = await store.write('u', [{ op: 'put', sessionId: 's', kind: 'memory', text: text(2), keywords: ['jazz'], createdAt: 2_000 }]);
    expect([...(await keywordsOf(store, ['tea'])).entries()]).toEqual([[fresh[0]!.chunkId, ['jazz']]]);
  });

  it.runIf(name === 'redis')('a write by another store over the same backend (another process) is seen at once', async () => {
    be = await make();
    const a = await be.open();
    stores.push(a);
    const put = await a.write('u', [{ op: 'put', sessionId: 's', kind: 'memory', text: text(1), keywords: ['tea'], createdAt: 1_000 }]);
    expect((await keywordsOf(a, ['tea'])).get(put[0]!.chunkId)).toEqual(['tea']);
    const b = await be.open();
    stores.push(b);
    await b.write('u', [{ op: 'update', sessionId: 's', chunkId: put[0]!.chunkId, keywords: ['jazz'] }]);
    expect((await keywordsOf(a, ['jazz'])).get(put[0]!.chunkId)).toEqual(['jazz']);
  });
});

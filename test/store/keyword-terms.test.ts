/**
 * SELECT's terms stored in each directory entry: every write path that sets an entry's keywords stores the terms the
 * embedded model derives from them, under its derivation's version; moves keep them; tombstones drop them; and a
 * recall over entries without them, or with another version's, returns exactly what it returns with them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, type AkashicStore, type RecallResult } from '../../src/index.js';
import { BACKENDS, type Backend } from '../support/backends.js';
import { KEYWORD_TERMS_VERSION, keywordTerms } from '../../src/model/keywords.js';
import { decodeDirEntry, encodeDirEntry, type DirEntry } from '../../src/record/dir-entry.js';
import { coldReopen } from '../../src/engine/internal-seams.js';
import { gatherCandidates } from '../../src/memattention/candidates.js';
import type { ListedChunk } from '../../src/api/results.js';

async function entries(store: AkashicStore, user: string, includeDeleted = false): Promise<Map<string, ListedChunk>> {
  const out = new Map<string, ListedChunk>();
  for await (const e of store.list(user, { includeDeleted })) out.set(e.chunkId, e);
  return out;
}

/** What a store must have kept with a live entry of these keywords. */
function expectedTerms(keywords: readonly string[]): DirEntry['keywordTerms'] {
  return { version: KEYWORD_TERMS_VERSION, terms: [...keywordTerms(keywords)] };
}

function termsOf(e: ListedChunk | undefined): { version: number; terms: string[] } | undefined {
  const t = e?.entry.keywordTerms;
  return t === undefined ? undefined : { version: t.version, terms: [...t.terms] };
}

const FACTS = [
  { text: 'user: I adopted a beagle called Biscuit in March.', keywords: ['adopted', 'beagle', 'biscuit', 'march', 'dogs'] },
  { text: 'user: My sister moved to Lisbon for a teaching job.', keywords: ['sister', 'moved', 'lisbon', 'teaching', 'job'] },
  { text: 'user: We are planning a hiking trip to the Dolomites on 7 July, 2023.', keywords: ['planning', 'hiking', 'trip', 'dolomites', '7 july, 2023'] },
  { text: 'user: I started learning the cello, practicing every evening.', keywords: ['started', 'learning', 'cello', 'practicing', 'evenings'] },
  { text: 'user: The garden tomatoes finally ripened after the heatwave.', keywords: ['garden', 'tomatoes', 'ripened', 'heatwave', 'the'] },
];

describe.each(BACKENDS)('stored keyword terms on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  beforeEach(async () => {
    be = await make();
    store = await be.open();
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('put, write and restore store the terms of the keywords; they survive a reopen', async () => {
    const a = await store.put('u', { sessionId: 's', kind: 'memory', text: FACTS[0]!.text, keywords: FACTS[0]!.keywords });
    const [b] = await store.write('u', [{ op: 'put', sessionId: 's', kind: 'memory', text: FACTS[2]!.text, keywords: FACTS[2]!.keywords }]);
    const none = await store.put('u', { sessionId: 's', kind: 'memory', text: 'no keywords here' });
    const record = (await store.get('u', 's', a.chunkId))!;
    const restored = { ...record, sessionId: 'other', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', keywords: FACTS[4]!.keywords };
    await store.restore('u', [restored]);

    store = await reopen(store, be);
    const got = await entries(store, 'u');
    expect(termsOf(got.get(a.chunkId))).toEqual(expectedTerms(FACTS[0]!.keywords));
    expect(termsOf(got.get(b!.chunkId))).toEqual(expectedTerms(FACTS[2]!.keywords));
    // A date keyword gives its ISO form with its month and year; a stop word gives nothing.
    expect(termsOf(got.get(b!.chunkId))!.terms).toEqual(expect.arrayContaining(['2023-07-07', '2023-07', '2023']));
    expect(termsOf(got.get(restored.chunkId))).toEqual(expectedTerms(FACTS[4]!.keywords));
    expect(termsOf(got.get(restored.chunkId))!.terms).not.toContain('the');
    // No keywords: an empty list of terms, stored (the entry still says it was derived).
    expect(termsOf(got.get(none.chunkId))).toEqual({ version: KEYWORD_TERMS_VERSION, terms: [] });
  });

  it('an update that changes the keywords stores the new terms; one that keeps them keeps the same terms; a delete drops them', async () => {
    const a = await store.put('u', { sessionId: 's', kind: 'memory', text: FACTS[1]!.text, keywords: FACTS[1]!.keywords });
    const b = await store.put('u', { sessionId: 's', kind: 'memory', text: FACTS[3]!.text, keywords: FACTS[3]!.keywords });
    await store.write('u', [
      { op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'user: My sister moved to Porto.', keywords: ['sister', 'moved', 'porto'] },
      { op: 'update', sessionId: 's', chunkId: b.chunkId, text: 'user: I started learning the cello, practicing at weekends.' },
    ]);
    let got = await entries(store, 'u');
    expect(got.get(a.chunkId)!.entry.version).toBe(2);
    expect(termsOf(got.get(a.chunkId))).toEqual(expectedTerms(['sister', 'moved', 'porto']));
    expect(termsOf(got.get(a.chunkId))!.terms).toContain('porto');
    expect(termsOf(got.get(b.chunkId))).toEqual(expectedTerms(FACTS[3]!.keywords));

    await store.write('u', [{ op: 'delete', sessionId: 's', chunkId: a.chunkId }]);
    got = await entries(store, 'u', true);
    expect(got.get(a.chunkId)!.entry.state).toBe('deleted');
    expect(got.get(a.chunkId)!.entry.keywordTerms).toBeUndefined();
  });

  it('relocation moves entries and keeps their terms', async () => {
    await store.close();
    store = await be.open({ blockCapacity: 2 });
    const refs = [];
    for (const f of FACTS) refs.push({ sessionId: 's', chunkId: (await store.put('u', { sessionId: 's', kind: 'memory', text: f.text, keywords: f.keywords })).chunkId });
    const before = await entries(store, 'u');
    const moved = await store.relocate('u', [refs[3]!, refs[0]!]);
    expect(moved.moved).toBe(2);
    const after = await entries(store, 'u');
    for (const r of [refs[3]!, refs[0]!]) {
      expect(after.get(r.chunkId)!.entry.location).not.toEqual(before.get(r.chunkId)!.entry.location);
      expect(termsOf(after.get(r.chunkId))).toEqual(termsOf(before.get(r.chunkId)));
      expect(termsOf(after.get(r.chunkId))).toBeDefined();
    }
  });

  it('GC rewrites the survivors of a mostly-invalid block and keeps their terms', async () => {
    await store.close();
    store = await be.open({ blockCapacity: 4 });
    const refs = [];
    for (let i = 0; i < 8; i++) {
      const f = FACTS[i % FACTS.length]!;
      refs.push({ sessionId: 's', chunkId: (await store.put('u', { sessionId: 's', kind: 'memory', text: `${f.text} (${i})`, keywords: [...f.keywords, `n${i}`] })).chunkId });
    }
    const before = await entries(store, 'u');
    await store.write('u', refs.slice(0, 3).map((r) => ({ op: 'delete' as const, ...r })));
    const report = await store.gc({ threshold: 0.5 });
    expect(report.chunksMoved).toBeGreaterThan(0);
    const after = await entries(store, 'u');
    expect(after.size).toBe(5);
    const survivor = after.get(refs[3]!.chunkId)!;
    expect(survivor.entry.location).not.toEqual(before.get(refs[3]!.chunkId)!.entry.location);
    for (const [id, e] of after) {
      expect(termsOf(e)).toEqual(termsOf(before.get(id)));
      expect(termsOf(e)!.terms).toContain(`n${refs.findIndex((r) => r.chunkId === id)}`);
    }
  });

  it('chunks MemAttention compacts and reconciles carry the terms of their keywords', async () => {
    const memory = new AkashicMemory(store, { relocateEveryRecalls: 0, chunkGateTokens: 40 });
    try {
      for (const f of FACTS) await memory.appendTurn({ user: 'u', session: 's', role: 'user', text: f.text.replace('user: ', '') });
      await memory.appendTurn({ user: 'u', session: 's', role: 'user', text: 'My sister moved from Lisbon to Porto.' });
      await memory.flush();
    } finally {
      await memory.close();
    }
    const got = [...(await entries(store, 'u')).values()];
    expect(got.length).toBeGreaterThan(0);
    for (const e of got) {
      expect(e.entry.keywords.length).toBeGreaterThan(0);
      expect(termsOf(e)).toEqual(expectedTerms(e.entry.keywords));
    }
  });

  it('a recall over entries without terms, or with another version of them, returns the same as with them', async () => {
    for (const f of FACTS) await store.put('u', { sessionId: 's', kind: 'memory', text: f.text, keywords: f.keywords });
    const queries = ['Where did my sister move for work?', 'What instrument am I learning?', 'When is the hiking trip in July 2023?', 'my dog'];
    const recallAll = async (): Promise<unknown[]> => {
      const memory = new AkashicMemory(store, { relocateEveryRecalls: 0 });
      try {
        const out: unknown[] = [];
        for (const query of queries) out.push(shown(await memory.recall({ user: 'u', session: 's', query })));
        return out;
      } finally {
        await memory.close();
      }
    };
    const stored = await recallAll();
    expect(stored.flatMap((r) => (r as { chunks: string[] }).chunks).length).toBeGreaterThan(0);

    // Another version's terms (nonsense under this release) are ignored: the terms are derived again.
    await rewriteEntries(be, store, (e) => ({ ...e, keywordTerms: { version: KEYWORD_TERMS_VERSION + 1, terms: ['zzz'] } }));
    expect(await recallAll()).toEqual(stored);
    // No terms at all (an entry written by an older release): the same.
    await rewriteEntries(be, store, (e) => {
      const { keywordTerms: _t, ...rest } = e;
      return rest;
    });
    expect((await entries(store, 'u')).values().next().value!.entry.keywordTerms).toBeUndefined();
    expect(await recallAll()).toEqual(stored);
  });

  it('SELECT is handed the stored terms under this version only, and only for a whole keyword list', async () => {
    const a = await store.put('u', { sessionId: 's', kind: 'memory', text: FACTS[0]!.text, keywords: FACTS[0]!.keywords });
    const many = Array.from({ length: 70 }, (_, i) => `word${i}`);
    const b = await store.put('u', { sessionId: 's', kind: 'memory', text: 'a long list', keywords: many });
    const metas = async (): Promise<Map<string, readonly string[] | undefined>> => {
      const set = await gatherCandidates(store, 'u', null, ['beagle'], { window: 10, prefilter: 10, keywords: 64 }, { kinds: new Set(['memory']) });
      return new Map(set.candidates.map((c) => [c.ref.chunkId, c.meta.keywordTerms]));
    };
    let got = await metas();
    expect(got.get(a.chunkId)).toEqual(keywordTerms(FACTS[0]!.keywords));
    // 70 keywords, 64 shown: the stored terms are those of all 70, so SELECT derives the prefix's itself.
    expect(got.get(b.chunkId)).toBeUndefined();
    // The stored terms are what SELECT reads (here marked so that they cannot be mistaken for derived ones).
    await rewriteEntries(be, store, (e) => ({ ...e, keywordTerms: { version: KEYWORD_TERMS_VERSION, terms: ['marked'] } }));
    got = await metas();
    expect(got.get(a.chunkId)).toEqual(['marked']);
    await rewriteEntries(be, store, (e) => ({ ...e, keywordTerms: { version: KEYWORD_TERMS_VERSION + 1, terms: ['marked'] } }));
    got = await metas();
    expect(got.get(a.chunkId)).toBeUndefined();
  });
});

/** A store over the same data, every cache of the last one gone. */
async function reopen(store: AkashicStore, be: Backend): Promise<AkashicStore> {
  await store.close();
  return be.reopen();
}

/** Rewrites every stored directory entry through `change`, then empties the store's caches (a cold reopen). */
async function rewriteEntries(be: Backend, store: AkashicStore, change: (e: DirEntry) => DirEntry): Promise<void> {
  const dir = be.raw().dir;
  const rewritten: [string, Buffer][] = [];
  for await (const [key, value] of dir.iterator()) {
    const e = decodeDirEntry(value, key);
    if (e.state === 'live') rewritten.push([key, encodeDirEntry(change(e))]);
  }
  expect(rewritten.length).toBeGreaterThan(0);
  for (const [key, value] of rewritten) await dir.put(key, value);
  await store[coldReopen]();
}

/** What a recall returns that results depend on (not timings or blocks touched). */
function shown(r: RecallResult): unknown {
  return { chunks: r.chunks.map((c) => c.chunkId), text: r.text, tokenCount: r.tokenCount, passages: r.passages, candidates: r.candidates, dropped: r.dropped };
}

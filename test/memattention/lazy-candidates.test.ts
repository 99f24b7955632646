/**
 * Candidates made from lazily decoded directory entries (keywords and stored terms left encoded until read): their
 * views read, spread and serialize as views of eagerly decoded entries, and SELECT ranks them exactly as it ranks
 * the same views with their terms as strings.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/index.js';
import { BACKENDS, type Backend } from '../support/backends.js';
import { coldReopen, trustedCalls } from '../../src/engine/internal-seams.js';
import { gatherCandidates } from '../../src/memattention/candidates.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { encodedTermsOf } from '../../src/model/encoded-terms.js';
import type { ChunkMetaView } from '../../src/model/memory-model.js';
import { parseRefString } from '../../src/api/key-strings.js';

// Keywords as users and models write them: accents, scripts, emoji, a byte-order mark, repeats, dates, stems.
const CHUNKS: readonly (readonly string[])[] = [
  ['café', 'crème', 'brûlée', 'paris', 'running'],
  ['東京', 'ラーメン', 'travel', 'july 2023', 'ran'],
  ['\ufeffbom', 'beagle', 'beagles', 'dogs', 'dog'],
  ['😀', 'emoji', 'party', 'party', 'parties'],
  [],
  ['hiking', 'dolomites', '7 july, 2023', 'trip', 'planning'],
  ['naïve', 'résumé', 'job', 'lisbon', 'teaching'],
  Array.from({ length: 70 }, (_, i) => `word${i % 50}`),
];

const QUERIES = [
  { text: 'Where did I eat crème brûlée?', keywords: ['crème', 'brûlée'] },
  { text: 'What about the dogs and the beagle?', keywords: ['beagle', 'dogs'] },
  { text: 'What happened in July 2023?', keywords: ['july', '2023'] },
  { text: '東京 ラーメン', keywords: ['東京'] },
  { text: 'bom party 😀', keywords: ['\ufeffbom', 'party'] },
  { text: 'teaching job in lisbon, naïve résumé', keywords: [] },
  { text: 'word7 word12', keywords: ['word7'] },
];

describe.each(BACKENDS)('lazily decoded candidates on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  beforeEach(async () => {
    be = await make();
    store = await be.open();
    let at = Date.UTC(2023, 6, 1);
    for (const keywords of CHUNKS) {
      await store.put('u', { sessionId: 's', kind: 'memory', text: `chunk about ${keywords.join(' ')}`, keywords, createdAt: (at += 86_400_000) });
    }
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  const gather = async (bound = 64): Promise<ChunkMetaView[]> =>
    (await gatherCandidates(store, 'u', null, ['beagle', 'café'], { window: 50, prefilter: 10, keywords: bound }, { kinds: new Set(['memory']) })).candidates.map((c) => c.meta);

  it('views read, spread and serialize as eager ones; SELECT ranks them as it ranks their strings', async () => {
    const model = new EmbeddedModel({ denseSignal: false });
    const dense = new EmbeddedModel();
    const listed = new Map<string, readonly string[]>();
    const q = { sessionId: null, filter: null, scope: null, asOf: null, includeDeleted: false, includeExpired: false, includeSuperseded: false };
    for await (const e of store[trustedCalls].list('u', q)) listed.set(e.chunkId, e.entry.keywords);
    for (const round of ['warm', 'cold']) {
      if (round === 'cold') await store[coldReopen]();
      for (const bound of [64, 3]) {
        const metas = await gather(bound);
        expect(metas).toHaveLength(CHUNKS.length);
        // Terms left encoded on every candidate whose whole keyword list is shown.
        expect(metas.filter((m) => encodedTermsOf(m) !== undefined).length).toBe(bound === 64 ? CHUNKS.length - 1 : CHUNKS.filter((k) => k.length <= 3).length);
        const plain = metas.map((m) => ({ ...m }));
        for (const [i, m] of metas.entries()) {
          const all = listed.get(parseRefString(m.id).chunkId);
          expect(all).toBeDefined();
          expect([...m.keywords]).toEqual(all!.slice(0, bound));
          expect(JSON.stringify(m)).toBe(JSON.stringify(plain[i]));
          expect(Object.keys(m)).toEqual(Object.keys(plain[i]!));
          expect(encodedTermsOf(plain[i]!)).toBeUndefined();
        }
        for (const query of QUERIES) {
          for (const topP of [1, 3, 8]) {
            // Fresh lazy views each time, so the byte-wise first sight is what is compared.
            const fresh = round === 'cold' ? await (async () => { await store[coldReopen](); return gather(bound); })() : metas;
            expect(await model.select(query, fresh, topP)).toEqual(await model.select(query, plain, topP));
            expect(await dense.select(query, fresh, topP)).toEqual(await dense.select(query, plain, topP));
          }
        }
      }
    }
    // Some query matches lexically (the comparison is not between empty rankings).
    expect((await model.select(QUERIES[0]!, await gather(), 3)).length).toBeGreaterThan(0);
  });
});

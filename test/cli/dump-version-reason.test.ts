import { describe, expect, it } from 'vitest';
import { MemoryLevel } from 'memory-level';
import { parseVersionLine, versionLine } from '../../src/admin/dump-format.js';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import type { ChunkRecord } from '../../src/record/chunk-record.js';

const record: ChunkRecord = {
  userId: 'u', sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', version: 1, createdAt: 1, updatedAt: 2, tokenCount: 3,
  kind: 'memory', text: 'Bob: I work at Acme.', keywords: [], attributes: {}, payload: null, supersedes: [], provenance: [],
};
const reason = 'retired "Bob: I work at Acme." — employer of Bob (self): "Acme" → "Globex"';

describe("a superseded version's reason in dumps", () => {
  it('is written only when present and read back exactly', () => {
    const plain = { record, validFrom: 2, validUntil: 9, cause: 'update' as const, supersededBy: null };
    expect(versionLine(plain)).not.toContain('"reason"');
    expect(parseVersionLine(versionLine(plain))).toEqual(plain);
    const withWhy = { ...plain, supersededBy: { sessionId: 's2', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAW' }, reason };
    expect(parseVersionLine(versionLine(withWhy))).toEqual(withWhy);
    expect(() => parseVersionLine(versionLine(plain).replace('"supersededBy":null,', '"supersededBy":null,"reason":7,'))).toThrow(/"reason" must be a string/);
  });

  it('survives restoreHistory and reads back in history()', async () => {
    const store = await AkashicStore.open({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }), gc: { intervalMs: 0 } });
    try {
      await store.restore('u', [{ ...record, version: 2, text: 'Bob: …', updatedAt: 9 }]);
      await store.restoreHistory('u', [{ record, validFrom: 2, validUntil: 9, cause: 'update', supersededBy: null, reason }]);
      const h = await store.history('u', 's', record.chunkId);
      expect(h.map((v) => [v.version, v.reason])).toEqual([[2, undefined], [1, reason]]);
      await expect(store.restoreHistory('u', [{ record, validFrom: 2, validUntil: 9, cause: 'update', supersededBy: null, reason: 5 as unknown as string }])).rejects.toThrow(/reason/);
    } finally {
      await store.close();
    }
  });
});

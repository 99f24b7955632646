/**
 * Directory keys a damaged or foreign database may hold: scans always progress (users() on a key without a
 * separator used to loop forever), and verify() names keys whose parts are not what the engine writes (a
 * tombstone whose chunk id is not a ULID used to pass).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryLevel } from 'memory-level';
import { ClassicLevel } from 'classic-level';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AkashicStore } from '../../src/index.js';
import { decodeDirEntry, encodeDirEntry } from '../../src/record/dir-entry.js';
import { CF, SEP } from '../../src/store/kv/keys.js';
import type { Family } from '../../src/store/kv/column-families.js';
import type { AnyLevel } from '../../src/api/store-options.js';

const DBS: readonly { name: string; make(): Promise<{ db: AnyLevel; cleanup(): Promise<void> }> }[] = [
  {
    name: 'classic-level',
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'akashic-dirkeys-'));
      return { db: new ClassicLevel(join(dir, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' }) as unknown as AnyLevel, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  { name: 'memory-level', make: async () => ({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }) as unknown as AnyLevel, cleanup: async () => undefined }) },
];

describe.each(DBS)('damaged directory keys on $name', ({ make }) => {
  let store: AkashicStore;
  let cleanup: () => Promise<void>;
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  async function setup(): Promise<{ dir: Family; tombstone: Buffer; chunkId: string }> {
    const made = await make();
    cleanup = made.cleanup;
    store = await AkashicStore.open({ db: made.db, gc: { intervalMs: 0 }, durability: 'relaxed' });
    const { chunkId } = await store.put('alice', { sessionId: 's', text: 'kept' });
    const gone = await store.put('bob', { sessionId: 's', text: 'deleted' });
    await store.write('bob', [{ op: 'delete', sessionId: 's', chunkId: gone.chunkId }]);
    const dir: Family = made.db.sublevel<string, Buffer>(CF.dir, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const tombstone = (await dir.get(['bob', 's', gone.chunkId].join(SEP)))!;
    expect(decodeDirEntry(tombstone, 'test').state).toBe('deleted');
    return { dir, tombstone, chunkId };
  }

  it('users() progresses past a key without a separator and still lists every user', async () => {
    const { dir, tombstone } = await setup();
    await dir.put('amber', tombstone); // sorts between alice and bob; no separator at all
    await dir.put('zzz', tombstone);
    const users = await Promise.race([store.users(), new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), 5000))]);
    expect(users).toEqual(['alice', 'bob']);
    const report = await store.verify();
    expect(report.problems.map((p) => p.key)).toEqual(expect.arrayContaining(['amber', 'zzz']));
  });

  it('verify() names a tombstone whose chunk id is not a ULID, and one with an empty session', async () => {
    const { dir, tombstone } = await setup();
    const bad = ['bob', 's', 'not-a-ulid'].join(SEP);
    const empty = ['bob', '', '01ARZ3NDEKTSV4RRFFQ69G5FAV'].join(SEP);
    await dir.put(bad, encodeDirEntry(decodeDirEntry(tombstone, 'test')));
    await dir.put(empty, tombstone);
    const report = await store.verify();
    expect(report.ok).toBe(false);
    expect(report.problems.filter((p) => p.kind === 'directory-entry').map((p) => p.key)).toEqual(expect.arrayContaining([bad, empty]));
    expect(await store.sessions('bob')).toEqual(['s']);
  });
});

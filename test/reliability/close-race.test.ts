/**
 * Calls racing close(): each either completes or fails with AKASHIC_NOT_OPEN — never with an I/O error about a
 * closed iterator or database (appendTurn racing close() used to fail with AKASHIC_IO "Iterator is not open").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AkashicMemory, AkashicStore, EmbeddedModel } from '../../src/index.js';
import { storageError } from '../../src/store/kv/level-errors.js';

describe('calls racing close()', () => {
  it('an iteration cut short by close() fails with AKASHIC_NOT_OPEN', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-close-race-'));
    try {
      const store = await AkashicStore.open({ path: join(dir, 'db'), gc: { intervalMs: 0 }, durability: 'relaxed' });
      for (let i = 0; i < 300; i++) await store.put('u', { sessionId: 's', text: `chunk ${i}` });
      const listing = store.list('u');
      await listing.next();
      await store.close();
      let failure: unknown = null;
      try {
        for (;;) if ((await listing.next()).done === true) break;
      } catch (err) {
        failure = err;
      }
      // Either the iteration had already buffered everything (done) or it failed as not open.
      if (failure !== null) expect(failure).toMatchObject({ name: 'AkashicError', code: 'AKASHIC_NOT_OPEN' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('MemAttention maps a closed iterator to AKASHIC_NOT_OPEN', () => {
    const closed = Object.assign(new Error('Iterator is not open: cannot call next() after close()'), { code: 'LEVEL_ITERATOR_NOT_OPEN' });
    expect(storageError(closed)).toMatchObject({ name: 'AkashicError', code: 'AKASHIC_NOT_OPEN' });
  });

  it('appendTurn, recall and put racing close() settle as done or AKASHIC_NOT_OPEN', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'akashic-close-race-'));
    const codes = new Map<string, number>();
    try {
      for (let round = 0; round < 8; round++) {
        const store = await AkashicStore.open({ path: join(dir, `db${round}`), gc: { intervalMs: 0 }, durability: 'relaxed' });
        const memory = new AkashicMemory(store, { model: new EmbeddedModel() });
        const calls: Promise<unknown>[] = [];
        for (let i = 0; i < 4; i++) {
          calls.push(memory.appendTurn({ user: 'u', session: `s${i}`, role: 'user', text: `turn ${i}` }));
          calls.push(memory.recall({ user: 'u', session: 's', query: 'race' }));
          calls.push(store.put('u', { sessionId: 's', text: `chunk ${i}` }));
        }
        await new Promise((resolve) => setTimeout(resolve, round % 4));
        const closing = store.close();
        for (const r of await Promise.allSettled(calls)) {
          const code = r.status === 'fulfilled' ? 'ok' : String((r.reason as { code?: unknown }).code);
          codes.set(code, (codes.get(code) ?? 0) + 1);
        }
        await closing;
        await memory.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect([...codes.keys()].filter((c) => c !== 'ok' && c !== 'AKASHIC_NOT_OPEN')).toEqual([]);
  });
});

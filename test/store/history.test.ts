import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicError, AkashicMemory, type AkashicStore, type AkashicStoreOptions } from '../../src/index.js';
import { BACKENDS, type Backend } from '../support/backends.js';

async function listed(store: AkashicStore, user: string, opts: Parameters<AkashicStore['list']>[1] = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.list(user, opts)) out.push(`${e.chunkId.slice(-4)}@${e.entry.version}${e.superseded === undefined ? '' : `~${e.superseded.cause}`}`);
  return out;
}

describe.each(BACKENDS)('history and as-of reads on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  let clock = 1_000_000;
  const now = (): number => clock;
  const open = async (o: Partial<AkashicStoreOptions> = {}): Promise<AkashicStore> => be.open({ now, blockCapacity: 4, ...o });
  beforeEach(async () => {
    clock = 1_000_000;
    be = await make();
    store = await open();
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('keeps every superseded version, newest first, with who superseded it, across a reopen', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'lives in Paris', attributes: { city: 'paris' } });
    const other = await store.put('u', { sessionId: 'other', text: 'moved to Berlin' });
    clock += 100;
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'lives in Berlin', attributes: { city: 'berlin' }, supersededBy: { sessionId: 'other', chunkId: other.chunkId } }]);
    clock += 100;
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'lives in Lisbon' }]);
    await store.close();
    store = await open();
    const h = await store.history('u', 's', a.chunkId);
    expect(h.map((v) => [v.version, v.record.text, v.validFrom, v.validUntil, v.cause])).toEqual([
      [3, 'lives in Lisbon', 1_000_200, null, null],
      [2, 'lives in Berlin', 1_000_100, 1_000_200, 'update'],
      [1, 'lives in Paris', 1_000_000, 1_000_100, 'update'],
    ]);
    // The superseding chunk is named by its full ref: its session differs from the superseded chunk's.
    expect(h[2]!.supersededBy).toEqual({ userId: 'u', sessionId: 'other', chunkId: other.chunkId });
    expect(h[1]!.supersededBy).toBeNull();
    const s = await store.stats();
    expect(s.historyVersions).toBe(2);
    expect(s.historyBytes).toBeGreaterThan(0);
    // Kept versions count as space: SA is above what the blocks alone give.
    expect(s.spaceAmplification!).toBeGreaterThan(s.storedRawBytes / s.liveBytes);
    expect((await store.verify()).ok).toBe(true);
  });

  it('reads as of a time: get, getMany and list return the version current then', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'v1', attributes: { n: '1' } });
    clock += 10;
    const b = await store.put('u', { sessionId: 's', text: 'b only later' });
    clock += 10;
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'v2', attributes: { n: '2' } }]);
    clock += 10;
    await store.write('u', [{ op: 'delete', sessionId: 's', chunkId: b.chunkId }]);
    clock += 10;
    expect((await store.get('u', 's', a.chunkId, { asOf: 1_000_005 }))!.text).toBe('v1');
    expect((await store.get('u', 's', a.chunkId, { asOf: 1_000_020 }))!.text).toBe('v2');
    expect(await store.get('u', 's', a.chunkId, { asOf: 999_999 })).toBeNull();
    expect((await store.get('u', 's', b.chunkId, { asOf: 1_000_025 }))!.text).toBe('b only later');
    expect(await store.get('u', 's', b.chunkId)).toBeNull();
    expect(await store.get('u', 's', b.chunkId, { asOf: 1_000_030 })).toBeNull();
    const many = await store.getMany('u', [{ sessionId: 's', chunkId: a.chunkId }, { sessionId: 's', chunkId: b.chunkId }], { asOf: 1_000_015 });
    expect(many.chunks.map((c) => c?.text ?? null)).toEqual(['v1', 'b only later']);
    const A = a.chunkId.slice(-4);
    const B = b.chunkId.slice(-4);
    expect(await listed(store, 'u', { asOf: 1_000_015 })).toEqual([`${A}@1`, `${B}@1`]);
    expect(await listed(store, 'u', { asOf: 1_000_035 })).toEqual([`${A}@2`]);
    expect(await listed(store, 'u')).toEqual([`${A}@2`]);
    // Filters apply to the version of that time.
    expect(await listed(store, 'u', { asOf: 1_000_015, filter: { attributes: { n: '1' } } })).toEqual([`${A}@1`]);
    expect(await listed(store, 'u', { includeSuperseded: true })).toEqual([`${A}@2`, `${A}@1~update`, `${B}@1~delete`]);
  });

  it('recall: current facts by default, the memory as of a time, and superseded versions marked on request', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'Alice lives in Paris', keywords: ['alice', 'lives', 'paris'] });
    clock += 100;
    const n = await store.put('u', { sessionId: 's', text: 'Alice moved to Berlin', keywords: ['alice', 'moved', 'berlin'] });
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'Alice lives in Berlin', keywords: ['alice', 'lives', 'berlin'], supersededBy: n.chunkId }]);
    clock += 100;
    const memory = new AkashicMemory(store, { chunkGateTokens: 100_000, relocateEveryRecalls: 0 });
    try {
      const ask = { user: 'u', session: 's', query: 'where does Alice live?', topP: 8, memoryBudgetTokens: 10_000 } as const;
      const now = await memory.recall(ask);
      expect(now.chunks.map((c) => c.text).sort()).toEqual(['Alice lives in Berlin', 'Alice moved to Berlin']);
      expect(now.chunks.every((c) => c.superseded === undefined)).toBe(true);
      const then = await memory.recall({ ...ask, asOf: 1_000_050 });
      expect(then.chunks.map((c) => c.text)).toEqual(['Alice lives in Paris']);
      const all = await memory.recall({ ...ask, includeSuperseded: true });
      const old = all.chunks.filter((c) => c.superseded !== undefined);
      expect(old.map((c) => [c.text, c.superseded!.cause, c.superseded!.by])).toEqual([['Alice lives in Paris', 'update', { sessionId: 's', chunkId: n.chunkId }]]);
      expect(all.chunks.length).toBe(3);
      const h = await memory.history({ user: 'u', session: 's', chunkId: a.chunkId });
      expect(h.map((v) => v.record.text)).toEqual(['Alice lives in Berlin', 'Alice lives in Paris']);
      await expect(memory.recall({ ...ask, asOf: Number.NaN })).rejects.toSatisfy((e: unknown) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
      await expect(memory.recall({ ...ask, agentId: [] })).rejects.toSatisfy((e: unknown) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
    } finally {
      await memory.close();
    }
  });

  it('retention keeps at most `versions` per chunk, and GC drops versions past the age limit', async () => {
    await store.close();
    store = await open({ history: { versions: 2, maxAgeMs: 1000 } });
    const a = await store.put('u', { sessionId: 's', text: 't0' });
    for (let i = 1; i <= 4; i++) {
      clock += 100;
      await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: `t${i}` }]);
    }
    expect((await store.history('u', 's', a.chunkId)).map((v) => v.record.text)).toEqual(['t4', 't3', 't2']);
    expect((await store.stats()).historyVersions).toBe(2);
    clock += 1000; // t2's end (1_000_300) and t3's end (1_000_400) are now more than 1000 ms old
    clock -= 50;
    await store.gc();
    expect((await store.history('u', 's', a.chunkId)).map((v) => v.record.text)).toEqual(['t4', 't3']);
    clock += 100;
    await store.gc();
    expect((await store.history('u', 's', a.chunkId)).map((v) => v.record.text)).toEqual(['t4']);
    const s = await store.stats();
    expect([s.historyVersions, s.historyBytes]).toEqual([0, 0]);
    expect((await store.verify()).ok).toBe(true);
  });

  it('keeps nothing with history off; an expired chunk goes with its history; purge erases history', async () => {
    await store.close();
    store = await open({ history: false });
    const a = await store.put('u', { sessionId: 's', text: 'one' });
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'two' }]);
    expect((await store.history('u', 's', a.chunkId)).length).toBe(1);
    await store.close();
    store = await open();
    const b = await store.put('u', { sessionId: 's', text: 'short lived', ttlMs: 100 });
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: b.chunkId, text: 'short lived 2' }]);
    expect((await store.history('u', 's', b.chunkId)).length).toBe(2);
    clock += 200;
    expect(await store.history('u', 's', b.chunkId)).toEqual([]);
    await store.sweepExpired();
    expect((await store.stats()).historyVersions).toBe(0);
    const c = await store.put('u', { sessionId: 's2', text: 'purge me' });
    await store.write('u', [{ op: 'update', sessionId: 's2', chunkId: c.chunkId, text: 'purge me too' }]);
    expect((await store.stats()).historyVersions).toBe(1);
    await store.purge({ user: 'u', session: 's2' });
    expect(await store.history('u', 's2', c.chunkId)).toEqual([]);
    expect((await store.stats()).historyVersions).toBe(0);
    expect((await store.verify()).ok).toBe(true);
  });

  it('verify cross-checks the expiry index and the history against the directory', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'expiring', ttlMs: 10_000 });
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'expiring, edited' }]);
    expect((await store.verify()).ok).toBe(true);
    const raw = be.raw();
    const ttlKeys: string[] = [];
    for await (const k of raw.expiry.keys()) ttlKeys.push(k);
    expect(ttlKeys.length).toBe(1);
    await raw.expiry.del(ttlKeys[0]!);
    expect((await store.verify()).problems.map((p) => p.kind)).toEqual(['expiry-index']);
    await raw.expiry.put(ttlKeys[0]!, Buffer.from(await (async () => {
      for await (const [, v] of raw.history.iterator({ gte: 't', limit: 1 })) return v;
      throw new Error('no age entry');
    })()));
    const ages: string[] = [];
    for await (const k of raw.history.keys({ gte: 't' })) ages.push(k);
    await raw.history.del(ages[0]!);
    expect((await store.verify()).problems.map((p) => p.kind)).toEqual(['history']);
  });

  it('rejects bad arguments with a typed error and changes nothing', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'x' });
    const before = await store.stats();
    const bad: (() => Promise<unknown>)[] = [
      () => store.get('u', 's', a.chunkId, { asOf: Number.NaN }),
      () => store.getMany('u', [{ sessionId: 's', chunkId: a.chunkId }], { asOf: 'yesterday' as unknown as number }),
      () => store.history('u', 's', 'not-a-ulid'),
      () => store.list('u', { asOf: Infinity }).next(),
      () => store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'y', supersededBy: 'nope' }]),
      () => store.write('u', [{ op: 'put', sessionId: 's', text: 'y', supersedes: [{ userId: 'other', sessionId: 's', chunkId: a.chunkId }] }]),
      () => store.write('u', [{ op: 'put', sessionId: 's', text: 'y', supersedes: [{ sessionId: 's' } as never] }]),
    ];
    for (const f of bad) await expect(f()).rejects.toSatisfy((e: unknown) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
    const after = await store.stats();
    expect(after.chunks).toBe(before.chunks);
    expect(after.logicalBytesIngested).toBe(before.logicalBytesIngested);
    expect((await store.get('u', 's', a.chunkId))!.version).toBe(1);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, AkashicStore, type AkashicStore as Store } from '../../src/index.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

async function listAll(store: Store, user: string, opts: { sessionId?: string; includeDeleted?: boolean } = {}) {
  const out = [];
  for await (const e of store.list(user, opts)) out.push(e);
  return out;
}

/** Puts `n` chunks per session, deletes and updates some, and records co-access between sessions. */
async function populate(store: Store, user: string, sessions: readonly string[], n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    for (const s of sessions) await store.put(user, { sessionId: s, text: `${user} ${s} ${text(i)}`, keywords: [`${user}-kw${i}`] });
  }
  for (const s of sessions) {
    const entries = await listAll(store, user, { sessionId: s });
    await store.write(user, [{ op: 'delete', sessionId: s, chunkId: entries[0]!.chunkId }]);
    await store.write(user, [{ op: 'update', sessionId: s, chunkId: entries[1]!.chunkId, text: `${user} ${s} updated` }]);
  }
  const refs = [];
  for (const s of sessions) refs.push(...(await listAll(store, user, { sessionId: s })).slice(0, 2).map((e) => ({ sessionId: s, chunkId: e.chunkId })));
  await store.recordCoAccess(user, refs);
}

describe.each(BACKENDS)('purge on $name', ({ make }) => {
  let be: Backend;
  let store: Store;
  beforeEach(async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('erases a whole user and leaves others untouched', async () => {
    await populate(store, 'alice', ['s1', 's2'], 6);
    await populate(store, 'bob', ['s1'], 6);
    const bobBefore = await listAll(store, 'bob', { includeDeleted: true });
    const r = await store.purge({ user: 'alice' });
    expect(r.chunks).toBe(10);
    expect(r.tombstones).toBe(2);
    expect(r.coAccessEntries).toBeGreaterThan(0);
    expect(r.blockInfosDeleted).toBeGreaterThan(0);
    expect(await store.users()).toEqual(['bob']);
    expect(await listAll(store, 'alice', { includeDeleted: true })).toEqual([]);
    const blocks = [];
    for await (const b of store.blocks({ userId: 'alice', includeReleased: true })) blocks.push(b);
    expect(blocks).toEqual([]);
    expect((await store.coAccess('alice')).accesses.size).toBe(0);
    expect(await listAll(store, 'bob', { includeDeleted: true })).toEqual(bobBefore);
    const bobLive = (await listAll(store, 'bob')).map((e) => ({ sessionId: e.sessionId, chunkId: e.chunkId }));
    expect((await store.getMany('bob', bobLive)).chunks.every((c) => c !== null)).toBe(true);
    const v = await store.verify();
    expect(v.problems).toEqual([]);
  });

  it('erases one session, rewriting shared blocks without it', async () => {
    await populate(store, 'alice', ['s1', 's2', 's3'], 5);
    const s2Before = await listAll(store, 'alice', { sessionId: 's2' });
    const r = await store.purge({ user: 'alice', session: 's1' });
    expect(r.sessionId).toBe('s1');
    expect(r.chunks).toBe(4);
    expect(r.tombstones).toBe(1);
    expect(r.blocksRewritten).toBeGreaterThan(0);
    expect(r.recordsMoved).toBeGreaterThan(0);
    expect(await store.sessions('alice')).toEqual(['s2', 's3']);
    const s2After = await listAll(store, 'alice', { sessionId: 's2' });
    expect(s2After.map((e) => [e.chunkId, e.entry.version])).toEqual(s2Before.map((e) => [e.chunkId, e.entry.version]));
    const got = await store.getMany('alice', s2After.map((e) => ({ sessionId: 's2', chunkId: e.chunkId })));
    expect(got.chunks.every((c) => c !== null && c.text.startsWith('alice s2'))).toBe(true);
    const co = await store.coAccess('alice');
    for (const k of [...co.accesses.keys(), ...co.pairs.keys()]) expect(k.split('\u0000')).not.toContain('s1');
    expect(co.accesses.size).toBeGreaterThan(0);
    // No block of the user still holds a record of s1, live or dead.
    for await (const b of store.blocks({ userId: 'alice' })) expect(b.sessionId).not.toBe('s1');
    expect((await store.verify()).problems).toEqual([]);
    // The store keeps working: new writes to the purged session and GC.
    await store.put('alice', { sessionId: 's1', text: 'fresh start' });
    await store.gc({ threshold: 0.01 });
    expect((await store.verify()).problems).toEqual([]);
  });

  it('erases active turns through AkashicMemory', async () => {
    const memory = new AkashicMemory(store, { chunkGateTokens: 100_000 });
    await memory.appendTurn({ user: 'alice', session: 's1', role: 'user', text: 'my secret is 1234' });
    await memory.appendTurn({ user: 'alice', session: 's2', role: 'user', text: 'other session' });
    const r = await memory.purge({ user: 'alice', session: 's1' });
    expect(r.activeTurns).toBe(1);
    expect(await memory.activeTurns({ user: 'alice', session: 's1' })).toEqual([]);
    expect((await memory.activeTurns({ user: 'alice', session: 's2' })).length).toBe(1);
    expect((await memory.purge({ user: 'alice' })).activeTurns).toBe(1);
    await memory.close();
  });

  it('rejects a bad scope with a typed error and changes nothing', async () => {
    await populate(store, 'alice', ['s1'], 3);
    const before = await listAll(store, 'alice', { includeDeleted: true });
    for (const bad of [null, {}, { user: '' }, { user: 'a\u0000b' }, { user: 'alice', session: 5 }, { user: 'alice', session: '' }]) {
      await expect(store.purge(bad as never)).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    }
    expect(await listAll(store, 'alice', { includeDeleted: true })).toEqual(before);
    const r = await store.purge({ user: 'nobody' });
    expect(r.chunks).toBe(0);
  });
});

/** Every file under `dir` (frame files in its subdirectory included), read whole. */
async function filesOf(dir: string): Promise<{ name: string; bytes: Buffer }[]> {
  const out: { name: string; bytes: Buffer }[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await filesOf(join(dir, e.name))).map((f) => ({ name: `${e.name}/${f.name}`, bytes: f.bytes })));
    else out.push({ name: e.name, bytes: await readFile(join(dir, e.name)) });
  }
  return out;
}

function holders(files: readonly { name: string; bytes: Buffer }[], marker: Buffer): string[] {
  return files.filter((f) => f.bytes.includes(marker)).map((f) => f.name);
}

describe('purge leaves no byte of the scope in any file (classic-level)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-purge-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['user', { user: 'alice' }],
    ['session', { user: 'alice', session: 's1' }],
  ] as const)('%s purge', async (_name, scope) => {
    const path = join(dir, 'db');
    // Markers are random (incompressible) so they appear verbatim where they are stored: in the write-ahead log,
    // in table files, in keywords of directory entries and in zstd frames (stored raw when incompressible).
    const mark = (): string => randomBytes(24).toString('hex');
    const gone: Buffer[] = [];
    const kept: Buffer[] = [];
    let store = await AkashicStore.open({ path, gc: { intervalMs: 0 }, blockCapacity: 4 });
    let memory = new AkashicMemory(store, { chunkGateTokens: 100_000 });
    for (let round = 0; round < 3; round++) {
      for (const [user, session] of [['alice', 's1'], ['alice', 's2'], ['bob', 's1']] as const) {
        const m = mark();
        const erased = user === 'alice' && ('session' in scope ? session === scope.session : true);
        (erased ? gone : kept).push(Buffer.from(m));
        const { chunkId } = await store.put(user, { sessionId: session, text: `note ${m} ${randomBytes(64).toString('base64')}`, keywords: [m], payload: randomBytes(256) });
        if (round === 1) {
          const m2 = mark();
          (erased ? gone : kept).push(Buffer.from(m2));
          await store.write(user, [{ op: 'update', sessionId: session, chunkId, text: `changed ${m2}`, keywords: [m2] }]);
        }
        if (round === 2) await store.write(user, [{ op: 'delete', sessionId: session, chunkId }]);
        const t = mark();
        (erased ? gone : kept).push(Buffer.from(t));
        await memory.appendTurn({ user, session, role: 'user', text: `turn ${t}` });
      }
      // Push some of it through table files and compaction of older levels too.
      if (round === 0) {
        await memory.close();
        await store.close();
        store = await AkashicStore.open({ path, gc: { intervalMs: 0 }, blockCapacity: 4 });
        memory = new AkashicMemory(store, { chunkGateTokens: 100_000 });
      }
    }
    await store.gc({ threshold: 0.01 });
    // Positive control: the scan finds the markers before the purge.
    const before = await filesOf(path);
    expect(gone.filter((m) => holders(before, m).length > 0).length).toBeGreaterThan(gone.length / 2);
    const report = await memory.purge(scope);
    await memory.close();
    expect((await store.verify()).problems).toEqual([]);
    await store.close();
    const after = await filesOf(path);
    const found = gone.map((m) => ({ m: m.toString(), in: holders(after, m) })).filter((x) => x.in.length > 0);
    expect(found).toEqual([]);
    expect(report.compacted).toBe(true);
    // What others wrote is still there (and still found by the same scan where it is stored verbatim).
    expect(kept.filter((m) => holders(after, m).length > 0).length).toBeGreaterThan(0);
    store = await AkashicStore.open({ path, gc: { intervalMs: 0 } });
    expect((await store.verify()).problems).toEqual([]);
    await store.close();
  });
});

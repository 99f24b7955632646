/**
 * Bad input, property-based (fast-check): whatever a caller passes — invalid or separator-laden ids, empty and
 * huge texts, oversized payloads, lone UTF-16 surrogates, wrong types from plain-JS callers — the public API
 * either accepts it or rejects it with AkashicError AKASHIC_INVALID_ARGUMENT (NOT_FOUND / CONFLICT for
 * well-formed references to chunks that are not there), and a rejected call leaves the stored state exactly as
 * it was (stats and every chunk of every user, compared before and after).
 *
 * Cases tried per property are printed at the end of the run (and recorded in docs/reliability.md).
 */
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicStore, LIMITS, MAX_ID_BYTES, isAkashicError, type ChunkRecord } from '../../src/index.js';
import { AkashicMemory } from '../../src/memattention/index.js';
import { snapshotStore, type StoreSnapshot } from './helpers.js';

const RUNS = { ids: 400, separators: 150, content: 400, plainJs: 500, options: 200, memory: 300 } as const;
const tried: Record<string, number> = {};
const count = (name: string): void => {
  tried[name] = (tried[name] ?? 0) + 1;
};

/** Calls `f` (which may throw synchronously or reject) and returns what it threw, or `ok` with its value. */
async function outcome(f: () => unknown): Promise<{ ok: true; value: unknown } | { ok: false; err: unknown }> {
  try {
    return { ok: true, value: await f() };
  } catch (err) {
    return { ok: false, err };
  }
}

function describeErr(err: unknown): string {
  return err instanceof Error ? `${err.name} ${(err as { code?: string }).code ?? ''}: ${err.message}` : String(err);
}

// ---- arbitraries -----------------------------------------------------------------------------------------------

const ULID = '01HZZZZZZZZZZZZZZZZZZZZZZZ';
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** Strings that are not acceptable user or session ids. */
const badIdString = fc.oneof(
  fc.constant(''),
  fc.tuple(fc.string(), fc.constantFrom('\u0000', '\u0001', '\n', '\r', '\t', '\u001b', '\u001f', '\u007f'), fc.string()).map(([a, c, b]) => a + c + b),
  fc.tuple(fc.string(), loneSurrogate, fc.string()).map(([a, c, b]) => a + c + b),
  fc.integer({ min: MAX_ID_BYTES + 1, max: 3000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: Math.floor(MAX_ID_BYTES / 3) + 1, max: 400 }).map((n) => '€'.repeat(n)),
);
/** Values a plain-JS caller might pass where a string belongs. */
const notAString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt(),
  fc.constant(Symbol('id')),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
  fc.constant(() => 'id'),
  fc.constant(new String('alice')),
  fc.constant(Object.create(null) as object),
);
const badId = fc.oneof(badIdString, notAString);
const badChunkId = fc.oneof(
  badId,
  fc.constant(ULID.toLowerCase()),
  fc.constant(ULID.slice(1)),
  fc.constant(ULID + '0'),
  fc.constantFrom('I', 'L', 'O', 'U', '!', '\u0000').map((c) => ULID.slice(0, 25) + c),
  fc.string({ minLength: 26, maxLength: 26 }).filter((s) => !/^[0-9A-HJKMNP-TV-Z]{26}$/.test(s)),
);

const BIG_TEXT = 'x'.repeat(LIMITS.textBytes + 1);
const BIG_MULTIBYTE = '€'.repeat(Math.floor(LIMITS.textBytes / 3) + 1);
const BIG_PAYLOAD = new Uint8Array(LIMITS.payloadBytes + 1);

/** One invalid field of a chunk's content (merged over a valid content). */
const badContent: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constant({ text: BIG_TEXT }),
  fc.constant({ text: BIG_MULTIBYTE }),
  fc.tuple(fc.string(), loneSurrogate).map(([a, s]) => ({ text: a + s })),
  notAString.map((text) => ({ text })),
  fc.constant({ payload: BIG_PAYLOAD }),
  fc.oneof(fc.string(), fc.array(fc.nat(255), { maxLength: 4 }), fc.constant(new ArrayBuffer(4)), fc.constant(new Int8Array(2)), fc.constant(new Uint8ClampedArray(2)), fc.constant(new DataView(new ArrayBuffer(2))), fc.integer()).map((payload) => ({ payload })),
  fc.constant({ keywords: Array.from({ length: LIMITS.keywords + 1 }, (_, i) => `k${i}`) }),
  fc.constant({ keywords: ['k'.repeat(LIMITS.keywordBytes + 1)] }),
  loneSurrogate.map((s) => ({ keywords: ['ok', `bad${s}`] })),
  fc.oneof(fc.string(), fc.constant([1, 2]), fc.constant(null), fc.constant({ 0: 'a' })).map((keywords) => ({ keywords })),
  fc.constant({ attributes: Object.fromEntries(Array.from({ length: LIMITS.attributes + 1 }, (_, i) => [`a${i}`, 'v'])) }),
  fc.constant({ attributes: { ['k'.repeat(LIMITS.attributeKeyBytes + 1)]: 'v' } }),
  fc.constant({ attributes: { k: 'v'.repeat(LIMITS.attributeValueBytes + 1) } }),
  loneSurrogate.map((s) => ({ attributes: { [`key${s}`]: 'v' } })),
  fc.oneof(fc.constant(null), fc.constant(['a']), fc.constant('a=b'), fc.constant({ k: 5 }), fc.constant({ k: null })).map((attributes) => ({ attributes })),
  fc.constantFrom(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 32, '5', null).map((tokenCount) => ({ tokenCount })),
  fc.constantFrom('bogus', 'Memory', 5, null, '').map((kind) => ({ kind })),
  fc.constant({ provenance: Array.from({ length: LIMITS.provenance + 1 }, (_, i) => `t${i}`) }),
  fc.oneof(fc.constant(['t'.repeat(LIMITS.keywordBytes + 1)]), fc.constant([7]), fc.constant('t1')).map((provenance) => ({ provenance })),
  badChunkId.map((id) => ({ supersedes: [id] })),
);

// ---- the store under test --------------------------------------------------------------------------------------

let store: AkashicStore;
let memory: AkashicMemory;
let live: { sessionId: string; chunkId: string }[];
let record: ChunkRecord;

beforeAll(async () => {
  store = await AkashicStore.open({ db: new MemoryLevel(), gc: { intervalMs: 0, threshold: 0.2 }, blockCapacity: 4 });
  const rs = await store.write('alice', Array.from({ length: 9 }, (_, i) => ({ op: 'put' as const, sessionId: `s${i % 2}`, text: `alice fact ${i}`, keywords: ['tea'] })));
  await store.write('bob', [{ op: 'put', sessionId: 's0', text: 'bob fact', payload: new Uint8Array([1, 2, 3]) }]);
  await store.write('alice', [{ op: 'delete', sessionId: rs[0]!.sessionId, chunkId: rs[0]!.chunkId }]);
  await store.write('alice', [{ op: 'update', sessionId: rs[1]!.sessionId, chunkId: rs[1]!.chunkId, text: 'alice changed' }]);
  live = rs.slice(1).map((r) => ({ sessionId: r.sessionId, chunkId: r.chunkId }));
  await store.relocate('alice', live.slice(0, 3));
  await store.recordCoAccess('alice', live.slice(0, 2));
  await store.gc();
  memory = new AkashicMemory(store, { chunkGateTokens: 100_000 });
  await memory.appendTurn({ user: 'alice', session: 's0', role: 'user', text: 'an active turn' });
  record = (await store.get('alice', live[2]!.sessionId, live[2]!.chunkId))!;
});

afterAll(async () => {
  console.log(`bad-input cases tried per property: ${JSON.stringify(tried)}`);
  await memory.close();
  await store.close();
});

/** Runs `call`; it must reject with INVALID_ARGUMENT and leave the store as `before`. */
async function expectRejected(name: string, before: StoreSnapshot, call: () => unknown): Promise<void> {
  count(name);
  const o = await outcome(call);
  if (o.ok) throw new Error(`${name}: accepted input that should have been rejected`);
  if (!isAkashicError(o.err, 'AKASHIC_INVALID_ARGUMENT')) throw new Error(`${name}: rejected with ${describeErr(o.err)}, not AKASHIC_INVALID_ARGUMENT`);
  expect(await snapshotStore(store)).toEqual(before);
}

describe('bad input (property-based)', () => {
  it('invalid user, session and chunk ids are rejected by every call, and change nothing', async () => {
    const before = await snapshotStore(store);
    const ref = (): { sessionId: string; chunkId: string } => live[3]!;
    const calls: [string, (bad: unknown, badChunk: unknown) => unknown][] = [
      ['put user', (b) => store.put(b as string, { sessionId: 's0', text: 't' })],
      ['put session', (b) => store.put('alice', { sessionId: b as string, text: 't' })],
      ['put chunkId', (_, c) => store.put('alice', { sessionId: 's0', chunkId: c as string, text: 't' })],
      ['write user', (b) => store.write(b as string, [{ op: 'put', sessionId: 's0', text: 't' }])],
      ['write: one bad op among good ones', (b) => store.write('alice', [{ op: 'put', sessionId: 's0', text: 'good' }, { op: 'update', sessionId: b as string, chunkId: ref().chunkId, text: 'x' }])],
      ['write delete chunkId', (_, c) => store.write('alice', [{ op: 'delete', sessionId: 's0', chunkId: c as string }])],
      ['get user', (b) => store.get(b as string, ref().sessionId, ref().chunkId)],
      ['get session', (b) => store.get('alice', b as string, ref().chunkId)],
      ['get chunkId', (_, c) => store.get('alice', 's0', c as string)],
      ['getMany ref', (b) => store.getMany('alice', [ref(), { sessionId: b as string, chunkId: ref().chunkId }])],
      ['relocate user', (b) => store.relocate(b as string, [ref(), live[4]!])],
      ['relocate ref', (_, c) => store.relocate('alice', [ref(), { sessionId: 's0', chunkId: c as string }])],
      ['restore user', (b) => store.restore(b as string, [{ ...record, version: record.version + 1 }])],
      ['restore session', (b) => store.restore('alice', [{ ...record, sessionId: b as string, version: record.version + 1 }])],
      ['restore chunkId', (_, c) => store.restore('alice', [{ ...record, chunkId: c as string, version: record.version + 1 }])],
      ['list user', (b) => store.list(b as string).next()],
      ['list session', (b) => store.list('alice', { sessionId: b as string }).next()],
      ['sessions', (b) => store.sessions(b as string)],
      ['recordCoAccess user', (b) => store.recordCoAccess(b as string, [ref(), live[4]!])],
      ['coAccess ref', (_, c) => store.coAccess('alice', [{ sessionId: 's0', chunkId: c as string }])],
      ['gc userId', (b) => store.gc({ userId: b as string })],
      ['blocks userId', (b) => store.blocks({ userId: b as string }).next()],
      ['put supersedes', (_, c) => store.put('alice', { sessionId: 's0', text: 't', supersedes: [c as string] })],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...calls), badId, badChunkId, async ([name, call], bad, badChunk) => {
        await expectRejected(`ids: ${name}`, before, () => call(bad, badChunk));
      }),
      { numRuns: RUNS.ids },
    );
  });

  it('ids full of separators and unusual characters work and never collide with other ids', async () => {
    // Valid ids: any well-formed string without control characters, at most 256 UTF-8 bytes. Sublevel and key
    // separators ('!', U+0000's neighbours), U+FFFF, astral characters and prefixes of other ids included.
    const idChars = fc.oneof(fc.constantFrom('!', '/', ':', '\\', '"', '%', ' ', '\uffff', '\ufffe', '😀', '\u{10ffff}', 'é', 'a', 'dir', 'blk', '!dir!'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }));
    const validId = fc
      .array(idChars, { minLength: 1, maxLength: 8 })
      .map((parts) => parts.join(''))
      .filter((s) => s.isWellFormed() && !/[\u0000-\u001f\u007f]/.test(s) && Buffer.byteLength(s) <= MAX_ID_BYTES);
    const local = await AkashicStore.open({ db: new MemoryLevel(), gc: { intervalMs: 0 }, blockCapacity: 4 });
    try {
      await fc.assert(
        fc.asyncProperty(validId, validId, fc.string(), async (user, session, text) => {
          count('separators: round trip and isolation');
          const other = user + '!';
          const mine = await local.put(user, { sessionId: session, text });
          const theirs = await local.put(other, { sessionId: session, text: 'theirs' });
          expect((await local.get(user, session, mine.chunkId))?.text).toBe(text);
          expect(await local.get(other, session, mine.chunkId)).toBeNull();
          expect(await local.get(user, session, theirs.chunkId)).toBeNull();
          const listed: string[] = [];
          for await (const e of local.list(user)) listed.push(`${e.userId}|${e.sessionId}|${e.chunkId}`);
          expect(listed).toContain(`${user}|${session}|${mine.chunkId}`);
          expect(listed.every((l) => l.startsWith(`${user}|`))).toBe(true);
          expect(await local.sessions(user)).toContain(session);
          const users = await local.users();
          expect(new Set(users).size).toBe(users.length);
          expect(users).toEqual(expect.arrayContaining([user, other]));
        }),
        { numRuns: RUNS.separators },
      );
      expect(await local.verify()).toMatchObject({ ok: true });
    } finally {
      await local.close();
    }
  });

  it('invalid content (huge, lone surrogates, oversized payloads, wrong types) is rejected whole by put, write, update and restore', async () => {
    const before = await snapshotStore(store);
    const paths: [string, (bad: Record<string, unknown>) => unknown][] = [
      ['put', (bad) => store.put('alice', { sessionId: 's1', text: 'valid', ...bad } as never)],
      ['write: valid put + bad put', (bad) => store.write('alice', [{ op: 'put', sessionId: 's1', text: 'valid' }, { op: 'put', sessionId: 's1', text: 'valid', ...bad } as never])],
      ['update', (bad) => store.write('alice', [{ op: 'update', ...live[5]!, ...bad } as never])],
      ['restore', (bad) => store.restore('alice', [{ ...record, version: record.version + 7, ...bad } as never])],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), badContent, async ([name, call], bad) => {
        await expectRejected(`content: ${name}`, before, () => call(bad));
      }),
      { numRuns: RUNS.content },
    );
    // Restore-only fields.
    for (const bad of [{ version: 0 }, { version: -1 }, { version: 1.5 }, { version: Number.NaN }, { version: '2' }, { createdAt: Number.NaN }, { updatedAt: Number.POSITIVE_INFINITY }, { createdAt: '2024' }]) {
      await expectRejected('content: restore fields', before, () => store.restore('alice', [{ ...record, version: record.version + 7, ...bad } as never]));
    }
    for (const createdAt of [-1, Number.NaN, Number.POSITIVE_INFINITY, '2024', null]) {
      await expectRejected('content: put createdAt', before, () => store.put('alice', { sessionId: 's1', text: 't', createdAt } as never));
    }
  });

  it('wrong types from plain-JS callers: accepted, or a typed error that changes nothing', async () => {
    const junk = fc.anything({ maxDepth: 2, maxKeys: 4, withBigInt: true, withNullPrototype: true, withTypedArray: true, withSparseArray: true });
    const user = fc.oneof(fc.constant('carol'), junk);
    const opish = fc.record(
      {
        op: fc.oneof(fc.constantFrom('put', 'update', 'delete', 'restore', 'PUT'), junk),
        sessionId: fc.oneof(fc.constant('s0'), junk),
        chunkId: fc.oneof(fc.constant(ULID), junk),
        text: fc.oneof(fc.string(), junk),
        expectVersion: fc.oneof(fc.constant(1), junk),
      },
      { requiredKeys: [] },
    );
    const arg = fc.oneof(junk, opish, fc.array(fc.oneof(opish, junk), { maxLength: 3 }));
    const calls: [string, (a: unknown, b: unknown) => unknown][] = [
      ['put', (a, b) => store.put(a as string, b as never)],
      ['write', (a, b) => store.write(a as string, b as never)],
      ['get', (a, b) => store.get(a as string, b as string, ULID)],
      ['getMany', (a, b) => store.getMany(a as string, b as never)],
      ['relocate', (a, b) => store.relocate(a as string, b as never)],
      ['restore', (a, b) => store.restore(a as string, b as never)],
      ['list', (a, b) => store.list(a as string, b as never).next()],
      ['sessions', (a) => store.sessions(a as string)],
      ['recordCoAccess', (a, b) => store.recordCoAccess(a as string, b as never)],
      ['coAccess', (a, b) => store.coAccess(a as string, b as never)],
      ['gc', (_, b) => store.gc(b as never)],
      ['blocks', (_, b) => store.blocks(b as never).next()],
      ['verify', (_, b) => store.verify(b as never)],
    ];
    let before = await snapshotStore(store);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...calls), user, arg, async ([name, call], a, b) => {
        count('plain-JS: wrong types');
        const o = await outcome(() => call(a, b));
        if (o.ok) {
          before = await snapshotStore(store); // by chance a valid call: it may change the state
          return;
        }
        const ok = isAkashicError(o.err) && ['AKASHIC_INVALID_ARGUMENT', 'AKASHIC_NOT_FOUND', 'AKASHIC_CONFLICT'].includes(o.err.code);
        if (!ok) throw new Error(`${name}(${String(a)}, ${JSON.stringify(b, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}) threw ${describeErr(o.err)}`);
        expect(await snapshotStore(store)).toEqual(before);
      }),
      { numRuns: RUNS.plainJs },
    );
    await expect(store.verify()).resolves.toMatchObject({ ok: true });
  });

  it('open options from plain-JS callers: the store opens, or AKASHIC_INVALID_ARGUMENT names the option', async () => {
    const junk = fc.anything({ maxDepth: 1, maxKeys: 3, withBigInt: true, withNullPrototype: true });
    const int = fc.oneof(fc.integer({ min: -5, max: 70_000 }), junk);
    const options = fc.record(
      {
        blockCapacity: int,
        blockMaxBytes: int,
        cacheBytes: int,
        zstdLevel: int,
        crossSessionBlocks: fc.oneof(fc.boolean(), junk),
        readOnly: fc.oneof(fc.constant(false), junk),
        durability: fc.oneof(fc.constantFrom('sync', 'relaxed', 'SYNC'), junk),
        now: fc.oneof(fc.constant(() => 1_700_000_000_000), junk),
        affinity: junk,
        gc: fc.oneof(fc.record({ threshold: fc.oneof(fc.double(), junk), intervalMs: fc.oneof(fc.constant(0), int), maxBlocksPerPass: int, threads: int }, { requiredKeys: [] }), junk),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(options, async (o) => {
        count('open options');
        const gc = o.gc !== null && typeof o.gc === 'object' ? { ...o.gc, intervalMs: 0 } : o.gc;
        const r = await outcome(() => AkashicStore.open({ ...(o as object), gc, db: new MemoryLevel() } as never));
        if (r.ok) {
          const s = r.value as AkashicStore;
          await s.put('u', { sessionId: 's', text: 'works' }).catch((err: unknown) => {
            // A store opened read-only refuses writes, typed.
            if (!isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT')) throw err;
          });
          await s.close();
          return;
        }
        // A new database opened read-only cannot be created: AKASHIC_NOT_FOUND, also typed.
        const expected = o.readOnly === true ? ['AKASHIC_INVALID_ARGUMENT', 'AKASHIC_NOT_FOUND'] : ['AKASHIC_INVALID_ARGUMENT'];
        if (!isAkashicError(r.err) || !expected.includes(r.err.code)) throw new Error(`open threw ${describeErr(r.err)}`);
      }),
      { numRuns: RUNS.options },
    );
  });

  it('MemAttention: invalid namespaces, turns and recall arguments are rejected and change nothing', async () => {
    const before = await snapshotStore(store);
    const badShort = fc.oneof(fc.constant(''), notAString, fc.constant('r'.repeat(LIMITS.keywordBytes + 1)), fc.tuple(fc.string(), loneSurrogate).map(([a, c]) => a + c));
    const badText = fc.oneof(notAString, fc.constant(BIG_TEXT), fc.tuple(fc.string(), loneSurrogate).map(([a, c]) => a + c));
    const badInt = fc.constantFrom(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e9, '5', null);
    const calls: [string, fc.Arbitrary<unknown>, (bad: unknown) => unknown][] = [
      ['appendTurn user', badId, (b) => memory.appendTurn({ user: b as string, session: 's0', role: 'user', text: 'x' })],
      ['appendTurn session', badId, (b) => memory.appendTurn({ user: 'alice', session: b as string, role: 'user', text: 'x' })],
      ['appendTurn role', badShort, (b) => memory.appendTurn({ user: 'alice', session: 's0', role: b as string, text: 'x' })],
      ['appendTurn text', badText, (b) => memory.appendTurn({ user: 'alice', session: 's0', role: 'user', text: b as string })],
      ['appendTurn turnId', badShort, (b) => memory.appendTurn({ user: 'alice', session: 's0', role: 'user', text: 'x', turnId: b as string })],
      ['appendTurn at', fc.constantFrom(-1, Number.NaN, Number.POSITIVE_INFINITY, '2024', null), (b) => memory.appendTurn({ user: 'alice', session: 's0', role: 'user', text: 'x', at: b as number })],
      ['completeRequest: one bad turn among good ones', badText, (b) => memory.completeRequest({ user: 'alice', session: 's0', turns: [{ role: 'user', text: 'good' }, { role: 'assistant', text: b as string }] })],
      ['completeRequest turns', fc.oneof(notAString.filter((v) => !Array.isArray(v)), fc.constant([null]), fc.constant(Array.from({ length: 1025 }, () => ({ role: 'user', text: 'x' })))), (b) => memory.completeRequest({ user: 'alice', session: 's0', turns: b as never })],
      ['endSession', badId, (b) => memory.endSession({ user: 'alice', session: b as string })],
      ['recall user', badId, (b) => memory.recall({ user: b as string, session: 's0', query: 'tea' })],
      ['recall query', badText, (b) => memory.recall({ user: 'alice', session: 's0', query: b as string })],
      ['recall topP', fc.oneof(badInt, fc.constantFrom(0, 65)), (b) => memory.recall({ user: 'alice', session: 's0', query: 'tea', topP: b as number })],
      ['recall budget', fc.oneof(badInt.filter((v) => v !== 1e9), fc.constant(1e8)), (b) => memory.recall({ user: 'alice', session: 's0', query: 'tea', memoryBudgetTokens: b as number })],
      ['recall scope', fc.constantFrom('sessions', '', 5, null, 'USER'), (b) => memory.recall({ user: 'alice', session: 's0', query: 'tea', scope: b as never })],
      ['activeTurns', fc.oneof(fc.constant(null), notAString, badId.map((user) => ({ user, session: 's0' }))), (b) => memory.activeTurns(b as never)],
    ];
    const call = fc.oneof(...calls.map(([name, arb, f]) => arb.map((b) => ({ name, f, b }))));
    await fc.assert(
      fc.asyncProperty(call, async ({ name, f, b }) => {
        await expectRejected(`memory: ${name}`, before, () => f(b));
      }),
      { numRuns: RUNS.memory },
    );
  });

  // Bugs of the MemAttention layer found by the properties above, now fixed.
  it('MemAttention: an option value String() cannot print is rejected typed', async () => {
    const before = await snapshotStore(store);
    await expectRejected('memory: null-prototype topP', before, () => memory.recall({ user: 'alice', session: 's0', query: 'tea', topP: Object.create(null) as number }));
  });

  it('MemAttention: a sparse turns array is rejected typed', async () => {
    const before = await snapshotStore(store);
    // eslint-disable-next-line no-sparse-arrays
    await expectRejected('memory: sparse turns', before, () => memory.completeRequest({ user: 'alice', session: 's0', turns: [, { role: 'user', text: 'x' }] as never }));
  });

  it('empty, maximal and astral contents are accepted and read back exactly', async () => {
    const astral = '😀𝄞\u{10ffff}é\uffff';
    const cases: Record<string, unknown>[] = [
      { text: '' },
      { text: 'x'.repeat(LIMITS.textBytes) },
      { text: astral.repeat(100), keywords: [astral], attributes: { [astral]: astral } },
      { text: 't', payload: new Uint8Array(LIMITS.payloadBytes) },
      { text: 't', payload: new Uint8Array(0) },
      { text: 't', keywords: Array.from({ length: LIMITS.keywords }, (_, i) => `k${i}`) },
      { text: 't', attributes: Object.fromEntries(Array.from({ length: LIMITS.attributes }, (_, i) => [`a${i}`, 'v'.repeat(100)])) },
      // A JSON-parsed `__proto__` key is an ordinary attribute: kept as data, never a prototype.
      { text: 't', attributes: JSON.parse('{"__proto__":"polluted","constructor":"x"}') as Record<string, string> },
    ];
    for (const c of cases) {
      count('valid edge contents');
      const r = await store.put('dave', { sessionId: 's', ...c } as never);
      const got = (await store.get('dave', 's', r.chunkId))!;
      expect(got.text).toBe(c['text']);
      if (c['payload'] !== undefined) expect(Buffer.from(got.payload!).equals(Buffer.from(c['payload'] as Uint8Array))).toBe(true);
      if (c['keywords'] !== undefined) expect(got.keywords).toEqual(c['keywords']);
      if (c['attributes'] !== undefined) {
        // Attributes are stored sorted by key (docs/format.md).
        expect(Object.entries(got.attributes)).toEqual(Object.entries(c['attributes'] as object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
        expect(Object.getPrototypeOf(got.attributes)).toBe(Object.prototype);
      }
    }
    expect(await store.verify()).toMatchObject({ ok: true });
  });
});

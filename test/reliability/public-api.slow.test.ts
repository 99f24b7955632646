/**
 * Every public entry point, property-based, ≥ 10,000 calls: AkashicStore (put, write, restore, get, getMany,
 * history, keptVersions, restoreHistory, locate, getManyBySlot, list, users, sessions, sweepExpired, relocate,
 * recordCoAccess, coAccess, gc, purge, stats, verify, blocks) and AkashicMemory (appendTurn, completeRequest, endSession, endOtherSessions,
 * activeTurns, recall, purge). Arguments mix well-formed values (ids that exist, ids that do not, separator-laden
 * ids) with hostile ones (wrong types, lone surrogates, oversized values, `fc.anything()`).
 *
 * For every call:
 * - it settles within CALL_BOUND_MS (no hang, no runaway work);
 * - it either succeeds or rejects with an AkashicError whose code is one of the stable codes (never a TypeError,
 *   never an untyped error);
 * - a rejected call changes nothing: a digest of the state (every key and value of the database) is the same
 *   before and after;
 * - a read that succeeds changes nothing either; a put that succeeds can be read back.
 */
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicStore, isAkashicError } from '../../src/index.js';
import { AkashicMemory } from '../../src/memattention/index.js';
import { loadOfflineWordVectors } from '../../src/model/word-vectors.js';

const CASES = Number(process.env.PUBLIC_API_CASES ?? 10_500);
const CALL_BOUND_MS = 5_000;
const STABLE_CODES = new Set(['AKASHIC_INVALID_ARGUMENT', 'AKASHIC_NOT_FOUND', 'AKASHIC_CONFLICT', 'AKASHIC_MODEL']);

interface Call {
  readonly name: string;
  readonly kind: 'read' | 'write';
  readonly run: () => Promise<unknown>;
  /** After a success: a check of the contract, returning an error message or null. */
  readonly check?: (value: unknown) => Promise<string | null>;
}

let dir: string;
let level: MemoryLevel<string, Uint8Array>;
let store: AkashicStore;
let memory: AkashicMemory;
const ids: { user: string; session: string; chunk: string }[] = [];
const tally: Record<string, { ok: number; rejected: number }> = {};

/**
 * The state, as one hash: every key and value of the database (one batched read of the whole MemoryLevel). It
 * holds the directory entries with their state and version, the active turns, the records, blocks, history, the
 * candidate index and the accounting, which is written in the same batch as each change it counts (the retrieval
 * counters that reads bump in memory are persisted only at close). A superset of what the public listings show
 * (`stats()` is derived from it), at a fraction of their cost: one read instead of one scan per user and a stats pass.
 */
async function digest(): Promise<string> {
  const hash = createHash('sha256');
  for (const [k, v] of await level.iterator({ keyEncoding: 'utf8', valueEncoding: 'view' }).all()) hash.update(k).update('\u0000').update(v).update('\u0000');
  return hash.digest('hex');
}

async function drain(it: AsyncIterable<unknown>, max = 500): Promise<number> {
  let n = 0;
  for await (const _ of it) if (++n >= max) break;
  return n;
}

// ---- arbitraries -----------------------------------------------------------------------------------------------

const ULID = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/).map((s) => `0${s.slice(1)}`);
const hostile = fc.oneof(
  fc.anything(),
  fc.constantFrom('', '\u0000', 'a\u0000b', '\ud800', 'x'.repeat(300), '😀', '!dir!', 'a\uffff', null, undefined, NaN, -1, 2 ** 32, [], {}, Object.create(null) as object),
);
const user = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('alice', 'bob', 'carol', 'a!', 'a\uffff', '😀') }, { weight: 1, arbitrary: hostile });
const session = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('s0', 's1', 's/2', 'ses😀') }, { weight: 1, arbitrary: hostile });
/** An existing chunk's ref when there is one, else a fresh ULID, else something hostile. */
const chunkRef = fc.oneof(
  { weight: 4, arbitrary: fc.nat().map((i) => (ids.length === 0 ? null : ids[i % ids.length]!)) },
  { weight: 2, arbitrary: ULID.map((chunk) => ({ user: 'alice', session: 's0', chunk })) },
  { weight: 1, arbitrary: hostile.map((chunk) => ({ user: 'alice', session: 's0', chunk: chunk as string })) },
);
const text = fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength: 200 }) }, { weight: 1, arbitrary: fc.constantFrom('\ud800x', 'y'.repeat(1024 * 1024 + 1)) }, { weight: 1, arbitrary: hostile });
const attributes = fc.oneof(
  fc.constant(undefined),
  fc.constant(JSON.parse('{"__proto__":"p","constructor":"c"}') as Record<string, string>),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 4 }),
  hostile,
);
const content = fc.record(
  {
    sessionId: session,
    text,
    kind: fc.oneof(fc.constantFrom('memory', 'note', 'turn', 'summary'), hostile),
    keywords: fc.oneof(fc.array(fc.string({ maxLength: 12 }), { maxLength: 6 }), hostile),
    attributes,
    tokenCount: fc.oneof(fc.nat(1000), hostile),
    ttlMs: fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), hostile),
  },
  { requiredKeys: ['sessionId', 'text'] },
);
const version = fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 2 ** 32, -1, 1.5), hostile);

function refOf(r: { user: string; session: string; chunk: string } | null): { sessionId: string; chunkId: string } {
  return r === null ? { sessionId: 's0', chunkId: '01HZZZZZZZZZZZZZZZZZZZZZZZ' } : { sessionId: r.session, chunkId: r.chunk };
}

const call: fc.Arbitrary<Call> = fc.oneof(
  fc.tuple(user, content).map(([u, c]): Call => ({
    name: 'put',
    kind: 'write',
    run: () => store.put(u as string, c as never),
    check: async (v) => {
      const r = v as { sessionId: string; chunkId: string };
      ids.push({ user: u as string, session: r.sessionId, chunk: r.chunkId });
      const got = await store.get(u as string, r.sessionId, r.chunkId);
      if (got?.text === c.text) return null;
      // A chunk put with a TTL of a few seconds may expire before the get that follows it: not found is then right.
      if (got == null && typeof c.ttlMs === 'number' && c.ttlMs <= 2 * CALL_BOUND_MS) return null;
      return `put then get returned ${JSON.stringify(got?.text)?.slice(0, 60)}`;
    },
  })),
  fc.tuple(user, fc.array(fc.oneof(content.map((c) => ({ op: 'put', ...c })), chunkRef.map((r) => ({ op: 'delete', ...refOf(r) })), fc.tuple(chunkRef, text).map(([r, t]) => ({ op: 'update', ...refOf(r), text: t })), hostile), { maxLength: 5 })).map(
    ([u, ops]): Call => ({ name: 'write', kind: 'write', run: () => store.write(u as string, ops as never) }),
  ),
  fc.tuple(chunkRef, text, fc.option(version, { nil: undefined })).map(([r, t, v]): Call => ({
    name: 'update',
    kind: 'write',
    run: () => store.write(r?.user ?? 'alice', [{ op: 'update', ...refOf(r), text: t as string, ...(v === undefined ? {} : { expectVersion: v as number }) }]),
  })),
  fc.tuple(user, fc.oneof(fc.array(hostile, { maxLength: 3 }), hostile)).map(([u, recs]): Call => ({ name: 'restore', kind: 'write', run: () => store.restore(u as string, recs as never) })),
  chunkRef.map((r): Call => ({ name: 'get', kind: 'read', run: () => store.get(r?.user ?? 'alice', refOf(r).sessionId, refOf(r).chunkId) })),
  fc.tuple(user, fc.oneof(fc.array(chunkRef.map(refOf), { maxLength: 6 }), hostile)).map(([u, refs]): Call => ({ name: 'getMany', kind: 'read', run: () => store.getMany(u as string, refs as never) })),
  fc.tuple(user, chunkRef).map(([u, r]): Call => ({ name: 'history', kind: 'read', run: () => store.history(u as string, refOf(r).sessionId, refOf(r).chunkId) })),
  fc.tuple(user, fc.oneof(fc.array(fc.tuple(chunkRef, version).map(([r, v]) => ({ ...refOf(r), version: v })), { maxLength: 3 }), hostile)).map(([u, refs]): Call => ({ name: 'keptVersions', kind: 'read', run: () => store.keptVersions(u as string, refs as never) })),
  fc.tuple(user, fc.oneof(fc.record({ sessionId: session, includeDeleted: fc.boolean(), limit: fc.oneof(fc.nat(50), hostile) }, { requiredKeys: [] }), hostile)).map(([u, o]): Call => ({ name: 'list', kind: 'read', run: () => drain(store.list(u as string, o as never)) })),
  fc.constant<Call>({ name: 'users', kind: 'read', run: () => store.users() }),
  user.map((u): Call => ({ name: 'sessions', kind: 'read', run: () => store.sessions(u as string) })),
  fc.oneof(fc.record({ max: fc.oneof(fc.nat(10), hostile) }, { requiredKeys: [] }), hostile).map((o): Call => ({ name: 'sweepExpired', kind: 'write', run: () => store.sweepExpired(o as never) })),
  fc.tuple(user, fc.oneof(fc.array(chunkRef.map(refOf), { maxLength: 4 }), hostile)).map(([u, refs]): Call => ({ name: 'relocate', kind: 'write', run: () => store.relocate(u as string, refs as never) })),
  fc.tuple(user, fc.oneof(fc.array(chunkRef.map(refOf), { maxLength: 70 }), hostile)).map(([u, refs]): Call => ({ name: 'recordCoAccess', kind: 'write', run: () => store.recordCoAccess(u as string, refs as never) })),
  fc.tuple(user, fc.oneof(fc.array(chunkRef.map(refOf), { maxLength: 70 }), hostile)).map(([u, refs]): Call => ({ name: 'coAccess', kind: 'read', run: () => store.coAccess(u as string, refs as never) })),
  fc.oneof(fc.record({ threshold: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), hostile), maxBlocks: fc.oneof(fc.nat(8), hostile) }, { requiredKeys: [] }), hostile).map((o): Call => ({ name: 'gc', kind: 'write', run: () => store.gc(o as never) })),
  fc.oneof(fc.record({ user: fc.constantFrom('zed', 'yan'), session: fc.option(session, { nil: undefined }) }, { requiredKeys: ['user'] }), hostile).map((s): Call => ({ name: 'purge', kind: 'write', run: () => store.purge(s as never) })),
  fc.constant<Call>({ name: 'stats', kind: 'read', run: () => store.stats() }),
  fc.oneof(fc.constant(undefined), hostile).map((p): Call => ({ name: 'verify', kind: 'read', run: () => store.verify(p as never), check: async (v) => ((v as { ok: boolean }).ok ? null : 'verify() found problems') })),
  fc.oneof(fc.record({ userId: user, includeReleased: fc.boolean() }, { requiredKeys: [] }), hostile).map((o): Call => ({ name: 'blocks', kind: 'read', run: () => drain(store.blocks(o as never)) })),
  // MemAttention
  fc.tuple(user, session, fc.oneof(fc.constantFrom('user', 'assistant'), hostile), text).map(([u, s, role, t]): Call => ({
    name: 'appendTurn',
    kind: 'write',
    run: () => memory.appendTurn({ user: u as string, session: s as string, role: role as string, text: t as string }),
  })),
  fc.tuple(user, session, fc.oneof(fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), text: fc.string({ maxLength: 40 }) }), { maxLength: 3 }), hostile), fc.boolean()).map(([u, s, turns, wb]): Call => ({
    name: 'completeRequest',
    kind: 'write',
    run: () => memory.completeRequest({ user: u as string, session: s as string, turns: turns as never, enableWriteback: wb }),
  })),
  fc.tuple(user, session).map(([u, s]): Call => ({ name: 'endSession', kind: 'write', run: () => memory.endSession({ user: u as string, session: s as string }) })),
  fc.tuple(user, session).map(([u, s]): Call => ({ name: 'endOtherSessions', kind: 'write', run: () => memory.endOtherSessions({ user: u as string, session: s as string }) })),
  fc.tuple(user, session).map(([u, s]): Call => ({ name: 'activeTurns', kind: 'read', run: () => memory.activeTurns({ user: u as string, session: s as string }) })),
  fc.tuple(user, session, fc.oneof(fc.string({ maxLength: 60 }), hostile), fc.oneof(fc.constant(undefined), fc.integer({ min: -5, max: 4096 }), hostile)).map(([u, s, q, budget]): Call => ({
    name: 'recall',
    // Recall records co-access and may relocate: a successful recall may write.
    kind: 'write',
    run: () => memory.recall({ user: u as string, session: s as string, query: q as string, ...(budget === undefined ? {} : { budget: budget as number }) }),
  })),
  // locate → getManyBySlot as recall uses them, or hostile locations.
  fc.tuple(user, fc.oneof(fc.array(chunkRef.map(refOf), { maxLength: 4 }), hostile)).map(([u, refs]): Call => ({ name: 'locate', kind: 'read', run: () => store.locate(u as string, refs as never) })),
  fc.tuple(user, fc.oneof(fc.array(chunkRef.map(refOf), { maxLength: 4 }).map((refs) => ({ refs })), fc.array(hostile, { maxLength: 2 }), hostile)).map(([u, arg]): Call => ({
    name: 'getManyBySlot',
    kind: 'read',
    run: async () => {
      const refs = arg !== null && typeof arg === 'object' && !Array.isArray(arg) ? (arg as { refs?: unknown }).refs : undefined;
      if (!Array.isArray(refs)) return store.getManyBySlot(u as string, arg as never);
      const found = await store.locate(u as string, refs as never).catch(() => null);
      const located = (found ?? []).flatMap((l) => (l === null ? [] : [l]));
      return store.getManyBySlot(u as string, located);
    },
  })),
  // restoreHistory with what history() returns for a chunk's ended versions (dump/load's path), or hostile versions.
  fc.tuple(user, chunkRef, fc.oneof(fc.constant(null), fc.array(hostile, { maxLength: 2 }), hostile)).map(([u, r, bad]): Call => ({
    name: 'restoreHistory',
    kind: 'write',
    run: async () => {
      if (bad !== null) return store.restoreHistory(u as string, bad as never);
      const { sessionId, chunkId } = refOf(r);
      const ended = (await store.history(u as string, sessionId, chunkId).catch(() => [])).filter((v) => v.cause !== null);
      return store.restoreHistory(u as string, ended.map((v) => ({ record: v.record, validFrom: v.validFrom, validUntil: v.validUntil!, cause: v.cause!, supersededBy: v.supersededBy })));
    },
  })),
  fc.oneof(fc.record({ user: fc.constantFrom('zed', 'yan'), session: fc.option(session, { nil: undefined }) }, { requiredKeys: ['user'] }), hostile).map((s): Call => ({ name: 'memory.purge', kind: 'write', run: () => memory.purge(s as never) })),
);

async function bounded<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took more than ${CALL_BOUND_MS} ms`)), CALL_BOUND_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe('every public entry point, property-based', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-publicapi-'));
    // memory-level, the reference backend: the same engine code above the abstract-level seam, at a speed that
    // lets 10,000 calls and their state digests finish in about a minute.
    level = new MemoryLevel<string, Uint8Array>();
    store = await AkashicStore.open({ db: level, gc: { intervalMs: 0 }, blockCapacity: 4 });
    // Relocation runs inside the recall that asks for it (relocateSync): a background relocation finishing between
    // two digests would be charged to whatever call ran in between.
    memory = new AkashicMemory(store, { chunkGateTokens: 200, relocateSync: true });
    // The per-call bound is for the call's own work: the embedded model's word vectors (a one-off load per process,
    // seconds on a loaded machine) are loaded before the first recall is timed.
    await loadOfflineWordVectors();
    for (const u of ['alice', 'bob', 'a!']) {
      const rs = await store.write(u, Array.from({ length: 6 }, (_, i) => ({ op: 'put' as const, sessionId: `s${i % 2}`, text: `${u} seed ${i} lisbon coffee`, keywords: ['lisbon'] })));
      for (const r of rs) ids.push({ user: u, session: r.sessionId, chunk: r.chunkId });
    }
  }, 60_000);

  afterAll(async () => {
    console.log(
      `public API property test: ${Object.values(tally).reduce((n, t) => n + t.ok + t.rejected, 0)} calls\n` +
        Object.entries(tally)
          .sort()
          .map(([k, t]) => `  ${k}: ${t.ok} accepted, ${t.rejected} rejected`)
          .join('\n'),
    );
    await memory?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(`${CASES} calls: typed errors with stable codes, rejected calls change nothing, reads change nothing, bounded time`, async () => {
    let current: string | null = null;
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        current ??= await digest();
        let value: unknown;
        let err: unknown = null;
        try {
          value = await bounded(Promise.resolve().then(c.run), c.name);
        } catch (e) {
          err = e;
        }
        const t = (tally[c.name] ??= { ok: 0, rejected: 0 });
        if (err !== null) {
          t.rejected++;
          if (!isAkashicError(err) || !STABLE_CODES.has(err.code)) throw new Error(`${c.name} failed with ${err instanceof Error ? `${err.name} ${(err as { code?: string }).code ?? ''}: ${err.message}` : String(err)}`);
          const after = await digest();
          if (after !== current) throw new Error(`${c.name} was rejected (${err.code}: ${err.message}) but changed the state`);
          return;
        }
        t.ok++;
        if (c.kind === 'read') {
          const after = await digest();
          if (after !== current) throw new Error(`${c.name}, a read, changed the state`);
        } else {
          current = null;
        }
        const problem = c.check === undefined ? null : await c.check(value);
        if (problem !== null) throw new Error(`${c.name}: ${problem}`);
      }),
      { numRuns: CASES, seed: 20_251_123, endOnFailure: true },
    );
    expect(Object.values(tally).reduce((n, t) => n + t.ok + t.rejected, 0)).toBeGreaterThanOrEqual(CASES);
    // Both sides of every entry point were exercised.
    for (const [name, t] of Object.entries(tally)) expect(t.ok + t.rejected, name).toBeGreaterThan(0);
    expect(Object.keys(tally).length).toBe(30);
  }, 600_000);
});

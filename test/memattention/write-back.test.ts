/**
 * Background write-back: appends are acknowledged once durable, compactions run in the write-back queue (ordered per
 * namespace, bounded, back-pressure by waiting), every acknowledged turn stays recallable, failures retry and surface
 * as events and in stats(), flush/close drain, and a reopened memory resumes what was left.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory } from '../../src/memattention/memory.js';
import type { CompactionEvent, ErrorEvent } from '../../src/memattention/memory-events.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import type { ModelTurn, CompressResult } from '../../src/model/memory-model.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { isAkashicError } from '../../src/errors.js';
import { SCRIPTED_USAGE, startScriptedChatServer, type ScriptedChatServer } from '../model/scripted-chat-server.js';
import { memoryStore } from './fixtures.js';

const U = 'alice';

/** The embedded model, whose COMPRESS waits until the test lets it go (or fails while `failing` is set). */
class HeldModel extends EmbeddedModel {
  #release: (() => void)[] = [];
  #waiters: (() => void)[] = [];
  held = true;
  failing = false;
  compressCalls = 0;

  override async compress(turns: readonly ModelTurn[]): Promise<CompressResult> {
    this.compressCalls++;
    for (const w of this.#waiters.splice(0)) w();
    if (this.held) await new Promise<void>((resolve) => this.#release.push(resolve));
    if (this.failing) throw new Error('model unavailable');
    return super.compress(turns);
  }

  /** Resolves once a COMPRESS call has started (now or later). */
  started(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    this.held = false;
    for (const r of this.#release.splice(0)) r();
  }
}

/** Settles with 'pending' when `p` has not settled after the queued I/O and timers of this turn of the loop. */
async function state(p: Promise<unknown>): Promise<'settled' | 'pending'> {
  const mark = Symbol('pending');
  const r = await Promise.race([p.then(() => 'settled' as const, () => 'settled' as const), new Promise<symbol>((resolve) => setImmediate(() => resolve(mark)))]);
  return r === mark ? 'pending' : 'settled';
}

function nextEvent<T>(subscribe: (fn: (e: T) => void) => () => void, accept: (e: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const stop = subscribe((e) => {
      if (!accept(e)) return;
      stop();
      resolve(e);
    });
  });
}

/** Every turn id that a recall now returns: as an active turn or inside a recalled chunk. */
async function recalledTurnIds(memory: AkashicMemory, session: string, query: string): Promise<Set<string>> {
  const got = await memory.recall({ user: U, session, query, topP: 64, memoryBudgetTokens: 100_000 });
  return new Set([...got.activeTurns.map((t) => t.turnId), ...got.chunks.flatMap((c) => c.provenance)]);
}

describe('background write-back with a chat model that takes 2 s per call', () => {
  let server: ScriptedChatServer;
  beforeAll(async () => {
    server = await startScriptedChatServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('acknowledges appends before the compaction model calls finish, then reports the compaction with its receipts', async () => {
    const { store } = await memoryStore();
    const model = new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', model: 'slow-model', retryDelayMs: 0 });
    const memory = new AkashicMemory(store, { model, chunkGateTokens: 20, relocateEveryRecalls: 0 });
    server.enqueue(
      { kind: 'delay', ms: 2000, then: { kind: 'json', value: { text: 'user: likes green tea and lives in Lisbon' } } },
      { kind: 'delay', ms: 2000, then: { kind: 'json', value: { keywords: ['tea', 'lisbon'] } } },
    );
    const order: string[] = [];
    const compacted = nextEvent<CompactionEvent>((fn) => memory.on('compaction', fn));
    void compacted.then(() => order.push('compaction'));
    const acked: string[] = [];
    let scheduled = false;
    for (let i = 0; !scheduled; i++) {
      const r = await memory.appendTurn({ user: U, session: 's1', role: 'user', text: `I like green tea and I live in Lisbon, note ${i}.`, turnId: `t${i}` });
      acked.push(r.turnId);
      scheduled = r.compactionScheduled === true;
      order.push(`ack ${r.turnId}`);
    }
    // More turns while the model works: each is acknowledged at once.
    for (let i = 0; i < 3; i++) {
      const r = await memory.appendTurn({ user: U, session: 's1', role: 'assistant', text: `noted ${i}`, turnId: `late${i}` });
      acked.push(r.turnId);
      order.push(`ack ${r.turnId}`);
    }
    expect(order.includes('compaction')).toBe(false);
    // Every acknowledged turn is there while the compaction is pending.
    const during = await memory.recall({ user: U, session: 's1', query: 'tea', enableRetrieval: false });
    expect(during.activeTurns.map((t) => t.turnId)).toEqual(acked);

    const e = await compacted;
    expect(order.at(-1)).toBe('compaction');
    expect(e.trigger).toBe('gate');
    expect(e.turnIds.length).toBeGreaterThan(0);
    expect(e.modelCalls.map((c) => c.call)).toEqual(['compress', 'buildMeta']);
    for (const c of e.modelCalls) {
      expect(c).toMatchObject({ model: 'slow-model', promptTokens: SCRIPTED_USAGE.prompt_tokens, completionTokens: SCRIPTED_USAGE.completion_tokens, usageSource: 'server', retries: 0, ok: true });
      expect(c.latencyMs).toBeGreaterThanOrEqual(1900);
    }
    expect(e.usage.promptTokens).toBe(2 * SCRIPTED_USAGE.prompt_tokens);
    await memory.flush();
    const after = await memory.activeTurns({ user: U, session: 's1' });
    expect(after.map((t) => t.turnId)).toEqual(acked.slice(e.turnIds.length));

    const s = memory.stats();
    // The appends made while it ran asked for one more job, which found nothing at the gate.
    expect(s.writeBack).toMatchObject({ mode: 'background', queued: 0, running: 0, failures: 0 });
    expect(s.writeBack.completed).toBeGreaterThanOrEqual(1);
    expect(s.modelUsage.byOperation.compaction).toMatchObject({ calls: 2, promptTokens: 22, completionTokens: 14 });
    expect(s.modelUsage.byUser[U]!.calls).toBe(2);
    expect(s.modelUsage.byCall.compress!.calls).toBe(1);
    expect((await store.stats()).modelUsage.total.promptTokens).toBe(22);
    await memory.close();
    await store.close();
  }, 20_000);
});

describe('background write-back with the embedded model', () => {
  it('recalls every acknowledged turn at every moment: before, during and after a compaction', async () => {
    const { store } = await memoryStore();
    const model = new HeldModel();
    const memory = new AkashicMemory(store, { model, chunkGateTokens: 30, relocateEveryRecalls: 0 });
    const acked: string[] = [];
    const everyTurn = async (): Promise<void> => {
      const seen = await recalledTurnIds(memory, 's1', 'violin trondheim ingrid sister teaches');
      for (const id of acked) expect(seen.has(id), `turn ${id} is recalled`).toBe(true);
    };
    const started = model.started();
    let i = 0;
    for (; acked.length < 2 || model.compressCalls === 0; i++) {
      const r = await memory.appendTurn({ user: U, session: 's1', role: 'user', text: `My sister Ingrid teaches violin in Trondheim (${i}).`, turnId: `t${i}` });
      acked.push(r.turnId);
      await everyTurn();
      if (r.compactionScheduled === true) {
        i++;
        break;
      }
    }
    await started;
    // COMPRESS is running and held: the turns are still active, and appends keep landing.
    for (let k = 0; k < 2; k++, i++) {
      acked.push((await memory.appendTurn({ user: U, session: 's1', role: 'assistant', text: `Ingrid violin ${i}`, turnId: `t${i}` })).turnId);
      await everyTurn();
    }
    const done = nextEvent<CompactionEvent>((fn) => memory.on('compaction', fn));
    model.release();
    const e = await done;
    await everyTurn();
    expect(e.modelCalls.every((c) => c.usageSource === 'local' && c.promptTokens === 0)).toBe(true);
    await memory.flush();
    await everyTurn();
    expect((await store.verify()).ok).toBe(true);
    await memory.close();
    await store.close();
  });

  it('retries a failing compaction with back-off, leaves the turns in place, and reports it as events and in stats()', async () => {
    const { store } = await memoryStore();
    const model = new HeldModel();
    // Held until every turn is appended, so the attempts and their back-off do not race the appends (a slower store,
    // such as Redis, makes each append take longer than the first retries); back-off steps long enough that the
    // checks below finish before the third attempt.
    model.failing = true;
    const backgroundErrors: unknown[] = [];
    const memory = new AkashicMemory(store, { model, chunkGateTokens: 20, writeBackRetryMs: 50, writeBackMaxRetries: 3, relocateEveryRecalls: 0, onBackgroundError: (err) => backgroundErrors.push(err) });
    const errors: ErrorEvent[] = [];
    memory.on('error', (e) => errors.push(e));
    const secondFailure = nextEvent<ErrorEvent>((fn) => memory.on('error', fn), (e) => e.attempt === 2);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await memory.appendTurn({ user: U, session: 's1', role: 'user', text: `a fact worth keeping, number ${i}`, turnId: `f${i}` })).turnId);
    model.release();
    const second = await secondFailure;
    expect(second.operation).toBe('compaction');
    expect(second.session).toBe('s1');
    expect(isAkashicError(second.error, 'AKASHIC_MODEL')).toBe(true);
    expect(second.retryInMs).toBe(100);
    expect(errors[0]!.retryInMs).toBe(50);
    expect((await memory.activeTurns({ user: U, session: 's1' })).map((t) => t.turnId)).toEqual(ids);
    const s = memory.stats().writeBack;
    expect(s.failures).toBeGreaterThanOrEqual(2);
    expect(s.lastError?.code).toBe('AKASHIC_MODEL');
    expect(backgroundErrors.length).toBeGreaterThanOrEqual(2);

    // The model recovers: the next retry compacts, as attempt 3 or later.
    const compacted: string[] = [];
    memory.on('compaction', (c) => compacted.push(...c.turnIds));
    const recovered = nextEvent<CompactionEvent>((fn) => memory.on('compaction', fn));
    model.failing = false;
    const e = await recovered;
    expect(e.attempt).toBeGreaterThanOrEqual(3);
    await memory.flush();
    const left = (await memory.activeTurns({ user: U, session: 's1' })).map((t) => t.turnId);
    // No turn lost, none twice.
    expect([...compacted, ...left].sort()).toEqual([...ids].sort());
    await memory.close();
    await store.close();
  });

  it('gives a failing compaction up after its retries; flush tries it once more and does not throw', async () => {
    const { store } = await memoryStore();
    const model = new HeldModel();
    // Held until every turn is appended: otherwise a slow store lets the job give up mid-way and a later append
    // schedule a fresh one, which flush would then run.
    model.failing = true;
    const memory = new AkashicMemory(store, { model, chunkGateTokens: 20, writeBackRetryMs: 1, writeBackMaxRetries: 1, relocateEveryRecalls: 0 });
    const gaveUp = nextEvent<ErrorEvent>((fn) => memory.on('error', fn), (e) => e.retryInMs === null);
    for (let i = 0; i < 6; i++) await memory.appendTurn({ user: U, session: 's1', role: 'user', text: `another fact to keep, ${i}` });
    model.release();
    const last = await gaveUp;
    expect(last.attempt).toBe(2);
    expect(memory.stats().writeBack.abandoned).toBe(1);
    const before = model.compressCalls;
    await memory.flush();
    // Nothing was waiting for a retry, so flush has nothing to run; the turns stay for the next append.
    expect(model.compressCalls).toBe(before);
    expect(await memory.activeTurns({ user: U, session: 's1' })).toHaveLength(6);
    model.failing = false;
    const r = await memory.appendTurn({ user: U, session: 's1', role: 'user', text: 'and one more' });
    expect(r.compactionScheduled).toBe(true);
    await memory.flush();
    expect((await memory.activeTurns({ user: U, session: 's1' })).length).toBeLessThan(7);
    await memory.close();
    await store.close();
  });

  it('runs namespaces concurrently up to the bound, one job per namespace, and makes appends wait when the queue is full', async () => {
    const { store } = await memoryStore();
    const model = new HeldModel();
    const memory = new AkashicMemory(store, { model, chunkGateTokens: 12, writeBackConcurrency: 1, writeBackQueueLimit: 1, relocateEveryRecalls: 0 });
    // One turn above the gate: its own append fires it.
    const big = (session: string): string => `In ${session} we talked about night trains from Vienna to Hamburg, sleeper cabins and timetables.`;
    const fill = async (session: string): Promise<void> => {
      const r = await memory.appendTurn({ user: U, session, role: 'user', text: big(session) });
      expect(r.compactionScheduled).toBe(true);
    };
    const started = model.started();
    await fill('a'); // runs (concurrency 1)
    await started;
    await fill('b'); // queued (limit 1)
    // A third namespace needs room: its append is durable but waits.
    const waiting = memory.appendTurn({ user: U, session: 'c', role: 'user', text: big('c'), turnId: 'c-turn' });
    for (let tick = 0; tick < 10_000 && (await memory.activeTurns({ user: U, session: 'c' })).length === 0; tick++) await new Promise((resolve) => setImmediate(resolve));
    expect((await memory.activeTurns({ user: U, session: 'c' })).map((t) => t.turnId)).toEqual(['c-turn']);
    expect(await state(waiting)).toBe('pending');
    expect(memory.stats().writeBack).toMatchObject({ running: 1, queued: 1 });
    // A second job for a queued namespace is the same job: it does not wait.
    const again = await memory.appendTurn({ user: U, session: 'b', role: 'user', text: 'one more about trains in b' });
    expect(again.compactionScheduled).toBe(true);
    const compactions: string[] = [];
    memory.on('compaction', (e) => compactions.push(e.session));
    model.release();
    await waiting;
    await memory.flush();
    expect(compactions.slice(0, 2)).toEqual(['a', 'b']);
    expect(compactions).toContain('c');
    await memory.close();
    await store.close();
  });

  it('close() drains the queue; a memory opened later resumes the compactions a failure left behind', async () => {
    const { store } = await memoryStore();
    const model = new HeldModel();
    model.held = false;
    model.failing = true;
    const first = new AkashicMemory(store, { model, chunkGateTokens: 20, writeBackMaxRetries: 0, relocateEveryRecalls: 0 });
    const gaveUp = nextEvent<ErrorEvent>((fn) => first.on('error', fn));
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await first.appendTurn({ user: U, session: 's9', role: 'user', text: `resume me please, fact ${i}` })).turnId);
    await gaveUp;
    await first.close();
    expect((await first.activeTurns({ user: U, session: 's9' }).catch((err: unknown) => err)) instanceof Error).toBe(true);

    const resumed = new Promise<CompactionEvent>((resolve) => {
      const second = new AkashicMemory(store, { chunkGateTokens: 20, relocateEveryRecalls: 0 });
      second.on('compaction', (e) => {
        if (e.trigger === 'resume') resolve(e);
        void second.close();
      });
    });
    const e = await resumed;
    expect(e.session).toBe('s9');
    expect(ids.slice(0, e.turnIds.length)).toEqual(e.turnIds);
    await store.close();
  });

  it("writeBack: 'await' keeps the compaction on the append, and bad options are refused", async () => {
    const { store } = await memoryStore();
    const memory = new AkashicMemory(store, { chunkGateTokens: 12, writeBack: 'await', relocateEveryRecalls: 0 });
    const seen: CompactionEvent[] = [];
    memory.on('compaction', (e) => seen.push(e));
    let r;
    for (let i = 0; (r = await memory.appendTurn({ user: U, session: 's', role: 'user', text: `fact number ${i} about ferries` })).compacted === undefined; i++);
    expect(r.compactionScheduled).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.turnIds).toEqual(r.compacted!.turnIds);
    expect(memory.stats().writeBack.mode).toBe('await');
    expect(() => new AkashicMemory(store, { writeBack: 'later' as 'await' })).toThrow(/writeBack/);
    expect(() => new AkashicMemory(store, { writeBackConcurrency: 0 })).toThrow(/writeBackConcurrency/);
    expect(() => memory.on('nothing' as 'recall', () => undefined)).toThrow(/unknown memory event/);
    await memory.close();
    await store.close();
  });
});

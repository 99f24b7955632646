/**
 * Every public entry point refuses an option key it does not know with AKASHIC_INVALID_ARGUMENT naming the key
 * (and the argument as the caller wrote it), and changes nothing: property-tested over random keys and values.
 */
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { akashicMemory } from '../../src/adapters/ai-sdk/index.js';
import { AkashicChatMessageHistory } from '../../src/adapters/langchain/index.js';
import { AkashicLangGraphStore, AkashicSaver } from '../../src/adapters/langgraph/index.js';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import { isAkashicError } from '../../src/errors.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { runMain } from '../cli/fixtures.js';

const U = 'u';
const S = 's';

/** One entry point: the keys it knows, and a call that passes `extra` as one more option key. */
interface EntryPoint {
  readonly name: string;
  /** How the error names the argument. */
  readonly what: string;
  readonly known: readonly string[];
  call(extra: Record<string, unknown>): Promise<unknown>;
}

let store: AkashicStore;
let memory: AkashicMemory;
let chunkId: string;

async function snapshot(): Promise<string> {
  const chunks = [];
  for await (const c of store.list(U, { includeDeleted: true, includeExpired: true })) chunks.push([c.sessionId, c.chunkId, c.entry.version, c.entry.state]);
  return JSON.stringify({ chunks, active: await memory.activeTurns({ user: U, session: S }) });
}

async function drain(it: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of it);
}

const CONTENT = ['kind', 'text', 'tokenCount', 'keywords', 'attributes', 'payload', 'supersedes', 'provenance', 'embedding', 'agentId', 'runId'];
const STORE_KEYS = ['path', 'db', 'blockCapacity', 'blockMaxBytes', 'crossSessionBlocks', 'cacheBytes', 'durability', 'zstdLevel', 'gc', 'readOnly', 'now', 'defaultTtlMs', 'postingMergeAt', 'scopeTtl', 'history', 'affinity', 'url'];
const MEMORY_KEYS = ['model', 'embedder', 'tokenizer', 'chunkGateTokens', 'topP', 'recallTopP', 'reconcileScope', 'recallScope', 'memoryBudgetTokens', 'recallKinds', 'recallUnit', 'candidateWindow', 'candidatePrefilter', 'candidateKeywords', 'tauAssoc', 'relocateEveryRecalls', 'relocateMinRecurrence', 'relocateSync', 'idleCompactMs', 'onBackgroundError', 'relevanceFloor'];
const RECALL_KEYS = ['user', 'session', 'query', 'topP', 'memoryBudgetTokens', 'scope', 'enableRetrieval', 'turnId', 'filter', 'agentId', 'runId', 'asOf', 'includeSuperseded', 'relevanceFloor'];

const openWith = async (o: Record<string, unknown>): Promise<unknown> => {
  const s = await AkashicStore.open(o as never);
  await s.close();
  return s;
};

const ENTRY_POINTS: readonly EntryPoint[] = [
  { name: 'AkashicStore.open', what: 'store options', known: STORE_KEYS, call: (x) => openWith({ db: new MemoryLevel(), ...x }) },
  { name: 'AkashicStore.open gc', what: 'store option gc', known: ['threshold', 'intervalMs', 'maxBlocksPerPass', 'threads', 'mergeBelowFill'], call: (x) => openWith({ db: new MemoryLevel(), gc: { intervalMs: 0, ...x } }) },
  { name: 'AkashicStore.open history', what: 'store option history', known: ['versions', 'maxAgeMs'], call: (x) => openWith({ db: new MemoryLevel(), history: { versions: 2, ...x } }) },
  { name: 'AkashicStore.open scopeTtl', what: 'store option scopeTtl[0]', known: ['user', 'session', 'agent', 'run', 'ttlMs'], call: (x) => openWith({ db: new MemoryLevel(), scopeTtl: [{ user: U, ttlMs: 5, ...x }] }) },
  { name: 'put', what: 'input', known: ['sessionId', 'chunkId', 'createdAt', 'ttlMs', 'expiresAt', ...CONTENT], call: (x) => store.put(U, { sessionId: S, text: 'new', ...x }) },
  {
    name: 'write put',
    what: 'ops[1]',
    known: ['op', 'sessionId', 'chunkId', 'createdAt', 'ttlMs', 'expiresAt', ...CONTENT],
    call: (x) => store.write(U, [{ op: 'put', sessionId: S, text: 'first' }, { op: 'put', sessionId: S, text: 'second', ...x }]),
  },
  {
    name: 'write update',
    what: 'ops[0]',
    known: ['op', 'sessionId', 'chunkId', 'expectVersion', 'supersededBy', 'ttlMs', 'expiresAt', ...CONTENT],
    call: (x) => store.write(U, [{ op: 'update', sessionId: S, chunkId, text: 'changed', ...x }]),
  },
  { name: 'write delete', what: 'ops[0]', known: ['op', 'sessionId', 'chunkId', 'expectVersion', 'supersededBy'], call: (x) => store.write(U, [{ op: 'delete', sessionId: S, chunkId, ...x }]) },
  { name: 'get', what: 'get options', known: ['asOf'], call: (x) => store.get(U, S, chunkId, x) },
  { name: 'getMany', what: 'getMany options', known: ['asOf'], call: (x) => store.getMany(U, [{ sessionId: S, chunkId }], x) },
  { name: 'list', what: 'list options', known: ['sessionId', 'includeDeleted', 'includeExpired', 'filter', 'asOf', 'includeSuperseded', 'agentId', 'runId'], call: (x) => drain(store.list(U, x)) },
  { name: 'blocks', what: 'blocks options', known: ['userId', 'includeReleased'], call: (x) => drain(store.blocks(x)) },
  { name: 'gc', what: 'gc options', known: ['threshold', 'maxBlocks', 'userId'], call: (x) => store.gc(x) },
  { name: 'sweepExpired', what: 'sweepExpired options', known: ['max'], call: (x) => store.sweepExpired(x) },
  { name: 'store purge', what: 'scope', known: ['user', 'session'], call: (x) => store.purge({ user: U, ...x }) },
  { name: 'new AkashicMemory', what: 'memory options', known: MEMORY_KEYS, call: async (x) => new AkashicMemory(store, x) },
  { name: 'appendTurn', what: 'appendTurn input', known: ['user', 'session', 'role', 'text', 'at', 'turnId', 'agentId', 'runId'], call: (x) => memory.appendTurn({ user: U, session: S, role: 'user', text: 'hello', ...x }) },
  {
    name: 'completeRequest',
    what: 'completeRequest input',
    known: ['user', 'session', 'turns', 'enableWriteback', 'agentId', 'runId'],
    call: (x) => memory.completeRequest({ user: U, session: S, turns: [{ role: 'user', text: 'hi' }], ...x }),
  },
  {
    name: 'completeRequest turn',
    what: 'turns[0]',
    known: ['role', 'text', 'at', 'turnId', 'agentId', 'runId'],
    call: (x) => memory.completeRequest({ user: U, session: S, turns: [{ role: 'user', text: 'hi', ...x }] }),
  },
  { name: 'endSession', what: 'endSession input', known: ['user', 'session'], call: (x) => memory.endSession({ user: U, session: S, ...x }) },
  { name: 'endOtherSessions', what: 'endOtherSessions input', known: ['user', 'session'], call: (x) => memory.endOtherSessions({ user: U, session: S, ...x }) },
  { name: 'activeTurns', what: 'activeTurns input', known: ['user', 'session'], call: (x) => memory.activeTurns({ user: U, session: S, ...x }) },
  { name: 'recall', what: 'recall input', known: RECALL_KEYS, call: (x) => memory.recall({ user: U, session: S, query: 'hello', ...x }) },
  { name: 'memory history', what: 'history input', known: ['user', 'session', 'chunkId'], call: (x) => memory.history({ user: U, session: S, chunkId, ...x }) },
  { name: 'memory purge', what: 'scope', known: ['user', 'session'], call: (x) => memory.purge({ user: U, ...x }) },
  { name: 'akashicMemory (AI SDK)', what: 'akashicMemory options', known: ['memory', 'header', 'onWritebackError', 'recallScope', 'compactOnSessionChange'], call: async (x) => akashicMemory({ memory, ...x }) },
  { name: 'AkashicSaver (LangGraph)', what: 'AkashicSaver options', known: ['store', 'userId', 'serde'], call: async (x) => new AkashicSaver({ store, ...x }) },
  { name: 'AkashicLangGraphStore', what: 'AkashicLangGraphStore options', known: ['store', 'index', 'keywordLimit'], call: async (x) => new AkashicLangGraphStore({ store, ...x }) },
  {
    name: 'AkashicChatMessageHistory (LangChain)',
    what: 'AkashicChatMessageHistory options',
    known: ['store', 'userId', 'sessionId', 'memory'],
    call: async (x) => new AkashicChatMessageHistory({ store, userId: U, sessionId: S, ...x }),
  },
];

/** A key no entry point knows: random text, or a near miss of a real key (the typo case). */
function unknownKey(known: readonly string[]): fc.Arbitrary<string> {
  const typo = fc.constantFrom(...known).chain((k) => fc.constantFrom(k.slice(1), `${k}s`, k.toLowerCase() === k ? k.toUpperCase() : k.toLowerCase(), `${k.slice(0, -1)}`));
  return fc.oneof(fc.string({ minLength: 1, maxLength: 16 }), typo).filter((k) => !known.includes(k) && k !== '');
}

const VALUE = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.string({ maxLength: 8 }), fc.boolean());

describe('unknown option keys are refused at every public entry point', () => {
  beforeAll(async () => {
    store = await AkashicStore.open({ db: new MemoryLevel(), gc: { intervalMs: 0 } });
    memory = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    chunkId = (await store.put(U, { sessionId: S, text: 'a chunk to update and delete' })).chunkId;
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'an active turn' });
  });
  afterAll(async () => {
    await memory.close();
    await store.close();
  });

  for (const entry of ENTRY_POINTS) {
    it(`${entry.name}: AKASHIC_INVALID_ARGUMENT naming the key and "${entry.what}", nothing changed`, async () => {
      await fc.assert(
        fc.asyncProperty(unknownKey(entry.known), VALUE, async (key, value) => {
          const before = await snapshot();
          let caught: unknown = null;
          try {
            await entry.call({ [key]: value });
          } catch (err) {
            caught = err;
          }
          expect(isAkashicError(caught, 'AKASHIC_INVALID_ARGUMENT'), `${entry.name} with ${JSON.stringify(key)}: ${String(caught)}`).toBe(true);
          const message = (caught as Error).message;
          expect(message).toContain(`${entry.what}: unknown option ${JSON.stringify(key)}`);
          expect(await snapshot()).toBe(before);
        }),
        { numRuns: 15 },
      );
    });
  }

  it('the known keys pass the check (each entry point called with its own keys set to undefined)', async () => {
    for (const entry of ENTRY_POINTS) {
      const none = Object.fromEntries(entry.known.filter((k) => !['db', 'store', 'memory', 'op', 'sessionId', 'chunkId', 'text', 'user', 'session', 'query', 'role', 'turns', 'userId', 'ttlMs'].includes(k)).map((k) => [k, undefined]));
      let caught: unknown = null;
      try {
        await entry.call(none);
      } catch (err) {
        caught = err;
      }
      expect(caught instanceof Error ? caught.message : '', entry.name).not.toMatch(/unknown option/);
    }
  });

  it('a typo gets the nearest key suggested: recall({ scop: "user" })', async () => {
    await expect(memory.recall({ user: U, session: S, query: 'x', scop: 'user' } as never)).rejects.toThrow('recall input: unknown option "scop" (did you mean "scope"?)');
  });

  it('the CLI refuses an unknown flag with a usage error (exit 2) naming it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-z][a-z-]{1,12}$/), async (flag) => {
        fc.pre(!['db', 'user', 'query', 'session', 'scope', 'top-p', 'budget', 'json', 'help'].includes(flag));
        const r = await runMain(['recall', '--db', '/nonexistent', '--user', U, '--query', 'x', `--${flag}`]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`unknown option '--${flag}'`);
      }),
      { numRuns: 10 },
    );
  });
});

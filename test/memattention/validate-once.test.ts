/**
 * Validate once: a recall checks its caller's ids, filter and scope at MemAttention's edge, then reads through the
 * store's trusted calls, so each id is checked once per recall (not once per store call) and the filter is compiled
 * once. Counted by wrapping the contract's checkers.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const counts = vi.hoisted(() => ({ checkId: new Map<string, number>(), checkChunkId: 0, compileFilter: 0, compileScope: 0 }));

vi.mock('../../src/api/ids.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/api/ids.js')>();
  return {
    ...real,
    checkId: (value: unknown, what: string) => {
      counts.checkId.set(String(value), (counts.checkId.get(String(value)) ?? 0) + 1);
      return real.checkId(value, what);
    },
    checkChunkId: (value: unknown, what?: string) => {
      counts.checkChunkId++;
      return real.checkChunkId(value, what);
    },
  };
});
vi.mock('../../src/api/chunk-filter.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/api/chunk-filter.js')>();
  return {
    ...real,
    compileFilter: (f: unknown, what?: string) => {
      counts.compileFilter++;
      return real.compileFilter(f, what);
    },
  };
});
vi.mock('../../src/api/scope-filter.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/api/scope-filter.js')>();
  return {
    ...real,
    compileScope: (...args: Parameters<typeof real.compileScope>) => {
      counts.compileScope++;
      return real.compileScope(...args);
    },
  };
});

const { AkashicMemory } = await import('../../src/memattention/memory.js');
const { ScriptedModel, memoryStore, sentence } = await import('./fixtures.js');

const U = 'alice';
const S = 's1';
const TOPICS = ['tea', 'jazz', 'hiking', 'chess', 'sailing', 'pottery'];

async function seeded() {
  const { store } = await memoryStore();
  await store.write(
    U,
    TOPICS.map((topic, i) => ({
      op: 'put' as const,
      sessionId: S,
      kind: 'memory' as const,
      text: `user: ${sentence(topic)}`,
      keywords: [topic, 'plans'],
      tokenCount: 20,
      createdAt: 1_000 + i,
      attributes: { topic },
      agentId: i % 2 === 0 ? 'planner' : 'critic',
    })),
  );
  const memory = new AkashicMemory(store, { model: new ScriptedModel(), relocateSync: true, recallTopP: 4 });
  return { store, memory };
}

function reset(): void {
  counts.checkId.clear();
  counts.checkChunkId = 0;
  counts.compileFilter = 0;
  counts.compileScope = 0;
}

describe('a recall validates once', () => {
  beforeEach(reset);

  it('through the candidate index: the user and the session are each checked once', async () => {
    const { store, memory } = await seeded();
    reset();
    const r = await memory.recall({ user: U, session: S, query: 'tea and chess plans?' });
    expect(r.chunks.length).toBeGreaterThan(1);
    expect(Object.fromEntries(counts.checkId)).toEqual({ [U]: 1, [S]: 1 });
    expect(counts.checkChunkId).toBe(0);
    await memory.close();
    await store.close();
  });

  it('with a filter and an agent scope: ids checked once, filter and scope compiled once', async () => {
    const { store, memory } = await seeded();
    reset();
    const r = await memory.recall({ user: U, session: S, query: 'tea plans?', filter: { attributes: { topic: { in: ['tea', 'hiking'] } } }, agentId: 'planner' });
    expect(r.chunks.map((c) => c.attributes?.['topic']).sort()).toEqual(['hiking', 'tea']);
    expect(Object.fromEntries(counts.checkId)).toEqual({ [U]: 1, [S]: 1, planner: 1 });
    expect(counts.checkChunkId).toBe(0);
    expect(counts.compileFilter).toBe(1);
    expect(counts.compileScope).toBe(1);
    await memory.close();
    await store.close();
  });

  it('the public store API still checks what it is given', async () => {
    const { store, memory } = await seeded();
    reset();
    await expect(store.getMany(U, [{ sessionId: S, chunkId: 'not-a-ulid' }])).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    expect(counts.checkId.get(U)).toBe(1);
    await memory.close();
    await store.close();
  });
});

import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory } from '../../src/memattention/index.js';
import type { AkashicStore as Engine } from '../../src/index.js';
import { akashicMemory } from '../../src/adapters/ai-sdk/index.js';
import { DURABLE_ENGINE_NAME, MEMORY_ENGINE_NAME, diskEngine, memoryEngine } from './engines.js';
import type { MemorySurface } from '../../src/client/index.js';
import { BACKENDS, type Attached } from './backends.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const finishReason = { unified: 'stop' as const, raw: 'stop' };

function generating(...answers: string[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({ doGenerate: answers.map((text) => ({ content: [{ type: 'text' as const, text }], finishReason, usage, warnings: [] })) });
}

function streaming(deltas: string[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: 'stream-start' as const, warnings: [] },
          { type: 'text-start' as const, id: 't' },
          ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
          { type: 'text-end' as const, id: 't' },
          { type: 'finish' as const, finishReason, usage },
        ],
      }),
    }),
  });
}

/** Everything the memory holds for a session: compacted chunks and active turns. */
async function remembered(engine: Engine, memory: MemorySurface, user: string, session: string): Promise<string> {
  const refs = [];
  for await (const e of engine.list(user, { sessionId: session })) refs.push({ sessionId: e.sessionId, chunkId: e.chunkId });
  const { chunks } = await engine.getMany(user, refs);
  const active = await memory.activeTurns({ user, session });
  return [...chunks.map((c) => c?.text ?? ''), ...active.map((t) => `${t.role}: ${t.text}`)].join('\n');
}

const akashic = (userId: string, sessionId: string, extra: Record<string, unknown> = {}) => ({ akashic: { userId, sessionId, ...extra } });

describe('akashicMemory with default options: the two-conversation scenario', () => {
  it('a second conversation recalls what the user said in the first, short one', async () => {
    const engine = await memoryEngine();
    const memory = new AkashicMemory(engine);
    try {
      const base = generating('Congratulations on the move!', 'You said you moved to Lisbon.');
      const model = wrapLanguageModel({ model: base, middleware: akashicMemory({ memory }) });
      await generateText({ model, prompt: 'I moved to Lisbon last week.', providerOptions: akashic('alice', 'conversation-1') });
      const { text } = await generateText({ model, prompt: 'Where did I say I moved?', providerOptions: akashic('alice', 'conversation-2') });
      expect(text).toBe('You said you moved to Lisbon.');
      const prompt = base.doGenerateCalls[1]!.prompt;
      expect(prompt[0]!.role).toBe('system');
      expect(prompt[0]!.content).toContain('Lisbon');
      // The first conversation's compaction started (in the background) when the second began; once it committed,
      // nothing of it is pending any more.
      await memory.flush();
      expect(await memory.activeTurns({ user: 'alice', session: 'conversation-1' })).toEqual([]);
    } finally {
      await memory.close();
      await engine.close();
    }
  });

  it('session scope and compactOnSessionChange: false keep the old behaviour', async () => {
    const engine = await memoryEngine();
    const memory = new AkashicMemory(engine);
    try {
      const base = generating('Noted.', 'I do not know.');
      const model = wrapLanguageModel({ model: base, middleware: akashicMemory({ memory, recallScope: 'session', compactOnSessionChange: false }) });
      await generateText({ model, prompt: 'I moved to Lisbon last week.', providerOptions: akashic('alice', 'c1') });
      await generateText({ model, prompt: 'Where did I say I moved?', providerOptions: akashic('alice', 'c2') });
      expect(base.doGenerateCalls[1]!.prompt[0]!.role).toBe('user');
      expect((await memory.activeTurns({ user: 'alice', session: 'c1' })).length).toBe(2);
      expect(() => akashicMemory({ memory, recallScope: 'all' as never })).toThrow(/recallScope/);
    } finally {
      await memory.close();
      await engine.close();
    }
  });
});

describe.each(BACKENDS)(`akashicMemory middleware on ${MEMORY_ENGINE_NAME} ($name)`, (backend) => {
  let engine: Engine;
  let memory: MemorySurface;
  let attached: Attached;
  beforeEach(async () => {
    engine = await memoryEngine();
    attached = await backend.attach(engine, { chunkGateTokens: 8 });
    memory = attached.memory;
  });
  afterEach(async () => {
    await attached.close();
    await engine.close();
  });

  it('writes a generated turn back and injects it as recalled memory on a later call', async () => {
    const base = generating('Noted, Berlin it is.', 'You live in Berlin.');
    const model = wrapLanguageModel({ model: base, middleware: akashicMemory({ memory }) });
    await generateText({ model, prompt: 'I moved to Berlin last May.', providerOptions: akashic('alice', 's1') });
    expect(await remembered(engine, memory, 'alice', 's1')).toContain('Noted, Berlin it is.');
    // The gate fired on the write-back; recall injects chunks, so wait for the background compaction.
    await attached.flush();

    const { text } = await generateText({ model, prompt: 'Which city do I live in, Berlin?', providerOptions: akashic('alice', 's1') });
    expect(text).toBe('You live in Berlin.');
    const prompt = base.doGenerateCalls[1]!.prompt;
    expect(prompt[0]!.role).toBe('system');
    expect(prompt[0]!.content).toContain('I moved to Berlin last May.');
    expect(prompt.at(-1)!.role).toBe('user');
  });

  it('collects a streamed answer and writes it back when the stream ends', async () => {
    const model = wrapLanguageModel({ model: streaming(['You ', 'like ', 'green tea.']), middleware: akashicMemory({ memory }) });
    const result = streamText({ model, prompt: 'What do I like to drink?', providerOptions: akashic('bob', 's1') });
    let streamed = '';
    for await (const delta of result.textStream) streamed += delta;
    expect(streamed).toBe('You like green tea.');
    const held = await remembered(engine, memory, 'bob', 's1');
    expect(held).toContain('What do I like to drink?');
    expect(held).toContain('You like green tea.');
  });

  it('streams with recall injected', async () => {
    const warm = wrapLanguageModel({ model: generating('Noted.'), middleware: akashicMemory({ memory }) });
    await generateText({ model: warm, prompt: 'My cat is called Miso.', providerOptions: akashic('carol', 's1') });
    await attached.flush();
    const base = streaming(['Miso.']);
    const model = wrapLanguageModel({ model: base, middleware: akashicMemory({ memory }) });
    const result = streamText({ model, prompt: 'What is my cat called? Miso?', providerOptions: akashic('carol', 's1') });
    expect(await result.text).toBe('Miso.');
    expect(base.doStreamCalls[0]!.prompt[0]!.content).toContain('My cat is called Miso.');
  });

  it('passes calls without providerOptions.akashic through untouched', async () => {
    const base = generating('hi');
    const model = wrapLanguageModel({ model: base, middleware: akashicMemory({ memory }) });
    await generateText({ model, prompt: 'hello' });
    expect(base.doGenerateCalls[0]!.prompt.map((m) => m.role)).toEqual(['user']);
    expect(await engine.users()).toEqual([]);
  });

  it('honours enableWriteback and enableRetrieval', async () => {
    const base = generating('one', 'two');
    const model = wrapLanguageModel({ model: base, middleware: akashicMemory({ memory }) });
    await generateText({ model, prompt: 'I live in Paris now, Paris.', providerOptions: akashic('dan', 's1', { enableWriteback: false }) });
    expect(await remembered(engine, memory, 'dan', 's1')).toBe('');
    await memory.completeRequest({ user: 'dan', session: 's1', turns: [{ role: 'user', text: 'I live in Paris, in a small flat.' }] });
    await memory.endSession({ user: 'dan', session: 's1' });
    await generateText({ model, prompt: 'Where do I live? Paris?', providerOptions: akashic('dan', 's1', { enableRetrieval: false }) });
    expect(base.doGenerateCalls[1]!.prompt.map((m) => m.role)).toEqual(['user']);
  });

  it('reports write-back failures to onWritebackError, or fails the call without it', async () => {
    const errors: unknown[] = [];
    const lenient = wrapLanguageModel({ model: generating('ok'), middleware: akashicMemory({ memory, onWritebackError: (e) => errors.push(e) }) });
    await generateText({ model: lenient, prompt: 'hi', providerOptions: akashic('bad\u0001user', 's1', { enableRetrieval: false }) });
    // The session-change compaction and the write-back each report the bad user id.
    expect(errors.length).toBeGreaterThanOrEqual(1);
    for (const e of errors) expect(String(e)).toMatch(/control character/);
    const strict = wrapLanguageModel({ model: generating('ok'), middleware: akashicMemory({ memory }) });
    await expect(generateText({ model: strict, prompt: 'hi', providerOptions: akashic('bad\u0001user', 's1', { enableRetrieval: false }) })).rejects.toThrow(/control character/);
  });

  it('rejects malformed providerOptions.akashic', async () => {
    const model = wrapLanguageModel({ model: generating('x'), middleware: akashicMemory({ memory }) });
    await expect(generateText({ model, prompt: 'hi', providerOptions: { akashic: { userId: 'a' } } })).rejects.toThrow(/sessionId/);
    expect(() => akashicMemory({} as never)).toThrow(/memory/);
  });

  it('writes back under the call\'s agent and run, and recalls only the scopes it asks for', async () => {
    const model = (base: MockLanguageModelV3) => wrapLanguageModel({ model: base, middleware: akashicMemory({ memory, compactOnSessionChange: false }) });
    await generateText({ model: model(generating('Noted.')), prompt: 'The launch date is Friday, launch.', providerOptions: akashic('team', 's1', { agentId: 'planner', runId: 'r1' }) });
    await generateText({ model: model(generating('Ugh.')), prompt: 'The launch build is broken, launch.', providerOptions: akashic('team', 's1', { agentId: 'coder', runId: 'r1' }) });
    await memory.endSession({ user: 'team', session: 's1' });
    const scopes = [];
    for await (const e of engine.list('team')) scopes.push(`${e.entry.agentId}/${e.entry.runId}`);
    expect([...new Set(scopes)].sort()).toEqual(['coder/r1', 'planner/r1']);
    const base = generating('It is broken.');
    await generateText({ model: model(base), prompt: 'What about the launch?', providerOptions: akashic('team', 's1', { enableWriteback: false, recall: { agentId: 'coder' } }) });
    const injected = String(base.doGenerateCalls[0]!.prompt[0]!.content);
    expect(injected).toContain('build is broken');
    expect(injected).not.toContain('Friday');
    // A bad scope fails before the model runs.
    const never = generating('x');
    await expect(generateText({ model: model(never), prompt: 'hi', providerOptions: akashic('team', 's1', { recall: { agentId: '' } }) })).rejects.toThrow(/agentId/);
    await expect(generateText({ model: model(never), prompt: 'hi', providerOptions: akashic('team', 's1', { runId: 'a\u0000' }) })).rejects.toThrow(/runId/);
    expect(never.doGenerateCalls).toHaveLength(0);
  });
});

describe(`akashicMemory middleware on ${DURABLE_ENGINE_NAME}`, () => {
  it('recalls, after a reopen, what an earlier process wrote back', async () => {
    const disk = await diskEngine();
    try {
      const memory = new AkashicMemory(disk.engine, { chunkGateTokens: 8 });
      const model = wrapLanguageModel({ model: generating('Noted.'), middleware: akashicMemory({ memory }) });
      await generateText({ model, prompt: 'My sister Ines lives in Lisbon.', providerOptions: akashic('erin', 's1') });
      await memory.close();
      await disk.engine.close();

      const engine = await disk.reopen();
      const again = new AkashicMemory(engine, { chunkGateTokens: 8 });
      const base = generating('Lisbon.');
      const wrapped = wrapLanguageModel({ model: base, middleware: akashicMemory({ memory: again }) });
      await generateText({ model: wrapped, prompt: 'Where does Ines live? Lisbon?', providerOptions: akashic('erin', 's1') });
      expect(base.doGenerateCalls[0]!.prompt[0]!.content).toContain('Lisbon');
      await again.close();
      await engine.close();
    } finally {
      await disk.cleanup();
    }
  });
});

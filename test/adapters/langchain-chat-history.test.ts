import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore as Engine } from '../../src/index.js';
import { AkashicChatMessageHistory } from '../../src/adapters/langchain/index.js';
import { DURABLE_ENGINE_NAME, MEMORY_ENGINE_NAME, diskEngine, memoryEngine } from './engines.js';
import type { StoreSurface } from '../../src/client/index.js';
import { BACKENDS, type Attached } from './backends.js';

const conversation = () => [
  new SystemMessage('You are terse.'),
  new HumanMessage({ content: 'What is the weather in Oslo?', id: 'h1' }),
  new AIMessage({ content: '', tool_calls: [{ id: 'call-1', name: 'weather', args: { city: 'Oslo' } }] }),
  new ToolMessage({ content: '3°C and snowing', tool_call_id: 'call-1' }),
  new AIMessage('Cold: 3°C with snow.'),
];

describe.each(BACKENDS)(`AkashicChatMessageHistory on ${MEMORY_ENGINE_NAME} ($name)`, (backend) => {
  let engine: Engine;
  let store: StoreSurface;
  let attached: Attached;
  beforeEach(async () => {
    engine = await memoryEngine();
    attached = await backend.attach(engine, { chunkGateTokens: 10_000 });
    store = attached.store;
  });
  afterEach(async () => {
    await attached.close();
    await engine.close();
  });

  it('returns the messages it was given, in order, types and tool calls included', async () => {
    const history = new AkashicChatMessageHistory({ store, userId: 'alice', sessionId: 's1' });
    const sent = conversation();
    await history.addMessages(sent.slice(0, 3));
    await history.addMessage(sent[3]!);
    await history.addMessages(sent.slice(4));
    const got = await history.getMessages();
    expect(got.map((m) => m.getType())).toEqual(['system', 'human', 'ai', 'tool', 'ai']);
    expect(got.map((m) => m.content)).toEqual(sent.map((m) => m.content));
    expect((got[2] as AIMessage).tool_calls?.[0]).toMatchObject({ id: 'call-1', name: 'weather', args: { city: 'Oslo' } });
    expect((got[3] as ToolMessage).tool_call_id).toBe('call-1');
    expect(got[1]!.id).toBe('h1');
  });

  it('keeps sessions apart and clears one', async () => {
    const a = new AkashicChatMessageHistory({ store, userId: 'alice', sessionId: 's1' });
    const b = new AkashicChatMessageHistory({ store, userId: 'alice', sessionId: 's2' });
    await a.addUserMessage('one');
    await b.addAIMessage('two');
    await a.clear();
    expect(await a.getMessages()).toEqual([]);
    expect((await b.getMessages()).map((m) => m.content)).toEqual(['two']);
    await a.addUserMessage('again');
    expect((await a.getMessages()).map((m) => m.content)).toEqual(['again']);
  });

  it('feeds human and AI messages to MemAttention, with the transcript chunks as provenance', async () => {
    const memory = attached.memory;
    const history = new AkashicChatMessageHistory({ store, userId: 'alice', sessionId: 's1', memory });
    await history.addMessages(conversation());
    const active = await memory.activeTurns({ user: 'alice', session: 's1' });
    expect(active.map((t) => [t.role, t.text])).toEqual([
      ['user', 'What is the weather in Oslo?'],
      ['assistant', 'Cold: 3°C with snow.'],
    ]);
    const { compacted } = await memory.endSession({ user: 'alice', session: 's1' });
    const transcript = [];
    for await (const e of engine.list('alice', { sessionId: 'lc.history.s1' })) transcript.push(e.chunkId);
    expect(compacted[0]!.turnIds).toEqual([transcript[1], transcript[4]]);
    const recalled = await memory.recall({ user: 'alice', session: 's1', query: 'weather in Oslo' });
    expect(recalled.text).toContain('Oslo');
  });

  it('rejects bad options', () => {
    expect(() => new AkashicChatMessageHistory({ store, userId: '', sessionId: 's' })).toThrow(/userId/);
    expect(() => new AkashicChatMessageHistory({ store, userId: 'u', sessionId: 'x'.repeat(250) })).toThrow(/too long/);
  });
});

describe(`AkashicChatMessageHistory on ${DURABLE_ENGINE_NAME}`, () => {
  it('reads the transcript back after a reopen', async () => {
    const disk = await diskEngine();
    try {
      await new AkashicChatMessageHistory({ store: disk.engine, userId: 'bob', sessionId: 'chat 1' }).addMessages(conversation());
      await disk.engine.close();
      const engine = await disk.reopen();
      const got = await new AkashicChatMessageHistory({ store: engine, userId: 'bob', sessionId: 'chat 1' }).getMessages();
      expect(got.map((m) => m.content)).toEqual(conversation().map((m) => m.content));
      expect(await engine.sessions('bob')).toEqual(['lc.history.chat 1']);
      await engine.close();
    } finally {
      await disk.cleanup();
    }
  });
});

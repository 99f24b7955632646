/**
 * End to end: a LangGraph StateGraph with a fake chat model, checkpointed by AkashicSaver and remembering through
 * AkashicStore, both over one classic-level engine that is closed and reopened between two turns of one thread.
 */
import { SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { END, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import type { AkashicStore as Engine } from '../../src/index.js';
import { AkashicSaver, AkashicLangGraphStore } from '../../src/adapters/langgraph/index.js';
import { diskEngine } from './engines.js';

function buildGraph(engine: Engine, responses: string[], prompts: string[]) {
  const model = new FakeListChatModel({ responses });
  const text = (m: BaseMessage | undefined): string => (typeof m?.content === 'string' ? m.content : '');
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state, config: LangGraphRunnableConfig) => {
      const ns = [String(config.configurable?.['userId']), 'memories'];
      const said = text(state.messages.at(-1));
      const memories = await config.store!.search(ns, { query: said, limit: 3 });
      const system = `Known about the user:\n${memories.map((m) => String(m.value['text'])).join('\n')}`;
      prompts.push(system);
      const reply = await model.invoke([new SystemMessage(system), ...state.messages]);
      if (said.startsWith('Remember')) await config.store!.put(ns, `m${state.messages.length}`, { text: said.slice('Remember that '.length) });
      return { messages: [reply] };
    })
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile({ checkpointer: new AkashicSaver({ store: engine }), store: new AkashicLangGraphStore({ store: engine }) });
}

describe('a LangGraph graph on Akashic', () => {
  it('keeps thread state in the saver and long-term memory in the store across a reopen', async () => {
    const disk = await diskEngine();
    try {
      const prompts: string[] = [];
      const config = { configurable: { thread_id: 'thread-1', userId: 'alice' } };
      const first = await buildGraph(disk.engine, ['Noted.'], prompts).invoke({ messages: [{ role: 'user', content: 'Remember that I drink green tea' }] }, config);
      expect(first.messages.map((m) => m.content)).toEqual(['Remember that I drink green tea', 'Noted.']);
      await disk.engine.close();

      const engine = await disk.reopen();
      const graph = buildGraph(engine, ['You drink green tea.'], prompts);
      const second = await graph.invoke({ messages: [{ role: 'user', content: 'What do I drink? tea?' }] }, config);
      expect(second.messages.map((m) => m.content)).toEqual(['Remember that I drink green tea', 'Noted.', 'What do I drink? tea?', 'You drink green tea.']);
      expect(prompts[1]).toContain('I drink green tea');

      // Another thread of the same user starts empty but shares the memory.
      const other = await graph.invoke({ messages: [{ role: 'user', content: 'tea?' }] }, { configurable: { thread_id: 'thread-2', userId: 'alice' } });
      expect(other.messages).toHaveLength(2);
      expect(prompts[2]).toContain('I drink green tea');

      const state = await graph.getState(config);
      expect(state.values.messages).toHaveLength(4);
      const history = [];
      for await (const s of graph.getStateHistory(config)) history.push(s);
      expect(history.length).toBeGreaterThanOrEqual(4);
      await engine.close();
    } finally {
      await disk.cleanup();
    }
  });
});

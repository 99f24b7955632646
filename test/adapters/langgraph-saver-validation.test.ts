/**
 * The official checkpointer conformance suite (`@langchain/langgraph-checkpoint-validation`), all of it: the five
 * suites `validate` runs plus the opt-in getDeltaChannelHistory suite, once over the embedded engine and once
 * through `akashic/client` against an in-process service. The suite is written against Jest-style globals, so
 * vitest's are installed on globalThis before it is loaded.
 */
import * as vitest from 'vitest';
import { AkashicStore as Engine } from '../../src/index.js';
import { AkashicSaver } from '../../src/adapters/langgraph/index.js';
import { BACKENDS, EMBEDDED, type Attached } from './backends.js';
import { TEST_ENGINE } from '../support/test-engine.js';
import { DURABLE_ENGINE_NAME, memoryEngine } from './engines.js';

const { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } = vitest;
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { validate, deltaChannelHistoryTests } = await import('@langchain/langgraph-checkpoint-validation');

// Over Redis the suite (about 700 tests, each on a store of its own) runs once, embedded: the remote path adds the
// service and its wire, which do not depend on the backend and run over memory-level in the default tier.
for (const backend of TEST_ENGINE === 'redis' ? [EMBEDDED] : BACKENDS) {
  const opened = new WeakMap<AkashicSaver, { engine: Engine; attached: Attached }>();
  const initializer = {
    checkpointerName: `AkashicSaver (${backend.name})`,
    async createCheckpointer(): Promise<AkashicSaver> {
      const engine = await memoryEngine();
      const attached = await backend.attach(engine);
      const saver = new AkashicSaver({ store: attached.store });
      opened.set(saver, { engine, attached });
      return saver;
    },
    async destroyCheckpointer(saver: AkashicSaver): Promise<void> {
      const o = opened.get(saver);
      await o?.attached.close();
      await o?.engine.close();
    },
  };
  validate(initializer);
  deltaChannelHistoryTests(initializer);
}

describe(`AkashicSaver on ${DURABLE_ENGINE_NAME}`, () => {
  it('keeps checkpoints, blobs and writes across a reopen, and deletes a thread', async () => {
    const { diskEngine } = await import('./engines.js');
    const { emptyCheckpoint } = await import('@langchain/langgraph-checkpoint');
    const disk = await diskEngine();
    try {
      const saver = new AkashicSaver({ store: disk.engine });
      const cp = { ...emptyCheckpoint(), channel_values: { messages: ['hi'] }, channel_versions: { messages: 1 } };
      const config = await saver.put({ configurable: { thread_id: 'long-thread\u0001'.repeat(30) } }, cp, { source: 'input', step: -1, parents: {} }, { messages: 1 });
      await saver.putWrites(config, [['messages', ['hello']]], 'task-1', 'path');
      await disk.engine.close();
      const engine = await disk.reopen();
      const again = new AkashicSaver({ store: engine });
      const tuple = await again.getTuple(config);
      expect(tuple?.checkpoint.channel_values).toEqual({ messages: ['hi'] });
      expect(tuple?.pendingWrites).toEqual([['task-1', 'messages', ['hello']]]);
      const listed = [];
      for await (const t of again.list({})) listed.push(t);
      expect(listed.map((t) => t.config.configurable?.['thread_id'])).toEqual(['long-thread\u0001'.repeat(30)]);
      await again.deleteThread('long-thread\u0001'.repeat(30));
      expect(await again.getTuple(config)).toBeUndefined();
      expect(await engine.sessions('langgraph.checkpoints')).toHaveLength(1); // tombstones remain until GC
      await engine.close();
    } finally {
      await disk.cleanup();
    }
  });
});

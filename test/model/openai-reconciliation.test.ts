import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryLevel } from 'memory-level';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import type { ChunkBodyView, JointCompactResult, MemoryModel } from '../../src/model/memory-model.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { startScriptedChatServer, type ScriptedChatServer } from './scripted-chat-server.js';
import { body } from './fixtures.js';

let server: ScriptedChatServer;
beforeAll(async () => {
  server = await startScriptedChatServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

const chat = (): OpenAIChatModel => new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', model: 'scripted-model', retryDelayMs: 0 });
const related = [body('r1', 'Bob: I work at Acme. I love my dog Rex.', ['acme', 'rex']), body('r2', 'Bob: I live in Boston.', ['boston'])];

describe("the chat model's reconciliation follows the same rules as the embedded model", () => {
  it('the prompt states them: statement by statement, same fact of the same person, never for additions or others', async () => {
    server.enqueue({ kind: 'json', value: { text: 'Bob: My brother plays tennis on Fridays.', updates: [], deletions: [] } });
    await chat().jointCompact({ text: 'Bob: My brother plays tennis on Fridays.', keywords: ['brother', 'tennis'] }, related);
    const system = server.requests[0]!.body.messages![0]!.content;
    expect(system).toMatch(/statement by statement/i);
    expect(system).toMatch(/same fact about the same person a new value/);
    expect(system).toMatch(/someone else/);
    expect(system).toMatch(/addition/);
    expect(system).toMatch(/"reasons"/);
  });

  it("an update: the stale statement's chunk is rewritten, with the model's reason", async () => {
    server.enqueue({
      kind: 'json',
      value: {
        text: 'Bob: I started at Globex.',
        updates: [{ id: 'r1', text: 'Bob: I love my dog Rex.' }],
        deletions: [],
        reasons: { r1: 'employer: "I work at Acme" replaced by "I started at Globex"', r2: 'not changed, so dropped' },
      },
    });
    const r = await chat().jointCompact({ text: 'Bob: I started at Globex.', keywords: ['globex'] }, related);
    expect(r).toEqual({
      text: 'Bob: I started at Globex.',
      updates: [{ id: 'r1', text: 'Bob: I love my dog Rex.' }],
      deletions: [],
      reasons: { r1: 'employer: "I work at Acme" replaced by "I started at Globex"' },
    });
  });

  it("an addition and another person's fact change nothing, and a reply without reasons stays valid", async () => {
    for (const text of ['Bob: My daughter also started violin.', 'Bob: My brother plays tennis on Fridays.']) {
      server.enqueue({ kind: 'json', value: { text, updates: [], deletions: [] } });
      expect(await chat().jointCompact({ text, keywords: [] }, related)).toEqual({ text, updates: [], deletions: [] });
    }
  });
});

/** The embedded model for every step but JOINT-COMPACT, which the chat model answers. */
class ChatReconciler implements MemoryModel {
  readonly name = 'embedded+chat';
  readonly #e = new EmbeddedModel({ denseSignal: false });
  readonly #chat = chat();
  compress = this.#e.compress.bind(this.#e);
  buildMeta = this.#e.buildMeta.bind(this.#e);
  select = this.#e.select.bind(this.#e);
  colocate = this.#e.colocate.bind(this.#e);
  group = this.#e.group.bind(this.#e);
  jointCompact(fresh: { text: string; keywords: readonly string[] }, rel: readonly ChunkBodyView[]): Promise<JointCompactResult> {
    return this.#chat.jointCompact(fresh, rel);
  }
}

describe('a chat-model reconciliation through AkashicMemory', () => {
  it("keeps the model's reason in the compaction result and in history", async () => {
    const store = await AkashicStore.open({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }), gc: { intervalMs: 0 } });
    const memory = new AkashicMemory(store, { model: new ChatReconciler(), relocateEveryRecalls: 0 });
    try {
      await memory.appendTurn({ user: 'bob', session: 's1', role: 'Bob', text: 'I work at Acme. I love my dog Rex.' });
      const first = (await memory.endSession({ user: 'bob', session: 's1' })).compacted[0]!.chunk!;
      // The second compaction's SELECT offers the first chunk; the scripted chat model retires its stale statement.
      const id = `${first.sessionId}\u0000${first.chunkId}`;
      server.enqueue({
        kind: 'json',
        value: { text: 'Bob: I started at Acme Labs rival Globex.', updates: [{ id, text: 'Bob: I love my dog Rex.' }], deletions: [], reasons: { [id]: 'employer: Acme → Globex' } },
      });
      await memory.appendTurn({ user: 'bob', session: 's2', role: 'Bob', text: 'I started at Globex, leaving Acme.' });
      const second = (await memory.endSession({ user: 'bob', session: 's2' })).compacted[0]!;
      expect(second.updated).toEqual([first]);
      expect(second.reasons).toEqual([{ chunk: first, reason: 'employer: Acme → Globex' }]);
      const h = await memory.history({ user: 'bob', session: first.sessionId, chunkId: first.chunkId });
      expect(h[1]!.reason).toBe('employer: Acme → Globex');
      expect(h[0]!.record.text).toBe('Bob: I love my dog Rex.');
    } finally {
      await memory.close();
      await store.close();
    }
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { isAkashicError } from '../../src/errors.js';
import { SCRIPTED_USAGE, startScriptedChatServer } from './scripted-chat-server.js';
import type { ScriptedChatServer } from './scripted-chat-server.js';
import { NO_CO_ACCESS, body, meta, turn } from './fixtures.js';

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

function newModel(): OpenAIChatModel {
  return new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'test-key', model: 'scripted-model', retryDelayMs: 0 });
}

describe('OpenAIChatModel success path', () => {
  it('compress: sends the model name, JSON response_format, temperature 0, system + user messages', async () => {
    const model = newModel();
    server.enqueue({ kind: 'json', value: { text: '2024-05-01: user adopted a grey cat, Miso.' } });
    const result = await model.compress([turn('t1', 'user', 'I adopted a cat named Miso')]);
    expect(result).toEqual({ text: '2024-05-01: user adopted a grey cat, Miso.' });

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.authorization).toBe('Bearer test-key');
    expect(request?.body.model).toBe('scripted-model');
    expect(request?.body.response_format).toEqual({ type: 'json_object' });
    expect(request?.body.temperature).toBe(0);
    expect(request?.body.messages?.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request?.body.messages?.[0]?.content).toMatch(/JSON/);
    expect(request?.body.messages?.[1]?.content).toContain('I adopted a cat named Miso');
    expect(model.name).toBe('openai:scripted-model');
  });

  it('buildMeta: normalizes keywords to lower-case, trimmed, distinct', async () => {
    server.enqueue({ kind: 'json', value: { keywords: ['Miso', ' cat ', 'miso', '', 'Vet'] } });
    expect(await newModel().buildMeta('Miso the cat sees the vet')).toEqual({ keywords: ['miso', 'cat', 'vet'] });
  });

  it('select: drops unknown and repeated ids and truncates to topP', async () => {
    server.enqueue({ kind: 'json', value: { ids: ['c2', 'ghost', 'c2', 'c1', 'c3'] } });
    const candidates = [meta('c1', ['a']), meta('c2', ['b']), meta('c3', ['c'])];
    expect(await newModel().select({ text: 'q', keywords: ['b'] }, candidates, 2)).toEqual(['c2', 'c1']);
  });

  it('jointCompact: returns text, updates and deletions of related chunks', async () => {
    server.enqueue({
      kind: 'json',
      value: { text: 'Miso moved to Berlin.', updates: [{ id: 'r1', text: 'Miso lived in Paris until May.' }], deletions: ['r2'] },
    });
    const result = await newModel().jointCompact({ text: 'Miso moved to Berlin', keywords: ['miso', 'berlin'] }, [
      body('r1', 'Miso lives in Paris', ['miso', 'paris']),
      body('r2', 'Miso address: Paris', ['miso', 'paris']),
    ]);
    expect(result).toEqual({
      text: 'Miso moved to Berlin.',
      updates: [{ id: 'r1', text: 'Miso lived in Paris until May.' }],
      deletions: ['r2'],
    });
  });

  it('colocate: keeps groups of known ids with at least two members', async () => {
    server.enqueue({ kind: 'json', value: { groups: [['a', 'b', 'ghost'], ['c'], ['b', 'd']] } });
    const chunks = ['a', 'b', 'c', 'd'].map((id) => meta(id, ['k']));
    // `b` is already placed, so the last group shrinks to ['d'] and is dropped.
    expect(await newModel().colocate(chunks, NO_CO_ACCESS, 0.5)).toEqual([['a', 'b']]);
  });

  it('group: repairs the partition so every id appears exactly once', async () => {
    server.enqueue({ kind: 'json', value: { groups: [['a', 'b'], ['b', 'ghost'], []] } });
    const chunks = ['a', 'b', 'c', 'd'].map((id) => meta(id, ['k']));
    expect(await newModel().group(chunks, NO_CO_ACCESS)).toEqual([['a', 'b'], ['c'], ['d']]);
  });

  it('answers trivial calls without a request', async () => {
    const model = newModel();
    expect(await model.compress([])).toEqual({ text: '' });
    expect(await model.select({ text: 'q', keywords: [] }, [], 5)).toEqual([]);
    expect(await model.group([meta('only', [])], NO_CO_ACCESS)).toEqual([['only']]);
    expect(await model.colocate([meta('only', [])], NO_CO_ACCESS, 0.5)).toEqual([]);
    expect(server.requests).toHaveLength(0);
    expect(model.stats.calls).toBe(0);
  });

  it('counts calls, requests and reported token usage', async () => {
    const model = newModel();
    server.enqueue({ kind: 'json', value: { keywords: ['a'] } }, { kind: 'json', value: { keywords: ['b'] } });
    await model.buildMeta('a');
    await model.buildMeta('b');
    expect(model.stats).toEqual({
      calls: 2,
      requests: 2,
      retries: 0,
      failures: 0,
      promptTokens: 2 * SCRIPTED_USAGE.prompt_tokens,
      completionTokens: 2 * SCRIPTED_USAGE.completion_tokens,
    });
  });
});

describe('OpenAIChatModel configuration', () => {
  it('takes base URL, key and model from the environment', async () => {
    vi.stubEnv('OPENAI_BASE_URL', server.baseURL);
    vi.stubEnv('OPENAI_API_KEY', 'env-key');
    vi.stubEnv('AKASHIC_MODEL', 'env-model');
    try {
      const model = new OpenAIChatModel({ retryDelayMs: 0 });
      server.enqueue({ kind: 'json', value: { text: 'ok' } });
      await model.compress([turn('t', 'user', 'hi')]);
      expect(model.name).toBe('openai:env-model');
      expect(server.requests[0]?.body.model).toBe('env-model');
      expect(server.requests[0]?.authorization).toBe('Bearer env-key');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('rejects bad options with AKASHIC_INVALID_ARGUMENT naming the option', () => {
    const bad = [{ timeoutMs: 0 }, { maxRetries: -1 }, { maxRetries: 1.5 }, { retryDelayMs: -1 }, { temperature: 3 }];
    for (const options of bad) {
      const name = Object.keys(options)[0] ?? '';
      let caught: unknown;
      try {
        new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', ...options });
      } catch (err) {
        caught = err;
      }
      expect(isAkashicError(caught, 'AKASHIC_INVALID_ARGUMENT')).toBe(true);
      expect((caught as Error).message).toContain(name);
    }
  });

  it('requires an API key when talking to OpenAI itself', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    try {
      expect(() => new OpenAIChatModel()).toThrowError(/apiKey/);
      // A custom endpoint without a key is allowed: local servers usually ignore it.
      expect(() => new OpenAIChatModel({ baseURL: server.baseURL })).not.toThrow();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

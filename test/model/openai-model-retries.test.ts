import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APIConnectionTimeoutError, APIError } from 'openai';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import type { OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import { AkashicError, isAkashicError } from '../../src/errors.js';
import { startScriptedChatServer } from './scripted-chat-server.js';
import type { ScriptStep, ScriptedChatServer } from './scripted-chat-server.js';
import { body, meta } from './fixtures.js';

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

function newModel(options: OpenAIChatModelOptions = {}): OpenAIChatModel {
  return new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', model: 'm', retryDelayMs: 0, ...options });
}

async function rejection(promise: Promise<unknown>): Promise<AkashicError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AkashicError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

const META_OK: ScriptStep = { kind: 'json', value: { keywords: ['ok'] } };

describe('OpenAIChatModel retries', () => {
  it('retries after malformed JSON, then succeeds', async () => {
    const model = newModel();
    server.enqueue({ kind: 'content', content: '{"keywords": ["unterminated' }, META_OK);
    expect(await model.buildMeta('text')).toEqual({ keywords: ['ok'] });
    expect(server.requests).toHaveLength(2);
    expect(model.stats).toMatchObject({ calls: 1, requests: 2, retries: 1, failures: 0 });
  });

  it('retries after a schema mismatch, then succeeds', async () => {
    server.enqueue({ kind: 'json', value: { keywords: 'not-an-array' } }, META_OK);
    expect(await newModel().buildMeta('text')).toEqual({ keywords: ['ok'] });
    expect(server.requests).toHaveLength(2);
  });

  it('treats a jointCompact naming an unrelated chunk as malformed and retries', async () => {
    server.enqueue(
      { kind: 'json', value: { text: 't', updates: [{ id: 'stranger', text: 'x' }], deletions: [] } },
      { kind: 'json', value: { text: 't', updates: [], deletions: ['r1'] } },
    );
    const result = await newModel().jointCompact({ text: 't', keywords: [] }, [body('r1', 'old', [])]);
    expect(result).toEqual({ text: 't', updates: [], deletions: ['r1'] });
    expect(server.requests).toHaveLength(2);
  });

  it('fails with AKASHIC_MODEL after exactly maxRetries + 1 requests, with the cause attached', async () => {
    const maxRetries = 3;
    const model = newModel({ maxRetries });
    for (let i = 0; i <= maxRetries; i += 1) server.enqueue({ kind: 'content', content: 'definitely not json' });
    server.enqueue(META_OK); // must never be reached

    const err = await rejection(model.buildMeta('text'));
    expect(isAkashicError(err, 'AKASHIC_MODEL')).toBe(true);
    expect(err.cause).toBeInstanceOf(Error);
    expect((err.cause as Error).name).toBe('MalformedReplyError');
    expect(err.message).toContain(`${maxRetries + 1} request(s)`);
    expect(server.requests).toHaveLength(maxRetries + 1);
    expect(server.remaining()).toBe(1);
    expect(model.stats).toMatchObject({ calls: 1, requests: maxRetries + 1, retries: maxRetries, failures: 1 });
  });

  it('with maxRetries 0 sends exactly one request', async () => {
    server.enqueue({ kind: 'status', status: 500 }, META_OK);
    const err = await rejection(newModel({ maxRetries: 0 }).buildMeta('text'));
    expect(err.code).toBe('AKASHIC_MODEL');
    expect(server.requests).toHaveLength(1);
  });
});

describe('OpenAIChatModel HTTP and timeout failures', () => {
  it('retries HTTP 500, then succeeds', async () => {
    server.enqueue({ kind: 'status', status: 500 }, { kind: 'json', value: { ids: ['a'] } });
    expect(await newModel().select({ text: 'q', keywords: [] }, [meta('a', ['q'])], 5)).toEqual(['a']);
    expect(server.requests).toHaveLength(2);
  });

  it('fails on persistent HTTP 500 with the API error as cause', async () => {
    server.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 502 }, { kind: 'status', status: 503 });
    const err = await rejection(newModel({ maxRetries: 2 }).compress([{ turnId: 't', role: 'user', text: 'x', at: 0 }]));
    expect(err.code).toBe('AKASHIC_MODEL');
    expect(err.cause).toBeInstanceOf(APIError);
    expect((err.cause as APIError).status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('retries HTTP 429, then succeeds', async () => {
    server.enqueue({ kind: 'status', status: 429, headers: { 'retry-after-ms': '10' } }, META_OK);
    expect(await newModel().buildMeta('text')).toEqual({ keywords: ['ok'] });
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a non-transient 4xx such as 401', async () => {
    server.enqueue({ kind: 'status', status: 401 }, META_OK);
    const err = await rejection(newModel({ maxRetries: 2 }).buildMeta('text'));
    expect(err.code).toBe('AKASHIC_MODEL');
    expect((err.cause as APIError).status).toBe(401);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a timed-out request, then succeeds', async () => {
    server.enqueue({ kind: 'delay', ms: 1_000, then: META_OK }, META_OK);
    expect(await newModel({ timeoutMs: 200 }).buildMeta('text')).toEqual({ keywords: ['ok'] });
    expect(server.requests).toHaveLength(2);
  });

  it('fails after every attempt times out, with the timeout as cause', async () => {
    server.enqueue({ kind: 'delay', ms: 2_000 }, { kind: 'delay', ms: 2_000 });
    const err = await rejection(newModel({ timeoutMs: 200, maxRetries: 1 }).buildMeta('text'));
    expect(err.code).toBe('AKASHIC_MODEL');
    expect(err.cause).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(2);
    // Two bounded attempts, not the server's full delay: the client itself cut both requests short (the server saw
    // each connection close before its delay ended; the test's own timeout bounds the wait).
    await server.abandoned(2);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AkashicError, OpenAIEmbedder, type OpenAIEmbedderOptions } from '../../src/index.js';
import { conceptVector, startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from './scripted-embeddings-server.js';

let server: ScriptedEmbeddingsServer;
beforeAll(async () => {
  server = await startScriptedEmbeddingsServer(conceptVector);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const DIMS = conceptVector('').length;

function embedder(options: OpenAIEmbedderOptions = {}): OpenAIEmbedder {
  return new OpenAIEmbedder({ baseURL: server.baseURL, apiKey: 'k', model: 'toy', dimensions: DIMS, retryDelayMs: 0, ...options });
}

async function rejection(p: Promise<unknown>): Promise<AkashicError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AkashicError)) throw new Error(`expected an AkashicError, got ${String(err)}`);
  return err;
}

describe('OpenAIEmbedder', () => {
  it('sends the real request shape and returns one Float32Array per text, in input order', async () => {
    const e = embedder();
    server.enqueue({ kind: 'vectors', vectors: ['I moved to Lisbon', 'a puppy'].map(conceptVector), reverse: true });
    const out = await e.embed(['I moved to Lisbon', 'a puppy']);
    expect(out.map((v) => Array.from(v))).toEqual(['I moved to Lisbon', 'a puppy'].map((t) => Array.from(Float32Array.from(conceptVector(t)))));
    expect(server.requests[0]).toEqual({ model: 'toy', input: ['I moved to Lisbon', 'a puppy'], encoding_format: 'float' });
    expect(e.id).toBe(`openai:toy@${DIMS}`);
    expect(e.stats).toMatchObject({ calls: 1, requests: 1, retries: 0, failures: 0, texts: 2, promptTokens: 6 });
  });

  it('splits a large call into batches and asks for the dimension only when told to', async () => {
    const e = embedder({ batchSize: 2, requestDimensions: true });
    const out = await e.embed(['a', 'b', 'c', 'd', 'e']);
    expect(out).toHaveLength(5);
    expect(server.requests.map((r) => r.input)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(server.requests[0]!.dimensions).toBe(DIMS);
  });

  it('retries 500 and 429 (honouring retry-after), then succeeds', async () => {
    const e = embedder();
    server.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 429, headers: { 'retry-after-ms': '1' } });
    expect(await e.embed(['dog'])).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
    expect(e.stats).toMatchObject({ requests: 3, retries: 2, failures: 0 });
  });

  it('retries malformed JSON and a wrong vector count, and fails with AKASHIC_MODEL when retries run out', async () => {
    const e = embedder({ maxRetries: 2 });
    server.enqueue({ kind: 'raw', body: '{"data": [' }, { kind: 'vectors', vectors: [] }, { kind: 'raw', body: '{"data": "no"}' });
    const err = await rejection(e.embed(['dog']));
    expect(err.code).toBe('AKASHIC_MODEL');
    expect(err.message).toMatch(/after 3 request\(s\)/);
    expect(server.requests).toHaveLength(3);
    // The next call works again.
    expect(await e.embed(['dog'])).toHaveLength(1);
  });

  it('refuses vectors of the wrong dimension at once, naming both lengths', async () => {
    const e = embedder();
    server.enqueue({ kind: 'vectors', vectors: [[1, 2, 3]] });
    const err = await rejection(e.embed(['dog']));
    expect(err.code).toBe('AKASHIC_MODEL');
    expect(err.message).toContain(`3-dimensional`);
    expect(err.message).toContain(`configured for ${DIMS}`);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses non-finite numbers (retried as malformed)', async () => {
    const e = embedder({ maxRetries: 0 });
    server.enqueue({ kind: 'raw', body: JSON.stringify({ data: [{ index: 0, embedding: new Array(DIMS).fill('x') }] }) });
    expect((await rejection(e.embed(['dog']))).code).toBe('AKASHIC_MODEL');
  });

  it('times out a slow server and fails with AKASHIC_MODEL after its retries', async () => {
    const e = embedder({ timeoutMs: 100, maxRetries: 1 });
    server.enqueue({ kind: 'delay', ms: 2000 }, { kind: 'delay', ms: 2000 });
    const err = await rejection(e.embed(['dog']));
    expect(err.code).toBe('AKASHIC_MODEL');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 400 or 401', async () => {
    const e = embedder();
    server.enqueue({ kind: 'status', status: 401 });
    expect((await rejection(e.embed(['dog']))).code).toBe('AKASHIC_MODEL');
    expect(server.requests).toHaveLength(1);
  });

  it('validates its options with AKASHIC_INVALID_ARGUMENT', () => {
    const bad: OpenAIEmbedderOptions[] = [{ model: '' }, { dimensions: 0 }, { dimensions: 1.5 }, { batchSize: 0 }, { timeoutMs: -1 }];
    for (const o of bad) {
      expect(() => embedder(o)).toThrow(expect.objectContaining({ code: 'AKASHIC_INVALID_ARGUMENT' }));
    }
    const saved = process.env['AKASHIC_EMBEDDING_DIMENSIONS'];
    delete process.env['AKASHIC_EMBEDDING_DIMENSIONS'];
    try {
      expect(() => new OpenAIEmbedder({ baseURL: server.baseURL, model: 'm' })).toThrow(/dimensions is required/);
    } finally {
      if (saved !== undefined) process.env['AKASHIC_EMBEDDING_DIMENSIONS'] = saved;
    }
  });
});

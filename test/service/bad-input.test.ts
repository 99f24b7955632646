/**
 * Bad input over HTTP: malformed JSON, a body over the limit, wrong types, unknown fields, ids and filters out of
 * range. Each answers 400 with the engine's code AKASHIC_INVALID_ARGUMENT and changes nothing.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicError } from '../../src/index.js';
import { RemoteStore } from '../../src/client/index.js';
import { startService } from '../../src/service/index.js';
import { inProcessService, memoryStore, post } from './service-helpers.js';

let svc: Awaited<ReturnType<typeof inProcessService>>;
let url: string;
beforeAll(async () => {
  svc = await inProcessService({ maxBodyBytes: 64 * 1024 });
  url = svc.service.url;
  await post(url + '/v1/store/put', { userId: 'alice', chunk: { sessionId: 's1', text: 'the first fact' } });
});
afterAll(() => svc.stop());

async function everything(): Promise<string> {
  const listed = [];
  for await (const e of svc.service.store.list('alice', { includeDeleted: true })) listed.push([e.sessionId, e.chunkId, e.entry.version]);
  const turns = await svc.service.memory.activeTurns({ user: 'alice', session: 's1' });
  return JSON.stringify({ listed, turns, users: await svc.service.store.users() });
}

const CASES: [string, string, unknown, boolean?][] = [
  ['malformed JSON', '/v1/store/put', '{"userId": "alice", "chunk": {', true],
  ['a JSON array instead of an object', '/v1/memory/recall', '[1,2]', true],
  ['an empty body', '/v1/memory/append-turn', '', true],
  ['a wrong type', '/v1/store/put', { userId: 'alice', chunk: { sessionId: 's1', text: 42 } }],
  ['a wrong type deep inside', '/v1/memory/complete-request', { user: 'alice', session: 's1', turns: [{ role: 'user', text: ['x'] }] }],
  ['an unknown top-level field', '/v1/memory/append-turn', { user: 'alice', session: 's1', role: 'user', text: 'x', admin: true }],
  ['an unknown nested field', '/v1/store/write', { userId: 'alice', ops: [{ op: 'put', sessionId: 's1', text: 'x', sneaky: 1 }] }],
  ['an unknown op', '/v1/store/write', { userId: 'alice', ops: [{ op: 'truncate', sessionId: 's1' }] }],
  ['an id over 256 bytes', '/v1/store/put', { userId: 'u'.repeat(300), chunk: { sessionId: 's1', text: 'x' } }],
  ['an empty user id', '/v1/memory/append-turn', { user: '', session: 's1', role: 'user', text: 'x' }],
  ['a lone surrogate in a session id', '/v1/memory/append-turn', { user: 'alice', session: 's\ud800', role: 'user', text: 'x' }],
  ['a chunk id that is not a ULID', '/v1/store/get', { userId: 'alice', sessionId: 's1', chunkId: '../../etc/passwd' }],
  ['a filter with an unknown operator', '/v1/store/list', { userId: 'alice', filter: { attributes: { a: { like: 'x%' } } } }],
  ['a filter with too many values', '/v1/memory/recall', { user: 'alice', session: 's1', query: 'q', filter: { attributes: { a: { in: Array.from({ length: 2000 }, (_, i) => String(i)) } } } }],
  ['a recall topP out of range', '/v1/memory/recall', { user: 'alice', session: 's1', query: 'q', topP: 1000 }],
  ['an expectVersion out of range', '/v1/store/delete', { userId: 'alice', sessionId: 's1', chunkId: '01HZZZZZZZZZZZZZZZZZZZZZZZ', expectVersion: -1 }],
  ['a payload that is not base64', '/v1/store/put', { userId: 'alice', chunk: { sessionId: 's1', text: 'x', payload: '***' } }],
  ['a body over the limit', '/v1/memory/append-turn', { user: 'alice', session: 's1', role: 'user', text: 'x'.repeat(80 * 1024) }],
];

describe('bad input answers 400 AKASHIC_INVALID_ARGUMENT and changes nothing', () => {
  for (const [what, path, body, raw] of CASES) {
    it(what, async () => {
      const before = await everything();
      const r = await post(url + path, body, undefined, raw === true);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('AKASHIC_INVALID_ARGUMENT');
      expect(typeof r.body.message).toBe('string');
      expect(await everything()).toBe(before);
    });
  }

  it('a body of undeclared length (chunked) is limited as it arrives, and one under the limit is served', async () => {
    const chunked = (text: string): Promise<{ status: number; body: { code?: string } }> =>
      new Promise((resolve, reject) => {
        const req = request(url + '/v1/memory/append-turn', { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
          let answer = '';
          res.setEncoding('utf8');
          res.on('data', (piece: string) => (answer += piece));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(answer) as { code?: string } }));
        });
        req.on('error', reject);
        // Several writes, so the body really goes out in chunks of no declared total.
        for (let i = 0; i < text.length; i += 8 * 1024) req.write(text.slice(i, i + 8 * 1024));
        req.end();
      });
    const before = await everything();
    const over = await chunked(JSON.stringify({ user: 'alice', session: 's1', role: 'user', text: 'x'.repeat(80 * 1024) }));
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('AKASHIC_INVALID_ARGUMENT');
    expect(await everything()).toBe(before);
    const under = await chunked(JSON.stringify({ user: 'carol', session: 's1', role: 'user', text: 'y'.repeat(20 * 1024) }));
    expect(under.status).toBe(200);
    expect((await svc.service.memory.activeTurns({ user: 'carol', session: 's1' })).map((t) => t.text.length)).toEqual([20 * 1024]);
  });

  it('a wrong content type is refused', async () => {
    const r = await fetch(url + '/v1/store/users', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBe('AKASHIC_INVALID_ARGUMENT');
  });

  it('an unknown route is 404 AKASHIC_NOT_FOUND in the same error body', async () => {
    const r = await post(url + '/v1/store/drop-everything', {});
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('AKASHIC_NOT_FOUND');
  });

  it('the client throws the same AkashicError the embedded call throws', async () => {
    const remote = new RemoteStore({ baseUrl: url });
    const embedded = await svc.service.store.put('alice', { sessionId: 's1', text: 'x', kind: 'bogus' as never }).catch((e: unknown) => e);
    const over = await remote.put('alice', { sessionId: 's1', text: 'x', kind: 'bogus' as never }).catch((e: unknown) => e);
    expect(embedded).toBeInstanceOf(AkashicError);
    expect(over).toBeInstanceOf(AkashicError);
    expect((over as AkashicError).code).toBe((embedded as AkashicError).code);
    const tooLong = await remote.get('u'.repeat(300), 's', 'c').catch((e: unknown) => e);
    expect(tooLong).toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    expect(() => new RemoteStore({ baseUrl: url, bogus: 1 } as never)).toThrow(AkashicError);
  });
});

describe('starting the service', () => {
  it('refuses a non-loopback host without keys, and unknown options', async () => {
    const store = await memoryStore();
    try {
      await expect(startService({ store, host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
      await expect(startService({ store, port: 0, colour: 'blue' } as never)).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
      expect(store.status).toBe('open');
    } finally {
      await store.close();
    }
  });
});

/**
 * Tenancy: a key reaches only its own users. Every route (the table below must name each one the service serves)
 * is called with tenant A's key on tenant B's user and must answer 403 AKASHIC_FORBIDDEN, leak nothing of B's
 * data, and change nothing; B's own key still works; no key or an unknown key is 401.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_DEFS } from '../../src/service/service-app.js';
import { RemoteMemory, RemoteStore } from '../../src/client/index.js';
import { inProcessService, KEYS, post, tenantKeys } from './service-helpers.js';

let svc: Awaited<ReturnType<typeof inProcessService>>;
let bobChunk: string;
let bobMemoryChunk: string;
const SECRET = 'bob keeps the spare key under the blue flowerpot';
/** A stored note of bob's, unlike the conversation (so compaction does not reconcile it away). */
const NOTE = 'locker 12 by the flowerpot opens with 4711';

beforeAll(async () => {
  svc = await inProcessService({ keys: tenantKeys() });
  const bob = new RemoteStore({ baseUrl: svc.service.url, apiKey: KEYS.b });
  bobChunk = (await bob.put('bob', { sessionId: 's1', text: NOTE, kind: 'note', keywords: ['flowerpot'] })).chunkId;
  const mem = new RemoteMemory({ baseUrl: svc.service.url, apiKey: KEYS.b });
  await mem.appendTurn({ user: 'bob', session: 'chat', role: 'user', text: SECRET });
  const ended = await mem.endSession({ user: 'bob', session: 'chat' });
  bobMemoryChunk = ended.compacted[0]!.chunk!.chunkId;
});
afterAll(() => svc.stop());

/** A valid body for each route, naming bob (tenant B's user). */
function bobBodies(): Record<string, unknown> {
  return {
    memoryAppendTurn: { user: 'bob', session: 's9', role: 'user', text: 'injected' },
    memoryCompleteRequest: { user: 'bob', session: 's9', turns: [{ role: 'user', text: 'injected' }] },
    memoryEndSession: { user: 'bob', session: 'chat' },
    memoryEndOtherSessions: { user: 'bob', session: 'x' },
    memoryActiveTurns: { user: 'bob', session: 'chat' },
    memoryRecall: { user: 'bob', session: 'chat', query: 'where is the spare key?', scope: 'user' },
    memoryHistory: { user: 'bob', session: 'chat', chunkId: bobMemoryChunk },
    memoryPurge: { user: 'bob' },
    storePut: { userId: 'bob', chunk: { sessionId: 's1', text: 'injected' } },
    storeWrite: { userId: 'bob', ops: [{ op: 'delete', sessionId: 's1', chunkId: bobChunk }] },
    storeGet: { userId: 'bob', sessionId: 's1', chunkId: bobChunk },
    storeGetMany: { userId: 'bob', refs: [{ sessionId: 's1', chunkId: bobChunk }] },
    storeList: { userId: 'bob' },
    storeHistory: { userId: 'bob', sessionId: 's1', chunkId: bobChunk },
    storeUpdate: { userId: 'bob', sessionId: 's1', chunkId: bobChunk, text: 'overwritten' },
    storeDelete: { userId: 'bob', sessionId: 's1', chunkId: bobChunk },
    storePurge: { user: 'bob', session: 's1' },
    storeUsers: {},
    storeSessions: { userId: 'bob' },
    storeStats: null,
  };
}

/** Everything bob has, as bob's own key sees it: to show that nothing changed. */
async function bobSnapshot(): Promise<string> {
  const store = new RemoteStore({ baseUrl: svc.service.url, apiKey: KEYS.b });
  const listed = [];
  for await (const e of store.list('bob', { includeDeleted: true })) listed.push([e.sessionId, e.chunkId, e.entry.version, e.entry.state]);
  const active = await new RemoteMemory({ baseUrl: svc.service.url, apiKey: KEYS.b }).activeTurns({ user: 'bob', session: 's9' });
  return JSON.stringify({ listed, active, sessions: await store.sessions('bob') });
}

describe('every route refuses another tenant’s user', () => {
  it('names every route the service serves', () => {
    expect(Object.keys(bobBodies()).sort()).toEqual(ROUTE_DEFS.map((d) => d.operationId).sort());
  });

  for (const def of ROUTE_DEFS) {
    it(`${def.operationId}: 403 with tenant A’s key, nothing leaked or changed`, async () => {
      const before = await bobSnapshot();
      const body = bobBodies()[def.operationId];
      const url = svc.service.url + def.path;
      const res =
        def.method === 'get'
          ? await fetch(url, { headers: { 'x-api-key': KEYS.a } }).then(async (r) => ({ status: r.status, body: await r.json() }))
          : await post(url, body, KEYS.a);
      if (def.operationId === 'storeUsers') {
        // Not refused, but filtered: tenant A sees none of B's users.
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
      } else {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('AKASHIC_FORBIDDEN');
      }
      expect(JSON.stringify(res.body)).not.toContain('flowerpot');
      expect(await bobSnapshot()).toBe(before);
    });
  }

  it('lets tenant B read its own user, and lists only B’s users', async () => {
    const got = await post(svc.service.url + '/v1/store/get', { userId: 'bob', sessionId: 's1', chunkId: bobChunk }, KEYS.b);
    expect(got.status).toBe(200);
    expect(got.body.text).toBe(NOTE);
    await post(svc.service.url + '/v1/store/put', { userId: 'a:team', chunk: { sessionId: 's', text: 'a note' } }, KEYS.a);
    expect((await post(svc.service.url + '/v1/store/users', {}, KEYS.b)).body).toEqual(['bob']);
    expect((await post(svc.service.url + '/v1/store/users', {}, KEYS.a)).body).toEqual(['a:team']);
    expect(((await post(svc.service.url + '/v1/store/users', {}, KEYS.admin)).body as string[]).sort()).toEqual(['a:team', 'bob']);
  });

  it('refuses a prefix look-alike: key A (prefix "a:") cannot touch "b:a:x" or "a"', async () => {
    for (const user of ['b:a:x', 'a', 'A:x']) {
      const r = await post(svc.service.url + '/v1/store/sessions', { userId: user }, KEYS.a);
      expect(r.status).toBe(403);
    }
  });

  it('answers 401 without a key or with an unknown one, before reading anything', async () => {
    const none = await post(svc.service.url + '/v1/store/get', { userId: 'bob', sessionId: 's1', chunkId: bobChunk });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('AKASHIC_UNAUTHORIZED');
    const wrong = await post(svc.service.url + '/v1/store/get', { userId: 'bob', sessionId: 's1', chunkId: bobChunk }, 'key-b-secreT');
    expect(wrong.status).toBe(401);
    const bearer = await fetch(svc.service.url + '/v1/store/sessions', { method: 'POST', headers: { authorization: `Bearer ${KEYS.b}`, 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'bob' }) });
    expect(bearer.status).toBe(200);
  });

  it('keeps metrics and stats for admin keys', async () => {
    expect((await fetch(svc.service.url + '/metrics', { headers: { 'x-api-key': KEYS.a } })).status).toBe(403);
    expect((await fetch(svc.service.url + '/metrics')).status).toBe(401);
    const m = await fetch(svc.service.url + '/metrics', { headers: { 'x-api-key': KEYS.admin } });
    expect(m.status).toBe(200);
    expect(await m.text()).toContain('akashic_store_chunks');
  });

  it('the client surfaces the refusal as an AkashicError with the server’s code', async () => {
    const asA = new RemoteStore({ baseUrl: svc.service.url, apiKey: KEYS.a });
    await expect(asA.get('bob', 's1', bobChunk)).rejects.toMatchObject({ name: 'AkashicError', code: 'AKASHIC_FORBIDDEN' });
    const listing = async (): Promise<unknown[]> => {
      const out = [];
      for await (const e of asA.list('bob')) out.push(e);
      return out;
    };
    await expect(listing()).rejects.toMatchObject({ code: 'AKASHIC_FORBIDDEN' });
  });
});

describe('MCP over HTTP refuses another tenant’s user in every tool', () => {
  it('remember, recall, forget and history for bob with key A are errors and change nothing', async () => {
    const before = await bobSnapshot();
    const client = new Client({ name: 'tenancy-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(svc.service.url + '/mcp'), { requestInit: { headers: { 'x-api-key': KEYS.a } } }));
    const calls: [string, Record<string, unknown>][] = [
      ['remember', { user: 'bob', session: 's9', turns: [{ role: 'user', text: 'injected' }], endSession: true }],
      ['recall', { user: 'bob', session: 'chat', query: 'spare key' }],
      ['forget', { user: 'bob' }],
      ['forget', { user: 'bob', session: 's1', chunkId: bobChunk }],
      ['history', { user: 'bob', session: 'chat', chunkId: bobMemoryChunk }],
    ];
    for (const [name, args] of calls) {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(/^AKASHIC_FORBIDDEN/);
      expect(r.content[0]!.text).not.toContain('flowerpot');
    }
    await client.close();
    expect(await bobSnapshot()).toBe(before);
  });

  it('refuses /mcp without a key', async () => {
    const r = await post(svc.service.url + '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(r.status).toBe(401);
  });
});

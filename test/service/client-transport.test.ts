/**
 * The client's side of the HTTP exchange, against small loopback servers that misbehave on purpose (the one place a
 * stand-in server is the point: a real service does not stall, cut answers off or answer HTML) and against the real
 * service: connections are kept alive and reused, a stalled or cut-off answer is a typed error, a closed client
 * ends its connections, and a base URL may carry a path.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AkashicError } from '../../src/index.js';
import { RemoteMemory, RemoteStore } from '../../src/client/index.js';
import { inProcessService } from './service-helpers.js';

interface Stand {
  readonly url: string;
  /** Connections the server accepted, and whether each is still open. */
  readonly sockets: Socket[];
  /** Request paths in arrival order. */
  readonly paths: string[];
  readonly server: Server;
}

const open: Server[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback server whose handler is given each request after its body has been read. */
async function stand(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<Stand> {
  const sockets: Socket[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (body += piece));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', (s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets, paths, server };
}

const SESSION = { user: 'alice', session: 's1' };

function json(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function failureOf(p: Promise<unknown>): Promise<AkashicError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AkashicError);
  return err as AkashicError;
}

describe('the client keeps its connections', () => {
  it('sends calls one after another over one kept-alive connection, with the body and headers intact', async () => {
    const seen: unknown[] = [];
    const s = await stand((req, res, body) => {
      seen.push({ type: req.headers['content-type'], key: req.headers['x-api-key'], body: JSON.parse(body) });
      json(res, 200, []);
    });
    const memory = new RemoteMemory({ baseUrl: s.url, apiKey: 'k1' });
    for (let i = 0; i < 5; i++) expect(await memory.activeTurns({ user: 'alice', session: `s${i}` })).toEqual([]);
    expect(s.sockets).toHaveLength(1);
    expect(seen).toEqual(Array.from({ length: 5 }, (_, i) => ({ type: 'application/json', key: 'k1', body: { user: 'alice', session: `s${i}` } })));
    await memory.close();
  });

  it('ends its connections when closed, and refuses later calls with AKASHIC_NOT_OPEN', async () => {
    const s = await stand((_req, res) => json(res, 200, []));
    const memory = new RemoteMemory({ baseUrl: s.url });
    await memory.activeTurns(SESSION);
    const ended = new Promise((r) => s.sockets[0]!.once('close', r));
    await memory.close();
    await ended;
    expect((await failureOf(memory.activeTurns(SESSION))).code).toBe('AKASHIC_NOT_OPEN');
    expect(s.paths).toHaveLength(1);
  });

  it('lets a call under way finish when closed meanwhile', async () => {
    let answer!: () => void;
    const s = await stand((_req, res) => (answer = () => json(res, 200, [{ turnId: 't1' }])));
    const memory = new RemoteMemory({ baseUrl: s.url });
    const pending = memory.activeTurns(SESSION);
    while (s.paths.length === 0) await new Promise((r) => setTimeout(r, 5));
    await memory.close();
    answer();
    expect(await pending).toEqual([{ turnId: 't1' }]);
  });

  it('sends its routes under the path of a base URL', async () => {
    const s = await stand((_req, res) => json(res, 200, ['alice']));
    const store = new RemoteStore({ baseUrl: `${s.url}/memory-api/` });
    expect(await store.users()).toEqual(['alice']);
    expect(s.paths).toEqual(['/memory-api/v1/store/users']);
    await store.close();
  });
});

describe('the client turns a failed exchange into a typed error', () => {
  it('AKASHIC_TIMEOUT when no answer comes, and when the answer stalls half-way', async () => {
    const silent = await stand(() => undefined);
    const memory = new RemoteMemory({ baseUrl: silent.url, timeoutMs: 150 });
    const t0 = Date.now();
    expect((await failureOf(memory.activeTurns(SESSION))).code).toBe('AKASHIC_TIMEOUT');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);

    const stalled = await stand((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
      res.write('[{"turnId":');
    });
    const half = new RemoteMemory({ baseUrl: stalled.url, timeoutMs: 150 });
    expect((await failureOf(half.activeTurns(SESSION))).code).toBe('AKASHIC_TIMEOUT');
  });

  it('AKASHIC_IO when the answer is cut off, is not JSON, or nothing listens', async () => {
    const cut = await stand((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
      res.write('[{"turnId":', () => res.destroy());
    });
    expect((await failureOf(new RemoteMemory({ baseUrl: cut.url }).activeTurns(SESSION))).code).toBe('AKASHIC_IO');

    const html = await stand((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    const proxied = await failureOf(new RemoteMemory({ baseUrl: html.url }).activeTurns(SESSION));
    expect(proxied.code).toBe('AKASHIC_IO');
    expect(proxied.message).toContain('502');

    const garbled = await stand((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('not json');
    });
    expect((await failureOf(new RemoteMemory({ baseUrl: garbled.url }).activeTurns(SESSION))).code).toBe('AKASHIC_IO');

    const gone = html.url;
    html.server.closeAllConnections();
    await new Promise((r) => html.server.close(r));
    open.splice(open.indexOf(html.server), 1);
    const unreachable = await failureOf(new RemoteMemory({ baseUrl: gone }).activeTurns(SESSION));
    expect(unreachable.code).toBe('AKASHIC_IO');
    expect(unreachable.cause).toBeInstanceOf(Error);
  });
});

describe('against the service', () => {
  it('streams a listing, lets the caller leave one early, and answers the next calls on the same client', async () => {
    const svc = await inProcessService();
    try {
      const store = new RemoteStore({ baseUrl: svc.service.url });
      for (let i = 0; i < 3; i++) await store.put('alice', { sessionId: 's1', text: `fact ${i}` });
      const listed = [];
      for await (const e of store.list('alice')) listed.push(e.chunkId);
      expect(listed).toHaveLength(3);
      for await (const _ of store.list('alice')) break;
      expect(await store.sessions('alice')).toEqual(['s1']);
      const wrong = await failureOf(store.put('alice', { sessionId: 's1', text: 7 as never }));
      expect(wrong.code).toBe('AKASHIC_INVALID_ARGUMENT');
      await store.close();
    } finally {
      await svc.stop();
    }
  });
});

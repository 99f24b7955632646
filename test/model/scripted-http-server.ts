/**
 * The HTTP scaffolding the scripted OpenAI-protocol servers share (`scripted-chat-server.ts`,
 * `scripted-embeddings-server.ts`): a real server on 127.0.0.1 with an OS-chosen port that parses each request's
 * JSON body, lets the server record it, answers its one route and 404s anything else.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedHttpServer {
  /** Base URL to hand to the client, ending in `/v1`. */
  readonly baseURL: string;
  close(): Promise<void>;
}

/** Sends `body` (JSON text) unless the client already went away. */
export function sendJsonText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts the server. Every request's body (parsed JSON; `{}` when it is not JSON, so a test inspecting it fails with
 * a clear diff) goes to `record`; `POST /v1<route>` then goes to `handle`, any other request gets a 404.
 */
export async function startScriptedHttpServer<Body extends object>(
  route: string,
  record: (req: IncomingMessage, body: Body) => void,
  handle: (body: Body, res: ServerResponse) => void,
): Promise<ScriptedHttpServer> {
  const path = `/v1${route}`;
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      let body = {} as Body;
      try {
        body = JSON.parse(raw) as Body;
      } catch {
        // recorded as an empty body
      }
      record(req, body);
      if (req.method !== 'POST' || req.url !== path) {
        sendJsonText(res, 404, JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } }));
        return;
      }
      handle(body, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Keep-alive sockets from the client's fetch would otherwise hold close() open.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

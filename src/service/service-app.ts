/**
 * The HTTP face of the library: a Hono app with the memory and store routes, the OpenAPI document generated from
 * their schemas, health, readiness and metrics, and MCP over streamable HTTP. Every route runs the same steps:
 * refuse while draining, authenticate the key, limit the body, validate it (strict: unknown fields are refused),
 * check each user it touches against the key, make its one library call under the request timeout, encode the
 * result (see the wire codec) and count it.
 */
import { OpenAPIHono, createRoute, type z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { stream } from 'hono/streaming';
import { AkashicError, invalidArgument } from '../errors.js';
import { API_KEY_HEADER, API_VERSION, OPS_ROUTES } from '../protocol/routes.js';
import { toWireJson } from '../protocol/wire-codec.js';
import { OPEN_TENANT, type ApiKeys, type Tenant } from './api-keys.js';
import { ErrorBody } from './common-schemas.js';
import { failure } from './error-status.js';
import { handleMcpRequest } from './mcp-route.js';
import { MEMORY_ROUTE_DEFS } from './memory-routes.js';
import type { RouteDef, ServiceDeps } from './route-definition.js';
import { requestBodyLimit } from './request-body-limit.js';
import { withTimeout, type ServiceLifecycle } from './service-lifecycle.js';
import type { ServiceMetrics } from './service-metrics.js';
import { STORE_ROUTE_DEFS } from './store-routes.js';

export interface ServiceAppOptions {
  readonly deps: ServiceDeps;
  /** null: no keys (every request acts for every user; the server then binds loopback only). */
  readonly keys: ApiKeys | null;
  readonly maxBodyBytes: number;
  /** 0: no limit. */
  readonly requestTimeoutMs: number;
  readonly metrics: ServiceMetrics;
  readonly lifecycle: ServiceLifecycle;
  /** Where failures that are bugs (not AkashicErrors) are reported. */
  readonly logError: (err: unknown) => void;
}

export type ServiceEnv = { Variables: { tenant: Tenant } };

/** Every route definition the service serves. */
export const ROUTE_DEFS: readonly RouteDef[] = [...MEMORY_ROUTE_DEFS, ...STORE_ROUTE_DEFS];

const KNOWN_PATHS = new Set<string>([...ROUTE_DEFS.map((d) => d.path), ...Object.values(OPS_ROUTES)]);

export function createServiceApp(o: ServiceAppOptions): OpenAPIHono<ServiceEnv> {
  const fail = (c: Context, err: unknown): Response => {
    const { status, body } = failure(err, o.logError);
    o.metrics.error(body.code);
    return c.json(body, status);
  };
  const app = new OpenAPIHono<ServiceEnv>({
    // A body that fails its schema (wrong type, unknown field, missing field) changes nothing: 400 before the call.
    defaultHook: (result, c) => {
      if (!result.success) return fail(c, invalidArgument(describeIssues(result.error.issues)));
      return undefined;
    },
  });

  app.use('*', async (c, next) => {
    const start = process.hrtime.bigint();
    // A request accepted before shutdown began is drained whole, its upload included, not only its library call.
    await o.lifecycle.track(next());
    const route = KNOWN_PATHS.has(c.req.path) ? c.req.path : 'other';
    o.metrics.request(route, c.req.method, c.res.status, Number(process.hrtime.bigint() - start) / 1e9);
  });

  const guard: MiddlewareHandler<ServiceEnv> = async (c, next) => {
    o.lifecycle.checkAccepting();
    c.set('tenant', authenticate(o.keys, c.req.header(API_KEY_HEADER), c.req.header('authorization')));
    await next();
  };
  const limit = requestBodyLimit(o.maxBodyBytes, (c) => fail(c, invalidArgument(`the request body is over the limit of ${o.maxBodyBytes} bytes`)));
  for (const prefix of ['/v1/*', OPS_ROUTES.mcp]) app.use(prefix, guard, limit);

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: API_KEY_HEADER });
  for (const def of ROUTE_DEFS) register(app, def, o);

  app.all(OPS_ROUTES.mcp, (c) => handleMcpRequest(c.req.raw, c.get('tenant'), o));
  app.get(OPS_ROUTES.health, (c) => c.json({ status: 'ok' }));
  app.get(OPS_ROUTES.ready, (c) => {
    const ready = o.lifecycle.accepting && o.deps.store.status === 'open';
    return c.json({ status: ready ? 'ready' : 'not-ready' }, ready ? 200 : 503);
  });
  app.get(OPS_ROUTES.metrics, async (c) => {
    // With keys, the store-wide figures are for admin keys only.
    if (o.keys !== null) {
      const tenant = authenticate(o.keys, c.req.header(API_KEY_HEADER), c.req.header('authorization'));
      if (!tenant.admin) throw new AkashicError('AKASHIC_FORBIDDEN', 'metrics need an admin key');
    }
    return c.body(await o.metrics.registry.metrics(), 200, { 'content-type': o.metrics.registry.contentType });
  });
  app.doc31(OPS_ROUTES.openapi, {
    openapi: '3.1.0',
    info: { title: 'Akashic memory service', version: API_VERSION, description: 'Memory and store calls of the Akashic library over HTTP/JSON.' },
    security: o.keys === null ? [] : [{ apiKey: [] }],
  });

  app.notFound((c) => fail(c, new AkashicError('AKASHIC_NOT_FOUND', `no route ${c.req.method} ${c.req.path}`)));
  app.onError((err, c) => {
    // Hono's own refusals (malformed JSON, a wrong content type) are bad input.
    if (err instanceof HTTPException && err.status < 500) return fail(c, invalidArgument(err.message));
    return fail(c, err);
  });
  return app;
}

function register(app: OpenAPIHono<ServiceEnv>, def: RouteDef, o: ServiceAppOptions): void {
  const post = (def.method ?? 'post') === 'post';
  const route = createRoute({
    method: def.method ?? 'post',
    path: def.path,
    operationId: def.operationId,
    tags: [def.tag],
    summary: def.summary,
    ...(post ? { request: { body: { required: true, content: { 'application/json': { schema: def.body } } } } } : {}),
    responses: {
      200: { description: def.stream === true ? 'One JSON value per line.' : 'The library call’s result.', content: { [def.stream === true ? 'application/x-ndjson' : 'application/json']: { schema: def.response } } },
      default: { description: 'An error: see the status table of the service documentation.', content: { 'application/json': { schema: ErrorBody } } },
    },
  });
  // The handler returns the wire codec's JSON, which zod-openapi's typed responses cannot express: hence the cast.
  app.openapi(route, (async (c: Context<ServiceEnv>) => {
    const input = post ? ((c.req as unknown as { valid(t: 'json'): unknown }).valid('json') as z.output<typeof def.body>) : {};
    const tenant = c.get('tenant');
    if (def.adminOnly === true && !tenant.admin) throw new AkashicError('AKASHIC_FORBIDDEN', `${def.operationId} needs an admin key`);
    for (const user of def.users(input)) {
      if (!tenant.allows(user)) throw new AkashicError('AKASHIC_FORBIDDEN', `this key is not allowed user ${JSON.stringify(user)}`);
    }
    const out = def.run(input, o.deps, tenant);
    if (def.stream === true) return streamLines(c, out as AsyncIterable<unknown>, o);
    const result = await withTimeout(o.lifecycle.track(out as Promise<unknown>), o.requestTimeoutMs);
    o.metrics.observe(result);
    return c.body(toWireJson(result), 200, { 'content-type': 'application/json' });
  }) as never);
}

/**
 * Streams an async iterable as NDJSON. The first value is pulled before the status is sent, so a call refused at
 * once (bad filter, unknown user) still answers its own status; a failure after that ends the stream with one
 * line `{ "error": { code, message } }`.
 */
async function streamLines(c: Context<ServiceEnv>, items: AsyncIterable<unknown>, o: ServiceAppOptions): Promise<Response> {
  const it = items[Symbol.asyncIterator]();
  let done!: () => void;
  o.lifecycle.track(new Promise<void>((r) => (done = r)));
  let first: IteratorResult<unknown>;
  try {
    first = await withTimeout(it.next(), o.requestTimeoutMs);
  } catch (err) {
    done();
    throw err;
  }
  c.header('content-type', 'application/x-ndjson');
  return stream(c, async (s) => {
    try {
      for (let r = first; r.done !== true; r = await it.next()) {
        if (s.aborted) break;
        await s.write(toWireJson(r.value) + '\n');
      }
    } catch (err) {
      const { body } = failure(err, o.logError);
      o.metrics.error(body.code);
      await s.write(JSON.stringify({ error: body }) + '\n');
    } finally {
      await it.return?.(undefined);
      done();
    }
  });
}

/** The tenant of a request's key (x-api-key, or Authorization: Bearer). */
function authenticate(keys: ApiKeys | null, header: string | undefined, authorization: string | undefined): Tenant {
  if (keys === null) return OPEN_TENANT;
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  const key = header ?? bearer;
  if (key === undefined || key === '') throw new AkashicError('AKASHIC_UNAUTHORIZED', `send an API key in the ${API_KEY_HEADER} header`);
  const tenant = keys.authenticate(key);
  if (tenant === null) throw new AkashicError('AKASHIC_UNAUTHORIZED', 'unknown API key');
  return tenant;
}

function describeIssues(issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length === 0 ? i.message : `${i.path.map(String).join('.')}: ${i.message}`))
    .join('; ');
}

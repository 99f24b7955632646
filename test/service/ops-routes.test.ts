/**
 * The service's own routes: the OpenAPI document is generated from the route schemas (every route, strict bodies,
 * the error body), health and readiness follow the lifecycle, and the metrics count what the library calls did.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RemoteMemory } from '../../src/client/index.js';
import { EmbeddedModel } from '../../src/index.js';
import { ROUTE_DEFS } from '../../src/service/service-app.js';
import { inProcessService } from './service-helpers.js';

let svc: Awaited<ReturnType<typeof inProcessService>>;
beforeAll(async () => {
  svc = await inProcessService();
});
afterAll(() => svc.stop());

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, { schema: unknown }> } }>>;
  components: { schemas: Record<string, unknown> };
}

it('publishes an OpenAPI 3.1 document with every route, strict request bodies and the error body', async () => {
  const doc = (await (await fetch(svc.service.url + '/openapi.json')).json()) as OpenApiDoc;
  expect(doc.openapi).toBe('3.1.0');
  for (const def of ROUTE_DEFS) {
    const op = doc.paths[def.path]?.[def.method ?? 'post'];
    expect(op?.operationId, def.path).toBe(def.operationId);
    if ((def.method ?? 'post') === 'post') {
      const schema = JSON.stringify(op?.requestBody?.content['application/json']?.schema);
      // Strict: either inline (additionalProperties false) or a component that is.
      const ref = schema.match(/#\/components\/schemas\/(\w+)/)?.[1];
      const body = ref === undefined ? schema : JSON.stringify(doc.components.schemas[ref]);
      expect(body, def.path).toContain('"additionalProperties":false');
    }
  }
  expect(doc.components.schemas['Error']).toBeDefined();
  expect(doc.components.schemas['RecallInput']).toBeDefined();
});

it('answers health and readiness', async () => {
  expect((await fetch(svc.service.url + '/healthz')).status).toBe(200);
  const ready = await fetch(svc.service.url + '/readyz');
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ready' });
});

it('counts recalls, blocks touched, compactions, errors by code and route latency, with the store figures', async () => {
  const memory = new RemoteMemory({ baseUrl: svc.service.url });
  await memory.appendTurn({ user: 'm', session: 's', role: 'user', text: 'The metrics test likes plums.' });
  await memory.endSession({ user: 'm', session: 's' });
  await memory.recall({ user: 'm', session: 's2', query: 'plums', scope: 'user' });
  await memory.recall({ user: 'm', session: 's2', query: 'plums', scope: 'user' });
  await memory.recall({ user: '', session: 's2', query: 'plums' }).catch(() => undefined);
  const text = await (await fetch(svc.service.url + '/metrics')).text();
  const value = (line: RegExp): number => Number(text.match(line)?.[1]);
  expect(value(/^akashic_recalls_total (\d+)/m)).toBe(2);
  expect(value(/^akashic_recall_blocks_touched_count (\d+)/m)).toBe(2);
  expect(value(/^akashic_recall_blocks_touched_sum (\d+)/m)).toBeGreaterThanOrEqual(2);
  expect(value(/^akashic_compactions_total (\d+)/m)).toBe(1);
  expect(value(/^akashic_errors_total\{code="AKASHIC_INVALID_ARGUMENT"\} (\d+)/m)).toBe(1);
  expect(value(/^akashic_http_request_duration_seconds_count\{route="\/v1\/memory\/recall",method="POST",status="200"\} (\d+)/m)).toBe(2);
  expect(value(/^akashic_store_chunks (\d+)/m)).toBe(1);
  expect(value(/^akashic_store_users (\d+)/m)).toBe(1);
  expect(text).toMatch(/^akashic_store_gc_runs \d+/m);
});

it('drains on close: requests under way are answered, new ones get AKASHIC_NOT_OPEN, then the memory closes', async () => {
  // A model whose compaction waits for the test: the request is under way, in the library, when close() begins.
  let started!: () => void;
  const inCompaction = new Promise<void>((r) => (started = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  class GatedModel extends EmbeddedModel {
    override async compress(turns: Parameters<EmbeddedModel['compress']>[0]): ReturnType<EmbeddedModel['compress']> {
      started();
      await gate;
      return super.compress(turns);
    }
  }
  const other = await inProcessService({ memoryOptions: { model: new GatedModel(), chunkGateTokens: 4, writeBack: 'await' } });
  const memory = new RemoteMemory({ baseUrl: other.service.url });
  const pending = memory.completeRequest({ user: 'd', session: 's', turns: [{ role: 'user', text: 'a turn long enough to pass the tiny chunk gate of this test' }] });
  await inCompaction;
  const closing = other.service.close();
  const refused = await memory.activeTurns({ user: 'd', session: 's' }).catch((e: { code: string }) => e.code);
  expect(['AKASHIC_NOT_OPEN', 'AKASHIC_IO']).toContain(refused); // 503 on a kept-alive connection, or no listener
  release();
  const result = await pending;
  expect(result.compacted?.turnIds).toHaveLength(1);
  await closing;
  await expect(other.service.memory.activeTurns({ user: 'd', session: 's' })).rejects.toMatchObject({ code: 'AKASHIC_NOT_OPEN' });
  await other.stop();
});

it('answers AKASHIC_TIMEOUT when a call outlives the request timeout, and the call still lands', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const inCompaction = new Promise<void>((r) => (started = r));
  class GatedModel extends EmbeddedModel {
    override async compress(turns: Parameters<EmbeddedModel['compress']>[0]): ReturnType<EmbeddedModel['compress']> {
      started();
      await gate;
      return super.compress(turns);
    }
  }
  const slow = await inProcessService({ requestTimeoutMs: 200, memoryOptions: { model: new GatedModel(), chunkGateTokens: 4, writeBack: 'await' } });
  try {
    const memory = new RemoteMemory({ baseUrl: slow.service.url });
    const answer = memory.completeRequest({ user: 't', session: 's', turns: [{ role: 'user', text: 'held in compaction past the timeout' }] }).catch((e: unknown) => e);
    await inCompaction;
    expect(await answer).toMatchObject({ name: 'AkashicError', code: 'AKASHIC_TIMEOUT' });
    release();
    // The turns were stored before the gate fired; close() waits for the call, whose compaction then lands.
    await slow.service.close();
    const listed = [];
    for await (const e of slow.service.store.list('t')) listed.push(e.entry.kind);
    expect(listed).toEqual(['memory']);
  } finally {
    release();
    await slow.stop();
  }
});

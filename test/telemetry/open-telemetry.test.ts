/**
 * Events of AkashicMemory and AkashicStore, and the OpenTelemetry bridge over them, checked with in-memory
 * exporters: spans for compaction, recall, GC and each model call with the GenAI attribute names, and metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { AkashicMemory } from '../../src/memattention/memory.js';
import type { CompactionEvent, RecallEvent } from '../../src/memattention/memory-events.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { instrumentOpenTelemetry } from '../../src/telemetry/open-telemetry.js';
import type { ExpiryEvent, GcEvent } from '../../src/api/store-events.js';
import { SCRIPTED_USAGE, startScriptedChatServer, type ScriptedChatServer } from '../model/scripted-chat-server.js';
import { memoryStore } from '../memattention/fixtures.js';
import type { Embedder } from '../../src/model/embedder.js';
import { reportModelUsage } from '../../src/util/model-usage.js';

/** A reader that only collects when asked. */
class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

function sumOf(metrics: ResourceMetrics, name: string, match: Record<string, unknown> = {}): number {
  let total = 0;
  for (const scope of metrics.scopeMetrics) {
    for (const m of scope.metrics) {
      if (m.descriptor.name !== name) continue;
      for (const p of m.dataPoints) {
        if (!Object.entries(match).every(([k, v]) => p.attributes[k] === v)) continue;
        const v = p.value as number | { sum?: number };
        total += typeof v === 'number' ? v : (v.sum ?? 0);
      }
    }
  }
  return total;
}

let server: ScriptedChatServer;
beforeAll(async () => {
  server = await startScriptedChatServer();
});
afterAll(async () => {
  await server.close();
});

describe('events and OpenTelemetry', () => {
  it('turns a compaction, a recall and their model calls into spans and metrics with GenAI attributes', async () => {
    const { store } = await memoryStore();
    const model = new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', model: 'scripted-model', retryDelayMs: 0 });
    const memory = new AkashicMemory(store, { model, chunkGateTokens: 10, relocateEveryRecalls: 0 });
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const reader = new TestReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const otel = await instrumentOpenTelemetry({ memory, store }, { tracerProvider, meterProvider, recordIds: true });
    expect(otel.enabled).toBe(true);

    const compactions: CompactionEvent[] = [];
    const recalls: RecallEvent[] = [];
    memory.on('compaction', (e) => compactions.push(e));
    const stopRecalls = memory.on('recall', (e) => recalls.push(e));

    server.enqueue({ kind: 'json', value: { text: 'user: adopted a grey cat named Miso' } }, { kind: 'json', value: { keywords: ['cat', 'miso'] } });
    await memory.appendTurn({ user: 'u1', session: 's1', role: 'user', text: 'I adopted a grey cat, her name is Miso, she is two years old.' });
    await memory.flush();
    expect(compactions).toHaveLength(1);

    server.enqueue({ kind: 'json', value: { keywords: ['cat'] } }, { kind: 'json', value: { ids: [] } });
    await memory.recall({ user: 'u1', session: 's1', query: 'what is my cat called?' });
    expect(recalls).toHaveLength(1);
    expect(recalls[0]!.modelCalls.map((c) => c.call)).toEqual(['buildMeta', 'select']);
    expect(recalls[0]!.usage.completionTokens).toBe(2 * SCRIPTED_USAGE.completion_tokens);

    const spans = exporter.getFinishedSpans();
    const byName = (name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
    const compaction = byName('akashic.compaction');
    expect(compaction).toHaveLength(1);
    expect(compaction[0]!.attributes).toMatchObject({ 'akashic.operation': 'compaction', 'akashic.compaction.trigger': 'gate', 'akashic.user.id': 'u1', 'akashic.session.id': 's1' });
    const compress = byName('compress scripted-model');
    expect(compress).toHaveLength(1);
    expect(compress[0]!.parentSpanContext?.spanId).toBe(compaction[0]!.spanContext().spanId);
    expect(compress[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.usage.input_tokens': SCRIPTED_USAGE.prompt_tokens,
      'gen_ai.usage.output_tokens': SCRIPTED_USAGE.completion_tokens,
      'akashic.model.call': 'compress',
    });
    const recall = byName('akashic.recall');
    expect(recall).toHaveLength(1);
    const recallChildren = spans.filter((s) => s.parentSpanContext?.spanId === recall[0]!.spanContext().spanId).map((s) => s.name);
    expect(recallChildren).toEqual(['buildMeta scripted-model', 'select scripted-model']);

    const { resourceMetrics } = await reader.collect();
    expect(sumOf(resourceMetrics, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'input' })).toBe(4 * SCRIPTED_USAGE.prompt_tokens);
    expect(sumOf(resourceMetrics, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'output', 'akashic.operation': 'compaction' })).toBe(2 * SCRIPTED_USAGE.completion_tokens);
    expect(sumOf(resourceMetrics, 'akashic.operation.duration', { 'akashic.operation': 'recall' })).toBeGreaterThan(0);

    // Detached: no more spans; the memory's own listeners still hear.
    otel.stop();
    stopRecalls();
    const before = exporter.getFinishedSpans().length;
    await memory.recall({ user: 'u1', session: 's1', query: 'cat', enableRetrieval: false });
    expect(exporter.getFinishedSpans().length).toBe(before);
    expect(recalls).toHaveLength(1);
    await memory.close();
    await store.close();
  });

  it('reports GC passes with their grouping calls, and expiry sweeps, as store events and spans', async () => {
    let clock = 1_700_000_000_000;
    const { store } = await memoryStore({ blockCapacity: 4, now: () => clock });
    const exporter = new InMemorySpanExporter();
    const otel = await instrumentOpenTelemetry({ store }, { tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) });
    const gcs: GcEvent[] = [];
    const expiries: ExpiryEvent[] = [];
    store.on('gc', (e) => gcs.push(e));
    store.on('expiry', (e) => expiries.push(e));

    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await store.put('g', { sessionId: 's', text: `note ${i} about gardening and tomatoes`, keywords: ['garden', 'tomato'] })).chunkId);
    for (const id of ids.slice(0, 3)) await store.write('g', [{ op: 'delete', sessionId: 's', chunkId: id }]);
    await store.put('g', { sessionId: 's', text: 'a short-lived reminder', keywords: ['reminder'], ttlMs: 1000 });
    clock += 5000;

    const report = await store.gc({ threshold: 0.1 });
    expect(report.victims).toBeGreaterThan(0);
    expect(gcs).toHaveLength(1);
    expect(gcs[0]!.report).toEqual(report);
    expect(gcs[0]!.background).toBe(false);
    expect(gcs[0]!.modelCalls.length).toBeGreaterThan(0);
    expect(gcs[0]!.modelCalls.every((c) => c.call === 'group' && c.usageSource === 'local' && c.promptTokens === 0)).toBe(true);
    expect(expiries).toHaveLength(1);
    expect(expiries[0]!.expired).toBe(1);

    const names = exporter.getFinishedSpans().map((s) => s.name);
    expect(names).toContain('akashic.gc');
    expect(names).toContain('akashic.expiry');
    const groupSpan = exporter.getFinishedSpans().find((s) => s.name.startsWith('group '))!;
    // A local model's call carries no GenAI attributes.
    expect(groupSpan.attributes['gen_ai.operation.name']).toBeUndefined();
    expect((await store.stats()).modelUsage.byOperation.gc?.calls).toBe(gcs[0]!.modelCalls.length);

    otel.stop();
    expect(() => store.on('nothing' as 'gc', () => undefined)).toThrow(/unknown store event/);
    await expect(instrumentOpenTelemetry({})).rejects.toThrow(/memory/);
    await expect(instrumentOpenTelemetry({ store }, { tracer: 1 } as never)).rejects.toThrow(/unknown option/);
    await store.close();
  });

  it('names an embedder call the GenAI embeddings operation, with input tokens only', async () => {
    const { store } = await memoryStore();
    const embedder: Embedder = {
      id: 'remote-2d',
      dimensions: 2,
      embed: async (texts) => {
        reportModelUsage({ promptTokens: 4 * texts.length, completionTokens: 0, model: 'remote-2d' });
        return texts.map((t) => Float32Array.of(1, t.length % 3));
      },
    };
    const memory = new AkashicMemory(store, { embedder, relocateEveryRecalls: 0 });
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const reader = new TestReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const otel = await instrumentOpenTelemetry({ memory, store }, { tracerProvider, meterProvider });
    await memory.recall({ user: 'e', session: 's', query: 'where is the garden' });
    const span = exporter.getFinishedSpans().find((x) => x.name === 'embed remote-2d')!;
    expect(span.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.usage.input_tokens': 4, 'gen_ai.usage.output_tokens': 0, 'akashic.model.call': 'embed' });
    const { resourceMetrics } = await reader.collect();
    expect(sumOf(resourceMetrics, 'gen_ai.client.token.usage', { 'gen_ai.operation.name': 'embeddings', 'gen_ai.token.type': 'input' })).toBe(4);
    otel.stop();
    await memory.close();
    await store.close();
  });
});

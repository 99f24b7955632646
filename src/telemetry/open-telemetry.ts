/**
 * OpenTelemetry for Akashic: spans and metrics made from the events of an AkashicMemory and an AkashicStore.
 *
 * `@opentelemetry/api` is an optional peer dependency, imported here once per process on first use. The bridge is
 * a listener of the events, so nothing is done when it is not attached, and Akashic never touches OpenTelemetry
 * otherwise. Spans are written after each operation with its real start and end times:
 * `akashic.recall`, `akashic.compaction`, `akashic.relocation`, `akashic.gc`, `akashic.expiry`, each with a child
 * span per model call named `<operation> <model>` (the GenAI convention's `{gen_ai.operation.name}
 * {gen_ai.request.model}`), carrying `gen_ai.operation.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`
 * and `gen_ai.usage.output_tokens`. A recall's span is a child of the span active when the recall returned.
 *
 * Metrics: `gen_ai.client.token.usage` (histogram of tokens per call, by `gen_ai.token.type`),
 * `gen_ai.client.operation.duration` (seconds per model call), `akashic.operation.duration` (seconds per
 * operation, by `akashic.operation`), `akashic.operation.blocks_touched` and `akashic.operation.errors`.
 */
import type * as OtelApi from '@opentelemetry/api';
import type { AkashicStore } from '../engine/akashic-store.js';
import type { StoreEvents } from '../api/store-events.js';
import { AkashicError } from '../errors.js';
import type { AkashicMemory } from '../memattention/memory.js';
import type { MemoryEvents } from '../memattention/memory-events.js';
import type { ModelCallReceipt, ModelOperationKind } from '../api/model-usage.js';

/**
 * Where the spans and metrics go. Default: the globally registered providers. (Typed structurally, so that the
 * package's types do not need `@opentelemetry/api` installed: pass an OpenTelemetry `TracerProvider` and
 * `MeterProvider`.)
 */
export interface OpenTelemetryOptions {
  readonly tracerProvider?: { getTracer(name: string, version?: string): unknown };
  readonly meterProvider?: { getMeter(name: string, version?: string): unknown };
  /** Also put the user and session ids on spans (`akashic.user.id`, `akashic.session.id`). Default false. */
  readonly recordIds?: boolean;
}

/** What `instrumentOpenTelemetry` attached. */
export interface OpenTelemetryHandle {
  /** False when `@opentelemetry/api` is not installed: nothing was attached. */
  readonly enabled: boolean;
  /** Detaches every listener. Idempotent. */
  stop(): void;
}

const SCOPE_NAME = 'akashic';

let loading: Promise<typeof OtelApi | null> | null = null;

/** Imports `@opentelemetry/api` once per process; null when it is not installed. */
function loadApi(): Promise<typeof OtelApi | null> {
  loading ??= import('@opentelemetry/api').then(
    (m) => m,
    (err: unknown) => {
      const code = (err as { code?: unknown } | null)?.code;
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return null;
      loading = null;
      throw err;
    },
  );
  return loading;
}

/**
 * Sends the events of `memory` and/or `store` to OpenTelemetry as spans and metrics.
 *
 * @throws AkashicError AKASHIC_INVALID_ARGUMENT when neither is given.
 * @example
 *   const otel = await instrumentOpenTelemetry({ memory, store });
 *   // ... later
 *   otel.stop();
 */
export async function instrumentOpenTelemetry(
  target: { readonly memory?: AkashicMemory; readonly store?: AkashicStore },
  options: OpenTelemetryOptions = {},
): Promise<OpenTelemetryHandle> {
  if (target === null || typeof target !== 'object' || (target.memory === undefined && target.store === undefined)) {
    throw new AkashicError('AKASHIC_INVALID_ARGUMENT', 'instrumentOpenTelemetry needs { memory } and/or { store }');
  }
  if (options === null || typeof options !== 'object') throw new AkashicError('AKASHIC_INVALID_ARGUMENT', 'options must be an object');
  for (const k of Object.keys(options)) {
    if (k !== 'tracerProvider' && k !== 'meterProvider' && k !== 'recordIds') throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `unknown option ${JSON.stringify(k)}`);
  }
  const api = await loadApi();
  if (api === null) return { enabled: false, stop: () => undefined };
  const bridge = new Bridge(api, options);
  const stops: (() => void)[] = [];
  const { memory, store } = target;
  if (memory !== undefined) {
    stops.push(
      memory.on('compaction', (e) => bridge.compaction(e)),
      memory.on('recall', (e) => bridge.recall(e)),
      memory.on('relocation', (e) => bridge.relocation(e)),
      memory.on('error', (e) => bridge.memoryError(e)),
    );
  }
  if (store !== undefined) {
    stops.push(
      store.on('gc', (e) => bridge.gc(e)),
      store.on('expiry', (e) => bridge.expiry(e)),
      store.on('error', (e) => bridge.storeError(e)),
    );
  }
  return {
    enabled: true,
    stop: () => {
      for (const s of stops.splice(0)) s();
    },
  };
}

type Attributes = OtelApi.Attributes;

class Bridge {
  readonly #api: typeof OtelApi;
  readonly #tracer: OtelApi.Tracer;
  readonly #recordIds: boolean;
  readonly #tokens: OtelApi.Histogram;
  readonly #callDuration: OtelApi.Histogram;
  readonly #opDuration: OtelApi.Histogram;
  readonly #blocks: OtelApi.Histogram;
  readonly #errors: OtelApi.Counter;

  constructor(api: typeof OtelApi, o: OpenTelemetryOptions) {
    this.#api = api;
    this.#tracer = ((o.tracerProvider as OtelApi.TracerProvider | undefined) ?? api.trace.getTracerProvider()).getTracer(SCOPE_NAME);
    const meter = ((o.meterProvider as OtelApi.MeterProvider | undefined) ?? api.metrics.getMeterProvider()).getMeter(SCOPE_NAME);
    this.#recordIds = o.recordIds === true;
    this.#tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', description: 'Tokens per model call' });
    this.#callDuration = meter.createHistogram('gen_ai.client.operation.duration', { unit: 's', description: 'Duration of a model call' });
    this.#opDuration = meter.createHistogram('akashic.operation.duration', { unit: 's', description: 'Duration of an Akashic operation' });
    this.#blocks = meter.createHistogram('akashic.operation.blocks_touched', { unit: '{block}', description: 'Blocks an operation read or wrote' });
    this.#errors = meter.createCounter('akashic.operation.errors', { unit: '{error}', description: 'Failed background operations' });
  }

  #ids(user: string | null, session?: string): Attributes {
    if (!this.#recordIds) return {};
    return { ...(user === null ? {} : { 'akashic.user.id': user }), ...(session === undefined ? {} : { 'akashic.session.id': session }) };
  }

  /** One operation span with a child per model call, and its metrics. */
  #operation(
    name: string,
    op: ModelOperationKind | 'expiry',
    e: { startedAt: number; durationMs: number; modelCalls?: readonly ModelCallReceipt[] },
    attributes: Attributes,
    blocks: number | null,
    error: AkashicError | null,
  ): void {
    const api = this.#api;
    const span = this.#tracer.startSpan(name, { startTime: e.startedAt, attributes: { 'akashic.operation': op, ...attributes } }, api.context.active());
    if (error !== null) {
      span.recordException(error);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.code });
      span.setAttribute('error.type', error.code);
    }
    const parent = api.trace.setSpan(api.context.active(), span);
    for (const r of e.modelCalls ?? []) this.#modelCall(r, op, parent);
    span.end(e.startedAt + e.durationMs);
    const metricAttrs = { 'akashic.operation': op, ...(error === null ? {} : { 'error.type': error.code }) };
    this.#opDuration.record(e.durationMs / 1000, metricAttrs);
    if (blocks !== null) this.#blocks.record(blocks, { 'akashic.operation': op });
    if (error !== null) this.#errors.add(1, metricAttrs);
  }

  #modelCall(r: ModelCallReceipt, op: ModelOperationKind | 'expiry', parent: OtelApi.Context): void {
    const api = this.#api;
    // The GenAI conventions describe remote model calls; a local model's call is still a span, without them.
    // An embedder call is the conventions' `embeddings` operation; every other model call is a `chat`.
    const operationName = r.call === 'embed' ? 'embeddings' : 'chat';
    const genAi: Attributes =
      r.usageSource === 'local'
        ? {}
        : {
            'gen_ai.operation.name': operationName,
            'gen_ai.request.model': r.model,
            'gen_ai.usage.input_tokens': r.promptTokens,
            'gen_ai.usage.output_tokens': r.completionTokens,
          };
    const span = this.#tracer.startSpan(
      `${r.call} ${r.model}`,
      {
        kind: r.usageSource === 'local' ? api.SpanKind.INTERNAL : api.SpanKind.CLIENT,
        startTime: r.startedAt,
        attributes: { ...genAi, 'akashic.model.call': r.call, 'akashic.model.usage_source': r.usageSource, 'akashic.model.retries': r.retries },
      },
      parent,
    );
    if (!r.ok) span.setStatus({ code: api.SpanStatusCode.ERROR });
    span.end(r.startedAt + r.latencyMs);
    if (r.usageSource === 'local') return;
    const attrs = { 'gen_ai.operation.name': operationName, 'gen_ai.request.model': r.model, 'akashic.operation': op, 'akashic.model.call': r.call };
    this.#tokens.record(r.promptTokens, { ...attrs, 'gen_ai.token.type': 'input' });
    this.#tokens.record(r.completionTokens, { ...attrs, 'gen_ai.token.type': 'output' });
    this.#callDuration.record(r.latencyMs / 1000, r.ok ? attrs : { ...attrs, 'error.type': 'model' });
  }

  compaction(e: MemoryEvents['compaction']): void {
    this.#operation(
      'akashic.compaction',
      'compaction',
      e,
      {
        ...this.#ids(e.user, e.session),
        'akashic.compaction.trigger': e.trigger,
        'akashic.compaction.turns': e.turnIds.length,
        'akashic.compaction.turn_tokens': e.turnTokens,
        'akashic.compaction.chunk_tokens': e.tokenCount,
        'akashic.compaction.related': e.related,
        'akashic.compaction.updated': e.updated,
        'akashic.compaction.deleted': e.deleted,
        'akashic.compaction.attempt': e.attempt,
        'akashic.blocks_touched': e.blocksTouched,
      },
      e.blocksTouched,
      null,
    );
  }

  recall(e: MemoryEvents['recall']): void {
    this.#operation(
      'akashic.recall',
      'recall',
      e,
      {
        ...this.#ids(e.user, e.session),
        'akashic.recall.scope': e.scope,
        'akashic.recall.chunks': e.chunks,
        'akashic.recall.candidates': e.candidates,
        'akashic.recall.active_turns': e.activeTurns,
        'akashic.recall.tokens': e.tokenCount,
        'akashic.blocks_touched': e.blocksTouched,
      },
      e.blocksTouched,
      null,
    );
  }

  relocation(e: MemoryEvents['relocation']): void {
    this.#operation('akashic.relocation', 'relocation', e, { ...this.#ids(e.user), 'akashic.relocation.groups': e.groups, 'akashic.relocation.moved': e.moved }, null, null);
  }

  memoryError(e: MemoryEvents['error']): void {
    this.#operation(
      `akashic.${e.operation}`,
      e.operation,
      e,
      { ...this.#ids(e.user, e.session), 'akashic.attempt': e.attempt, ...(e.retryInMs === null ? {} : { 'akashic.retry_in_ms': e.retryInMs }) },
      null,
      e.error,
    );
  }

  gc(e: StoreEvents['gc']): void {
    const r = e.report;
    this.#operation(
      'akashic.gc',
      'gc',
      e,
      {
        ...this.#ids(e.user),
        'akashic.gc.background': e.background,
        'akashic.gc.victims': r.victims,
        'akashic.gc.blocks_released': r.blocksReleased,
        'akashic.gc.blocks_written': r.blocksWritten,
        'akashic.gc.chunks_moved': r.chunksMoved,
        'akashic.blocks_touched': e.blocksTouched,
      },
      e.blocksTouched,
      null,
    );
  }

  expiry(e: StoreEvents['expiry']): void {
    this.#operation('akashic.expiry', 'expiry', e, { 'akashic.expiry.expired': e.expired, 'akashic.expiry.stale': e.stale }, null, null);
  }

  storeError(e: StoreEvents['error']): void {
    this.#operation('akashic.gc', 'gc', e, {}, null, e.error);
  }
}

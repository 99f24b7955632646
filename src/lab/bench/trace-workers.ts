/**
 * Trace recording in worker threads: each conversation is recorded independently (its own in-memory store and
 * model), so a long admission trace is recorded by several threads at once. The worker entry is
 * `trace-worker.ts`; the message protocol is one conversation in, its `RecordedConversation` out.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Conversation } from '../workload/conversation.js';
import type { SelectVariant } from '../../model/select-variants.js';
import type { RecordedConversation, TraceKind } from './trace.js';

/** What the worker receives. */
export interface RecordTask {
  readonly conversation: Conversation;
  readonly kind: TraceKind;
  readonly topP: number;
  readonly select: SelectVariant;
}

/** The compiled worker: next to this module in `dist/`, or under `dist/` when running from sources (vitest). */
function workerPath(): string {
  const local = fileURLToPath(new URL('./trace-worker.js', import.meta.url));
  if (existsSync(local)) return local;
  const fromSrc = fileURLToPath(new URL('../../../dist/src/lab/bench/trace-worker.js', import.meta.url));
  if (existsSync(fromSrc)) return fromSrc;
  throw new Error(`trace worker not found at ${local} or ${fromSrc}: run \`npm run build\``);
}

export interface TraceRecorderPool {
  run(conversation: Conversation, kind: TraceKind, topP: number, select: SelectVariant): Promise<RecordedConversation>;
  close(): Promise<void>;
}

export async function recordInWorkers(threads: number): Promise<TraceRecorderPool> {
  const pool = new Piscina({ filename: workerPath(), minThreads: 0, maxThreads: threads, idleTimeout: 1000 });
  return {
    run: (conversation, kind, topP, select) => pool.run({ conversation, kind, topP, select } satisfies RecordTask) as Promise<RecordedConversation>,
    close: () => pool.destroy(),
  };
}

/**
 * appendTurn latency while compactions run against a chat model that takes 2 s per call (the scripted
 * OpenAI-compatible server of the tests, over real HTTP on 127.0.0.1), on a real LevelDB store. Prints p50, p95,
 * p99 and max of appendTurn for the background write-back (the default) and for `writeBack: 'await'`.
 *
 *   npm run build && node dist/tools/write-back/append-latency.js [--appends 160] [--sessions 4] [--model-ms 2000] [--gate 200]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import type { WriteBackMode } from '../../src/memattention/options.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { startScriptedChatServer } from '../../test/model/scripted-chat-server.js';

const { values } = parseArgs({
  options: {
    appends: { type: 'string', default: '160' },
    sessions: { type: 'string', default: '4' },
    'model-ms': { type: 'string', default: '2000' },
    'await-appends': { type: 'string', default: '48' },
    gate: { type: 'string', default: '200' },
  },
});
const appends = Number(values.appends);
const sessions = Number(values.sessions);
const modelMs = Number(values['model-ms']);
const gate = Number(values.gate);

/** One reply every MemAttention call accepts (each reads its own fields). */
const REPLY = { text: 'user: a remembered fact', keywords: ['fact'], ids: [], updates: [], deletions: [], groups: [] };

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

async function run(mode: WriteBackMode, total: number): Promise<void> {
  const server = await startScriptedChatServer();
  for (let i = 0; i < total * 4; i++) server.enqueue({ kind: 'delay', ms: modelMs, then: { kind: 'json', value: REPLY } });
  const dir = await mkdtemp(join(tmpdir(), 'akashic-append-latency-'));
  const store = await AkashicStore.open({ path: dir, gc: { intervalMs: 0 } });
  const model = new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', model: 'slow', timeoutMs: modelMs * 5, retryDelayMs: 0 });
  const memory = new AkashicMemory(store, { model, chunkGateTokens: gate, relocateEveryRecalls: 0, writeBack: mode });
  let compactions = 0;
  memory.on('compaction', () => compactions++);
  // Warm-up outside the figures: the tokenizer's tables and the store's first write.
  await memory.appendTurn({ user: 'warm-up', session: 'w', role: 'user', text: 'hello' });
  const latencies: number[] = [];
  const started = performance.now();
  // One writer per session, each appending its next turn as soon as the last was acknowledged.
  const perSession = Math.ceil(total / sessions);
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      for (let i = 0; i < perSession; i++) {
        const t0 = performance.now();
        await memory.appendTurn({ user: 'bench', session: `s${s}`, role: i % 2 === 0 ? 'user' : 'assistant', text: `Turn ${i} of session ${s}: we talked about trains, ferries and the timetable for the trip.` });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const appendWall = performance.now() - started;
  const duringRun = compactions;
  const t1 = performance.now();
  await memory.flush();
  const flushMs = performance.now() - t1;
  latencies.sort((a, b) => a - b);
  const f = (ms: number): string => `${ms.toFixed(1)} ms`;
  process.stdout.write(
    `${mode.padEnd(10)} ${latencies.length} appends in ${f(appendWall)}: p50 ${f(quantile(latencies, 0.5))}, p95 ${f(quantile(latencies, 0.95))}, ` +
      `p99 ${f(quantile(latencies, 0.99))}, max ${f(latencies.at(-1)!)}; compactions committed during the appends ${duringRun}, ` +
      `after flush ${compactions} (flush took ${f(flushMs)}); model requests ${server.requests.length}\n`,
  );
  await memory.close();
  await store.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
}

// Loaded once here, as a long-running application would have it loaded: not inside the first measured compaction.
await import('openai');
process.stdout.write(`appendTurn latency, chat model ${modelMs} ms per call, ${sessions} sessions, gate ${gate} tokens\n`);
await run('background', appends);
await run('await', Number(values['await-appends']));

/**
 * The crash test's child process: `node dist/tools/crash-test/child.js <db> <plan.json> <log> [<fault.json>]`,
 * where <db> is a LevelDB directory or a Redis URL (fault files need a directory).
 *
 * With a fault file (`{"failAt": k, "message": "..."}`), the k-th LevelDB write after the open fails as a full
 * disk or an I/O error fails it. The first op (or background GC pass) to hit it fails; the child then tries one
 * more write, which must be refused with AKASHIC_READ_ONLY, logs that outcome (`F`) and exits 5 without closing
 * the store, as a process that gives up would.
 *
 * Opens the store with sync durability, executes the plan's ops one at a time and logs each before it is issued
 * and after it is acknowledged (op-log.ts), while a background loop runs GC passes. The parent SIGKILLs it at a
 * random moment. Every op of the plan is valid for the state the parent saw, so any rejection is a failure: the
 * child logs it and exits 3.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import type { AkashicMemory } from '../../src/memattention/memory.js';
import type { CompressResult, ModelTurn } from '../../src/model/memory-model.js';
import { createPrng } from '../../src/lab/workload/prng.js';
import { PlanExecutor } from './executor.js';
import { OpLog } from './op-log.js';
import { CRASH_MEMORY_OPTIONS, CRASH_STORE_OPTIONS, crashStoreTarget, isMemoryOp, type Plan } from './plan.js';

const [dbPath, planPath, logPath, faultPath] = process.argv.slice(2);
if (dbPath === undefined || planPath === undefined || logPath === undefined) {
  process.stderr.write('usage: child.js <db> <plan.json> <log>\n');
  process.exit(2);
}
const plan = JSON.parse(readFileSync(planPath, 'utf8')) as Plan;
const log = new OpLog(logPath);
const fault = faultPath === undefined ? null : (JSON.parse(readFileSync(faultPath, 'utf8')) as { failAt: number; message: string });
/** Storage errors the fault mode expects from the failed write and from every write after it. */
const FAULT_CODES = ['AKASHIC_IO', 'AKASHIC_READ_ONLY'];

/** Fault mode, after a storage error: one more write must be refused; logs its outcome and exits 5. */
async function probeAndExit(store: AkashicStore): Promise<never> {
  let code = 'OK';
  try {
    await store.put('u0', { sessionId: 's0', text: 'written after a storage error' });
  } catch (err) {
    code = String((err as { code?: unknown }).code ?? 'ERROR');
  }
  log.line(`F ${JSON.stringify({ code })}`);
  process.exit(5);
}

function errorJson(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  return JSON.stringify({ code: typeof e?.code === 'string' ? e.code : 'ERROR', message: String(e?.message ?? err) });
}

async function gcLoop(store: AkashicStore, stop: { now: boolean }): Promise<void> {
  const rng = createPrng(plan.seed ^ 0x9e3779b9);
  for (let n = 0; !stop.now; n++) {
    log.line(`G+ ${n}`);
    try {
      const r = await store.gc({ threshold: rng.pick([0.05, 0.1, 0.25, 0.5]), maxBlocks: rng.int(1, 16) });
      log.line(`G- ${n} ${JSON.stringify({ moved: r.chunksMoved, released: r.blocksReleased, conflicts: r.conflicts })}`);
    } catch (err) {
      if (stop.now) return;
      log.line(`GE ${n} ${errorJson(err)}`);
      // Fault mode: the next op meets the refusal; the loop stops.
      if (fault !== null && FAULT_CODES.includes(String((err as { code?: unknown }).code))) return;
      process.exit(3);
    }
    await sleep(rng.int(0, 15));
  }
}

async function main(): Promise<void> {
  let store: AkashicStore;
  if (fault === null) {
    store = await AkashicStore.open({ ...CRASH_STORE_OPTIONS, ...crashStoreTarget(dbPath!) });
  } else {
    // The engine's own open path (checks, lock) with the failure injected below it: open once as usual to run the
    // checks, then hand the same directory over as a classic-level handle whose writes can fail.
    const { ClassicLevel } = await import('classic-level');
    const { injectWriteFaults } = await import('./write-faults.js');
    await (await AkashicStore.open({ ...CRASH_STORE_OPTIONS, path: dbPath! })).close();
    const db = new ClassicLevel<string, Buffer>(dbPath!, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const faults = injectWriteFaults(db, fault.message);
    store = await AkashicStore.open({ ...CRASH_STORE_OPTIONS, db });
    faults.failAt(fault.failAt);
  }
  let memory: AkashicMemory | null = null;
  if (plan.ops.some(isMemoryOp)) {
    // Imported only when needed: the MemAttention layer pulls in tokenizer tables that take a second to load.
    const { AkashicMemory } = await import('../../src/memattention/memory.js');
    const { EmbeddedModel } = await import('../../src/model/embedded-model.js');
    // COMPRESS takes a few ms more, as a remote model's would take seconds: compactions stay pending in the
    // write-back queue long enough for kills to land while one is queued or running.
    class SlowModel extends EmbeddedModel {
      override async compress(turns: readonly ModelTurn[]): Promise<CompressResult> {
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(Math.random() * 60)));
        return super.compress(turns);
      }
    }
    memory = new AkashicMemory(store, { ...CRASH_MEMORY_OPTIONS, model: new SlowModel() });
    // The write-back queue's backlog after every committed compaction (and after every ack, below), so the
    // harness knows whether a kill landed while a compaction was pending.
    const m = memory;
    m.on('compaction', () => log.line(`W ${writeBackBacklog(m)}`));
  }
  const exec = new PlanExecutor(store, memory);
  log.line('R');
  process.stdout.write('ready\n');
  const stop = { now: false };
  const loop = plan.gcLoop ? gcLoop(store, stop) : Promise.resolve();
  for (let i = 0; i < plan.ops.length; i++) {
    log.line(`S ${i}`);
    let result: Record<string, unknown>;
    try {
      result = await exec.run(plan.ops[i]!);
    } catch (err) {
      log.line(`E ${i} ${errorJson(err)}`);
      if (fault !== null && FAULT_CODES.includes(String((err as { code?: unknown }).code))) await probeAndExit(store);
      process.exit(3);
    }
    log.line(`A ${i} ${JSON.stringify(result)}`);
    if (memory !== null) log.line(`W ${writeBackBacklog(memory)}`);
  }
  stop.now = true;
  await loop;
  await memory?.close();
  await store.close();
  log.line('D');
  log.close();
}

/** Compactions queued, running or waiting for a retry. */
function writeBackBacklog(memory: AkashicMemory): number {
  const w = memory.stats().writeBack;
  return w.queued + w.running + w.retrying;
}

main().catch((err: unknown) => {
  try {
    log.line(`E -1 ${errorJson(err)}`);
  } finally {
    process.exit(4);
  }
});

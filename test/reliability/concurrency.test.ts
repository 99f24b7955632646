/**
 * Concurrency in one process: appends (with gated compaction), recalls (with online relocation), store writes,
 * relocations, GC passes and verify() all at once. Invariants hold while it runs (verify() reads one snapshot and
 * must be clean every time), nothing is lost (the crash test's oracle, with every op acknowledged), and nothing
 * deadlocks (everything finishes within a bound). A second process gets AKASHIC_LOCKED.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/index.js';
import { AkashicMemory } from '../../src/memattention/index.js';
import { PlanExecutor } from '../../tools/crash-test/executor.js';
import { MemoryModel, StoreModel, compareMemory, compareStore, readMemoryState, readStoreState } from '../../tools/crash-test/oracle.js';
import { CRASH_MEMORY_OPTIONS, generatePlan, type PlanOp } from '../../tools/crash-test/plan.js';
import type { AckResult } from '../../tools/crash-test/oracle.js';
import { BACKENDS, type Backend } from '../support/backends.js';

const DEADLINE_MS = 60_000;

/** Rejects if `p` has not settled within `ms`: a deadlock (or a livelock) fails the test instead of hanging it. */
async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms (deadlock?)`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(BACKENDS)('concurrency on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  let memory: AkashicMemory;
  afterEach(async () => {
    await memory.close();
    await store.close();
    await be.cleanup();
  });

  it('concurrent appends, recalls, writes, relocations, GC and verify: invariants hold, nothing lost, no deadlock', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, blockMaxBytes: 16 * 1024, gc: { intervalMs: 0 } });
    memory = new AkashicMemory(store, CRASH_MEMORY_OPTIONS);
    const plan = generatePlan(4242, 0, new StoreModel(), { ops: 700, memory: true });
    const exec = new PlanExecutor(store, memory);
    const acks = new Map<number, AckResult>();

    // Writes of one user, and turns of one namespace, depend on each other: each such lane runs in order, and all
    // lanes run at once. Relocations, GC passes and recalls are free-running disruptors.
    const lanes = new Map<string, number[]>();
    const disruptors: number[] = [];
    plan.ops.forEach((op, i) => {
      if (op.t === 'relocate' || op.t === 'gc' || op.t === 'recall') disruptors.push(i);
      else {
        const lane = op.t === 'turns' || op.t === 'end' ? `${op.user}/${op.session}` : op.user;
        lanes.set(lane, [...(lanes.get(lane) ?? []), i]);
      }
    });
    // verify() is paced by progress, not by the clock: it runs again once some op has been acknowledged since.
    let acked: () => void = () => undefined;
    const nextAck = (): Promise<void> =>
      new Promise<void>((resolve) => {
        acked = resolve;
      });
    const runLane = async (ops: number[]): Promise<void> => {
      for (const i of ops) {
        acks.set(i, await exec.run(plan.ops[i]!));
        acked();
      }
    };
    const runDisruptor = async (op: PlanOp): Promise<void> => {
      // A relocation may name chunks whose put has not been acknowledged yet: it relocates the ones it can.
      if (op.t === 'relocate') {
        const refs = op.refs.filter((r) => exec.idOf(r) !== undefined);
        if (refs.length < 2) return;
        await exec.run({ ...op, refs });
        return;
      }
      await exec.run(op);
    };
    let verifies = 0;
    let working = true;
    // A backend without snapshots (Redis) reads each command as of itself: a verify running beside writes can see a
    // commit between two of its reads (docs/redis.md). There verify runs once the writes have stopped.
    const snapshots = be.name !== 'redis';
    const verifyLoop = async (): Promise<void> => {
      if (!snapshots) {
        while (working) await nextAck();
      }
      while (working) {
        const v = await store.verify();
        expect(v.problems).toEqual([]);
        verifies++;
        if (working) await nextAck();
      }
    };
    const disruptorLanes = [0, 1, 2, 3].map(async (k) => {
      for (let j = k; j < disruptors.length; j += 4) await runDisruptor(plan.ops[disruptors[j]!]!);
    });
    const verifying = verifyLoop();
    await bounded(Promise.all([...[...lanes.values()].map(runLane), ...disruptorLanes]), DEADLINE_MS, 'the concurrent workload');
    working = false;
    acked();
    await bounded(verifying, DEADLINE_MS, 'verify');
    if (!snapshots) {
      expect((await store.verify()).problems).toEqual([]);
      verifies++;
    }
    expect(verifies).toBeGreaterThan(0);

    // Nothing lost: with every op acknowledged, the database equals the oracle exactly.
    const model = new StoreModel();
    const mem = new MemoryModel();
    plan.ops.forEach((op, i) => {
      const ack = acks.get(i);
      if (op.t === 'relocate' || op.t === 'gc' || op.t === 'recall') return;
      expect(ack, `op ${i} was not acknowledged`).toBeDefined();
      expect(model.apply(op, ack!)).toEqual([]);
      mem.apply(op);
    });
    expect(compareStore(model, await readStoreState(store)).diffs).toEqual([]);
    expect(compareMemory(mem, await readMemoryState(store), []).diffs).toEqual([]);
    const v = await store.verify();
    expect(v.problems).toEqual([]);
    expect(v.checked.chunks).toBeGreaterThan(50);
    const st = await store.stats();
    expect(st.gcRuns + st.relocations).toBeGreaterThan(0);
  }, 120_000);
});

describe('a second process', () => {
  it('gets AKASHIC_LOCKED while the database is open here, and opens it once it is closed', async () => {
    const be = await BACKENDS[0]!.make();
    const store = await be.open();
    await store.put('alice', { sessionId: 's', text: 'held' });
    const probe = fileURLToPath(new URL('../../dist/test/reliability/fixtures/open-probe.js', import.meta.url));
    const dbPath = be.path!;
    const locked = spawnSync(process.execPath, [probe, dbPath], { encoding: 'utf8', timeout: 30_000 });
    expect(JSON.parse(locked.stdout)).toMatchObject({ open: 'AKASHIC_LOCKED', readOnly: 'AKASHIC_LOCKED', salvage: 'AKASHIC_LOCKED' });
    await store.close();
    const free = spawnSync(process.execPath, [probe, dbPath], { encoding: 'utf8', timeout: 30_000 });
    expect(JSON.parse(free.stdout)).toMatchObject({ open: 'ok', chunks: 1 });
    await be.cleanup();
  });
});

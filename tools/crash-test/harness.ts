/**
 * The crash test's parent (db_stress style): for each cycle, generate a plan from the seed and the oracle's
 * state, run it in a child process, SIGKILL the child at a random moment, reopen the database, run verify(),
 * and compare the database with the oracle: it must equal the state after the acknowledged ops, or after the
 * acknowledged ops plus the one in flight (no hole, nothing lost, nothing resurrected).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import { createPrng, deriveSeed } from '../../src/lab/workload/prng.js';
import { parseLog } from './op-log.js';
import { MemoryModel, StoreModel, compareMemory, compareStore, readMemoryState, readStoreState } from './oracle.js';
import { CRASH_STORE_OPTIONS, crashStoreTarget, generatePlan, type PlanOp } from './plan.js';
import { isAkashicError } from '../../src/errors.js';
import { chooseFault, damageNewestLog, faultMessage, type DamagedLog, type FaultKind } from './faults.js';

/** What the child may fail with in a write-fault cycle: the failed write, and every write after it. */
const FAULT_CODES = ['AKASHIC_IO', 'AKASHIC_READ_ONLY'];

export interface CrashTestOptions {
  readonly cycles: number;
  readonly seed: number;
  /** Working directory: the database, the plan and the logs. Created if missing; the database is kept. */
  readonly dir: string;
  /**
   * The store on Redis instead of a LevelDB directory under `dir`: a `redis://` or `redis+cluster://` URL whose
   * `?prefix=` no other store uses (the run writes users u0..u2, m0, m1 there). Not with `faults` (those damage
   * LevelDB files or inject LevelDB write errors).
   */
  readonly url?: string;
  /** Ops per plan (the child rarely gets through them before the kill). Default 300. */
  readonly opsPerCycle?: number;
  /** Share of cycles whose plan includes MemAttention ops. Default 0.5. */
  readonly memoryShare?: number;
  /** Longest delay between the child's `ready` and the kill. Default 600 ms. */
  readonly maxKillMs?: number;
  /** Fault steps (faults.ts): injected write errors and full disks stepped through the writes, damaged log tails. */
  readonly faults?: boolean;
  /** Called after every cycle. */
  readonly onCycle?: (c: CycleOutcome) => void;
}

/** Where the kill landed, from the child's log. */
export type KillPoint = 'before-ready' | 'idle' | 'write' | 'relocation' | 'gc-op' | 'compaction' | 'recall' | 'completed';

export interface CycleOutcome {
  readonly cycle: number;
  readonly killedAt: KillPoint;
  /** A background GC pass was running when the child was killed. */
  readonly inGcPass: boolean;
  /** A background compaction was pending (acknowledged turns not compacted yet) when the child was killed. */
  readonly compactionPending: boolean;
  readonly acked: number;
  /** Whether the in-flight op turned out to have landed (null: nothing was in flight). */
  readonly inflightLanded: boolean | null;
  readonly ms: number;
  readonly fault: FaultKind;
}

export interface FaultReport {
  /** Cycles run with each fault. */
  readonly cycles: Readonly<Record<FaultKind, number>>;
  /** Write-fault cycles whose injected failure was hit (the rest finished their plan first), and the largest k. */
  readonly writeFaultsHit: number;
  readonly maxFailAt: number;
  /** Writes tried after a storage error and refused with AKASHIC_READ_ONLY (each such cycle tries one). */
  readonly refusedAfterFault: number;
  /** Damaged logs: opens refused with AKASHIC_CORRUPTION, and opens on a prefix of the acknowledged ops. */
  readonly logRefused: number;
  readonly logOpenedAsPrefix: number;
  /** Acknowledged ops a damaged log's tail took with it (the open found exactly the prefix before them). */
  readonly ackedDroppedByLogDamage: number;
}

export interface CrashTestReport {
  readonly seed: number;
  readonly cyclesRun: number;
  readonly cyclesSurvived: number;
  /** The first failure, after which the run stops. Null when every cycle passed. */
  readonly failure: { readonly cycle: number; readonly reason: string; readonly details: readonly string[] } | null;
  readonly ackedOps: number;
  readonly kills: Readonly<Record<KillPoint, number>>;
  readonly killsInGcPass: number;
  /** Kills that landed while a background compaction was pending: the oracle found every acknowledged turn anyway. */
  readonly killsWithCompactionPending: number;
  readonly inflightLanded: number;
  readonly inflightDropped: number;
  /** Chunks the oracle tracks (live and deleted) and acknowledged turns at the end. */
  readonly chunks: number;
  readonly turns: number;
  /** The LevelDB directory, or the Redis URL (`url`). */
  readonly dbPath: string;
  readonly faults: FaultReport;
}

/** The compiled child: next to this module when running from dist/, else dist/ of the repository (vitest). */
export function childScript(): string {
  const local = fileURLToPath(new URL('./child.js', import.meta.url));
  if (existsSync(local)) return local;
  const built = fileURLToPath(new URL('../../dist/tools/crash-test/child.js', import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`crash-test child not found at ${local} or ${built}: run \`npx tsc -p tsconfig.json\``);
}

function killPoint(op: PlanOp | undefined): KillPoint {
  switch (op?.t) {
    case undefined:
      return 'idle';
    case 'relocate':
      return 'relocation';
    case 'gc':
      return 'gc-op';
    case 'turns':
    case 'end':
      return 'compaction';
    case 'recall':
      return 'recall';
    default:
      return 'write';
  }
}

export async function runCrashTest(opts: CrashTestOptions): Promise<CrashTestReport> {
  mkdirSync(opts.dir, { recursive: true });
  if (opts.url !== undefined && opts.faults === true) throw new Error('fault steps need a LevelDB directory: run them without a Redis url');
  const dbPath = opts.url ?? join(opts.dir, 'db');
  const target = crashStoreTarget(dbPath);
  const planPath = join(opts.dir, 'plan.json');
  const rng = createPrng(deriveSeed(opts.seed, 1_000_000));
  const maxKill = opts.maxKillMs ?? 600;
  const child = childScript();
  let model = new StoreModel();
  const memory = new MemoryModel();
  const kills: Record<KillPoint, number> = { 'before-ready': 0, idle: 0, write: 0, relocation: 0, 'gc-op': 0, compaction: 0, recall: 0, completed: 0 };
  let killsInGcPass = 0;
  let killsWithCompactionPending = 0;
  let ackedOps = 0;
  let landed = 0;
  let dropped = 0;
  let survived = 0;
  let failure: CrashTestReport['failure'] = null;
  let cycle = 0;
  const faultRng = createPrng(deriveSeed(opts.seed, 2_000_000));
  const faultCycles: Record<FaultKind, number> = { none: 0, 'write-error': 0, 'disk-full': 0, 'torn-log': 0, 'flipped-log': 0 };
  let failAt = 0;
  let writeFaultsHit = 0;
  let refusedAfterFault = 0;
  let logRefused = 0;
  let logOpenedAsPrefix = 0;
  let ackedDroppedByLogDamage = 0;
  const faultPath = join(opts.dir, 'fault.json');
  for (; cycle < opts.cycles && failure === null; cycle++) {
    const started = Date.now();
    const fault: FaultKind = opts.faults === true ? chooseFault(faultRng) : 'none';
    faultCycles[fault]++;
    const writeFault = fault === 'write-error' || fault === 'disk-full';
    const logFault = fault === 'torn-log' || fault === 'flipped-log';
    // Damaged-log cycles run store ops only: their oracle is "a prefix of the acknowledged ops".
    const withMemory = rng.chance(opts.memoryShare ?? 0.5) && !logFault;
    const plan = generatePlan(deriveSeed(opts.seed, cycle), cycle, model, { ops: opts.opsPerCycle ?? 300, memory: withMemory });
    writeFileSync(planPath, JSON.stringify(plan));
    const logPath = join(opts.dir, `log-${cycle}.txt`);
    const fail = (reason: string, details: readonly string[]): void => {
      failure = { cycle, reason, details: [...details, `plan: ${planPath}`, `log: ${logPath}`, `db: ${dbPath}`] };
    };

    // Run the child and kill it.
    if (writeFault) writeFileSync(faultPath, JSON.stringify({ failAt: ++failAt, message: faultMessage(fault) }));
    const proc = spawn(process.execPath, [child, dbPath, planPath, logPath, ...(writeFault ? [faultPath] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
    const ready = new Promise<void>((resolve) => {
      let out = '';
      proc.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('ready')) resolve();
      });
    });
    // One kill in ten counts from the spawn (it may land while the child opens the database); the rest count from
    // `ready`: a third within the first 50 ms (often inside the first commits), the rest anywhere up to maxKill.
    const early = rng.chance(0.1);
    const delay = early ? rng.int(1, 250) : rng.chance(0.3) ? rng.int(2, 50) : rng.int(50, Math.max(51, maxKill));
    if (writeFault) {
      // The child ends by itself: at the injected failure (exit 5) or, when k is past its last write, done.
      await Promise.race([sleep(120_000), exited]);
    } else {
      if (!early) await Promise.race([ready, exited]);
      await Promise.race([sleep(delay), exited]);
    }
    proc.kill('SIGKILL');
    const { code, signal } = await exited;
    const log = parseLog(logPath);
    const opErrors = log.errors.filter((e) => e.op !== null);
    if (writeFault) {
      const unexpected = log.errors.filter((e) => !FAULT_CODES.includes(e.code));
      if (signal === 'SIGKILL' || !((code === 5 && opErrors.length === 1) || (code === 0 && log.done)) || unexpected.length > 0) {
        fail(`write-fault cycle (k = ${failAt}): the child ended with code ${code} signal ${signal}`, [...log.errors.map((e) => `op ${e.op}: ${e.code} ${e.message}`), stderr]);
        break;
      }
      if (code === 5) {
        writeFaultsHit++;
        if (log.probe !== 'AKASHIC_READ_ONLY') {
          fail(`after a storage error (k = ${failAt}) a write was not refused with AKASHIC_READ_ONLY`, [`it got ${String(log.probe)}`]);
          break;
        }
        refusedAfterFault++;
      }
    } else {
      if (signal !== 'SIGKILL' && !(code === 0 && log.done)) {
        fail(`child exited by itself with code ${code}`, [...log.errors.map((e) => `op ${e.op}: ${e.code} ${e.message}`), stderr]);
        break;
      }
      if (log.errors.length > 0) {
        fail('an operation failed in the child', log.errors.map((e) => `op ${e.op} (${JSON.stringify(plan.ops[e.op ?? -1] ?? null).slice(0, 300)}): ${e.code} ${e.message}`));
        break;
      }
    }
    // An op refused with AKASHIC_READ_ONLY never reached the database: it is not in flight. Except a turns op: its
    // append may have been acknowledged before the compaction it gated was refused (the executor rethrows the
    // reported compactionError), so it stays in flight: all of its turns or none.
    const refusedOp = log.inflight === null ? undefined : plan.ops[log.inflight];
    const inflightOp = opErrors[0]?.code === 'AKASHIC_READ_ONLY' && refusedOp?.t !== 'turns' ? undefined : refusedOp;
    if (!writeFault) {
      const point: KillPoint = log.done ? 'completed' : !log.ready ? 'before-ready' : killPoint(inflightOp);
      kills[point]++;
      if (log.inGcPass) killsInGcPass++;
      if (log.compactionPending) killsWithCompactionPending++;
    }

    // Damaged-log cycles: damage the newest log now, as a crash mid-write or a bad sector would leave it.
    let damage: DamagedLog | null = logFault ? damageNewestLog(dbPath, fault as 'torn-log' | 'flipped-log', faultRng) : null;

    // Reopen, verify, compare with the oracle.
    let store: AkashicStore;
    try {
      store = await AkashicStore.open({ ...CRASH_STORE_OPTIONS, ...target });
    } catch (err) {
      if (damage === null || !isAkashicError(err, 'AKASHIC_CORRUPTION')) {
        fail(`the database does not reopen after the kill${damage === null ? '' : ` (${damage.what})`}`, [String(err)]);
        break;
      }
      // Refused: nothing may have changed. Put the log back and check everything as after any kill.
      if (!readFileSync(damage.file).equals(damage.damaged)) {
        fail(`an open refused for a damaged log changed the log (${damage.what})`, [String(err)]);
        break;
      }
      writeFileSync(damage.file, damage.original);
      damage = null;
      logRefused++;
      try {
        store = await AkashicStore.open({ ...CRASH_STORE_OPTIONS, ...target });
      } catch (err2) {
        fail('the database does not reopen once its log is restored', [String(err2)]);
        break;
      }
    }
    try {
      const v = await store.verify();
      if (!v.ok) {
        fail('verify() found problems after the kill', v.problems.map((p) => `${p.kind}: ${p.message}`));
        break;
      }
      const ackErrors: string[] = [];
      // With a damaged log the database may hold any prefix of the acknowledged ops: keep the model at each.
      const prefixes: StoreModel[] = damage === null ? [] : [model.clone()];
      log.acks.forEach((ack, i) => {
        const op = plan.ops[i]!;
        ackErrors.push(...model.apply(op, ack).map((e) => `op ${i}: ${e}`));
        memory.apply(op);
        if (damage !== null) prefixes.push(model.clone());
      });
      ackedOps += log.acks.length;
      if (ackErrors.length > 0) {
        fail('an acknowledged result disagrees with the oracle', ackErrors);
        break;
      }
      const actual = await readStoreState(store);
      if (damage !== null && compareStore(model, actual).diffs.length > 0) {
        // Not the full acknowledged state: it must be exactly a shorter prefix (the damaged tail dropped the rest).
        let j = prefixes.length - 2;
        while (j >= 0 && compareStore(prefixes[j]!, actual).diffs.length > 0) j--;
        if (j >= 0) {
          model = prefixes[j]!;
          ackedDroppedByLogDamage += log.acks.length - j;
          logOpenedAsPrefix++;
          survived++;
          rmSync(logPath, { force: true });
          opts.onCycle?.({ cycle, killedAt: 'write', inGcPass: log.inGcPass, compactionPending: log.compactionPending, acked: log.acks.length, inflightLanded: null, ms: Date.now() - started, fault });
          continue;
        }
      } else if (damage !== null) {
        logOpenedAsPrefix++;
      }
      let inflightLanded: boolean | null = inflightOp === undefined ? null : false;
      const atK = compareStore(model, actual);
      if (atK.diffs.length > 0) {
        const next = model.clone();
        if (inflightOp !== undefined) next.apply(inflightOp, null);
        const atK1 = inflightOp === undefined ? null : compareStore(next, actual);
        if (atK1 === null || atK1.diffs.length > 0) {
          fail(`the database is neither the state after the ${log.acks.length} acknowledged ops nor that plus the op in flight`, [
            '-- against the acknowledged prefix:',
            ...atK.diffs,
            ...(atK1 === null ? ['(no op was in flight)'] : ['-- against the prefix plus the in-flight op:', ...atK1.diffs]),
          ]);
          break;
        }
        for (const [name, id] of atK1.bound) next.bind(name, id);
        model = next;
        inflightLanded = true;
        // A damaged log whose torn tail was a batch after the op in flight (a background posting merge of the
        // candidate index): the database opened on the acknowledged ops plus the in-flight one, a valid prefix.
        if (damage !== null) logOpenedAsPrefix++;
      }
      const turns = inflightOp?.t === 'turns' ? inflightOp.turns : [];
      const mem = compareMemory(memory, await readMemoryState(store), turns);
      if (mem.diffs.length > 0) {
        fail('MemAttention state breaks the oracle', mem.diffs);
        break;
      }
      if (mem.inflightPresent) {
        memory.apply(inflightOp!);
        inflightLanded = true;
      }
      if (inflightLanded === true) landed++;
      if (inflightLanded === false) dropped++;
      survived++;
      rmSync(logPath, { force: true });
      opts.onCycle?.({ cycle, killedAt: log.done ? 'completed' : writeFault ? 'write' : !log.ready ? 'before-ready' : killPoint(inflightOp), inGcPass: log.inGcPass, compactionPending: log.compactionPending, acked: log.acks.length, inflightLanded, ms: Date.now() - started, fault });
    } finally {
      await store.close();
    }
  }
  return {
    seed: opts.seed,
    cyclesRun: cycle,
    cyclesSurvived: survived,
    failure,
    ackedOps,
    kills,
    killsInGcPass,
    killsWithCompactionPending,
    inflightLanded: landed,
    inflightDropped: dropped,
    chunks: model.size,
    turns: memory.acked.size,
    dbPath,
    faults: { cycles: faultCycles, writeFaultsHit, maxFailAt: failAt, refusedAfterFault, logRefused, logOpenedAsPrefix, ackedDroppedByLogDamage },
  };
}

/**
 * Full crash test: `node dist/tools/crash-test/run.js --cycles 200 [--seed N] [--dir PATH] [--ops N] [--keep] [--faults]
 * [--url redis+cluster://h:p,h:p]` (build first: `npx tsc -p tsconfig.json`). Prints progress and a summary; exits 1
 * on any loss, failed verify() or failed operation, 0 when every cycle survived. See docs/reliability.md.
 *
 * With `--url` the store is on Redis (a fresh `?prefix=` of the run's own unless the URL names one; its keys are
 * deleted at the end unless `--keep`); `--dir` then holds only the plans and logs. `--faults` needs LevelDB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCrashTest } from './harness.js';
import { dropRunKeys, withRunPrefix } from './redis-store.js';

const { values } = parseArgs({
  options: {
    cycles: { type: 'string', default: '200' },
    seed: { type: 'string' },
    dir: { type: 'string' },
    ops: { type: 'string', default: '300' },
    'max-kill-ms': { type: 'string' },
    keep: { type: 'boolean', default: false },
    faults: { type: 'boolean', default: false },
    url: { type: 'string' },
  },
});
if (values.url !== undefined && values.faults) {
  process.stderr.write('--faults damages LevelDB files and injects LevelDB write errors: it cannot run with --url\n');
  process.exit(2);
}

function int(name: string, v: string | undefined): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) {
    process.stderr.write(`--${name} must be a non-negative integer, got ${String(v)}\n`);
    process.exit(2);
  }
  return n;
}

const cycles = int('cycles', values.cycles);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : int('seed', values.seed);
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'akashic-crash-'));
const url = values.url === undefined ? undefined : withRunPrefix(values.url);
const t0 = Date.now();
process.stdout.write(`crash test: ${cycles} cycles${values.faults ? ' with fault steps' : ''}, seed ${seed}, dir ${dir}${url === undefined ? '' : `, store ${url}`}\n`);
const report = await runCrashTest({
  cycles,
  ...(url === undefined ? {} : { url }),
  seed,
  dir,
  opsPerCycle: int('ops', values.ops),
  // On Redis every acknowledged op is a network round trip or more (and an fsync with AOF always): a longer window
  // gets a child through as many ops before its kill as 600 ms get it on LevelDB.
  maxKillMs: int('max-kill-ms', values['max-kill-ms'] ?? (url === undefined ? '600' : '2500')),
  faults: values.faults,
  onCycle: (c) => {
    if ((c.cycle + 1) % 10 === 0 || c.cycle === 0) {
      process.stdout.write(`  cycle ${c.cycle + 1}: ${c.fault === 'none' ? '' : `fault ${c.fault}, `}killed at ${c.killedAt}${c.inGcPass ? ' (GC pass running)' : ''}${c.compactionPending ? ' (compaction pending)' : ''}, ${c.acked} ops acked, ${c.ms} ms\n`);
    }
  },
});
const secs = ((Date.now() - t0) / 1000).toFixed(1);
process.stdout.write(
  [
    `cycles survived: ${report.cyclesSurvived}/${cycles} in ${secs} s (seed ${report.seed})`,
    `acknowledged ops checked: ${report.ackedOps}; in-flight op landed ${report.inflightLanded}, dropped ${report.inflightDropped}`,
    `kill points: ${Object.entries(report.kills).map(([k, n]) => `${k} ${n}`).join(', ')}; with a background GC pass running: ${report.killsInGcPass}; with a background compaction pending: ${report.killsWithCompactionPending}`,
    `oracle at the end: ${report.chunks} chunks, ${report.turns} turns`,
    ...(values.faults
      ? [
          `fault cycles: ${Object.entries(report.faults.cycles).map(([k, n]) => `${k} ${n}`).join(', ')}`,
          `write faults: injected failure hit in ${report.faults.writeFaultsHit} cycles (k = 1..${report.faults.maxFailAt}); writes after it refused with AKASHIC_READ_ONLY: ${report.faults.refusedAfterFault}`,
          `damaged logs: open refused (AKASHIC_CORRUPTION, nothing changed) ${report.faults.logRefused}, opened on a prefix of the acknowledged ops ${report.faults.logOpenedAsPrefix} (acknowledged ops the damaged tail dropped: ${report.faults.ackedDroppedByLogDamage})`,
        ]
      : []),
    `lost or wrong: ${report.failure === null ? 0 : 'SEE FAILURE'}`,
  ].join('\n') + '\n',
);
if (report.failure !== null) {
  if (url !== undefined) process.stdout.write(`the store is kept: ${url}\n`);
  process.stdout.write(`FAILED at cycle ${report.failure.cycle}: ${report.failure.reason}\n${report.failure.details.map((d) => `  ${d}`).join('\n')}\n`);
  process.exit(1);
}
if (!values.keep && values.dir === undefined) rmSync(dir, { recursive: true, force: true });
if (!values.keep && url !== undefined) await dropRunKeys(url);

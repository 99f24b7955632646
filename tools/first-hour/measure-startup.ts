/**
 * What a new user's first minute costs: `import('akashic')` (time, resident memory) and the first recall after it
 * (time, extra memory), each in a fresh Node process, repeated and reported as medians.
 *
 *   node dist/tools/first-hour/measure-startup.js [--entry FILE] [--runs N] [--json]
 *
 * `--entry` is the package's main module (default: this checkout's `dist/src/index.js`; point it into an installed
 * copy to measure that). The recall runs on a small database written beforehand by another process: a user's two
 * sessions of a few turns each, ended (so compacted), then a question in a third session with the defaults.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Wall-clock times, and CPU times (user + system, all threads) which a busy shared machine inflates less. */
interface StartupSample {
  importMs: number;
  importCpuMs: number;
  firstRecallCpuMs: number;
  importRssMb: number;
  openMs: number;
  firstRecallMs: number;
  firstRecallRssMb: number;
  secondRecallMs: number;
  recalledChars: number;
}

const MB = 1024 * 1024;

/** Writes the database the recall reads: two ended sessions of one user. */
function seedScript(entry: string, db: string): string {
  return `
const { AkashicStore, AkashicMemory } = await import(${JSON.stringify(entry)});
const store = await AkashicStore.open({ path: ${JSON.stringify(db)} });
const memory = new AkashicMemory(store);
const turns = [
  ['s1', 'user', 'I moved to Lisbon last week, the flat is near the river.'],
  ['s1', 'assistant', 'Congratulations on the move! How is the new neighbourhood?'],
  ['s1', 'user', 'Quiet, and there is a bakery downstairs that opens at six.'],
  ['s2', 'user', 'My daughter just started kindergarten and loves painting.'],
  ['s2', 'assistant', 'That is a big step. Does she have a favourite colour?'],
  ['s2', 'user', 'Purple, always purple. We also adopted a puppy called Biscuit.'],
];
for (const [session, role, text] of turns) await memory.appendTurn({ user: 'alice', session, role, text });
await memory.endSession({ user: 'alice', session: 's1' });
await memory.endSession({ user: 'alice', session: 's2' });
await memory.close();
await store.close();
`;
}

/** One fresh process: import, open, first and second recall; prints one JSON sample. */
function probeScript(entry: string, db: string): string {
  return `
const mb = () => process.memoryUsage().rss / ${MB};
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const c0 = cpu();
const t0 = performance.now();
const { AkashicStore, AkashicMemory } = await import(${JSON.stringify(entry)});
const t1 = performance.now();
const c1 = cpu();
const importRssMb = mb();
const store = await AkashicStore.open({ path: ${JSON.stringify(db)} });
const memory = new AkashicMemory(store);
const t2 = performance.now();
const c2 = cpu();
const rssBefore = mb();
const r = await memory.recall({ user: 'alice', session: 's3', scope: 'user', query: 'Where does Alice live now?' });
const t3 = performance.now();
const c3 = cpu();
const firstRecallRssMb = mb() - rssBefore;
await memory.recall({ user: 'alice', session: 's3', scope: 'user', query: 'What is the name of the dog?' });
const t4 = performance.now();
await memory.close();
await store.close();
console.log(JSON.stringify({ importMs: t1 - t0, importCpuMs: c1 - c0, firstRecallCpuMs: c3 - c2, importRssMb, openMs: t2 - t1, firstRecallMs: t3 - t2, firstRecallRssMb, secondRecallMs: t4 - t3, recalledChars: r.text.length }));
`;
}

function runModule(source: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function main(argv: readonly string[]): void {
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const defaultEntry = fileURLToPath(new URL('../../src/index.js', import.meta.url));
  const entry = pathToFileURL(resolve(flag('--entry') ?? defaultEntry)).href;
  const runs = Number(flag('--runs') ?? '5');
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  const dir = mkdtempSync(join(tmpdir(), 'akashic-startup-'));
  try {
    const db = join(dir, 'db');
    runModule(seedScript(entry, db));
    const samples: StartupSample[] = [];
    for (let i = 0; i < runs; i++) samples.push(JSON.parse(runModule(probeScript(entry, db))) as StartupSample);
    if (samples.some((s) => s.recalledChars === 0)) throw new Error('a first recall returned no memory: the measurement would be of nothing');
    const keys = ['importMs', 'importCpuMs', 'importRssMb', 'firstRecallCpuMs', 'openMs', 'firstRecallMs', 'firstRecallRssMb', 'secondRecallMs'] as const;
    const result = Object.fromEntries(keys.map((k) => [k, Math.round(median(samples.map((s) => s[k])) * 10) / 10]));
    const baseline = JSON.parse(runModule(`console.log(JSON.stringify({ rssMb: process.memoryUsage().rss / ${MB} }))`)) as { rssMb: number };
    const report = { node: process.version, runs, entry, emptyProcessRssMb: Math.round(baseline.rssMb * 10) / 10, ...result };
    if (argv.includes('--json')) {
      console.log(JSON.stringify(report, null, 2));
      return;
    }
    console.log(`Node ${report.node}, median of ${runs} fresh processes`);
    console.log(`  empty process          ${report.emptyProcessRssMb} MB RSS`);
    console.log(`  import('akashic')      ${result['importMs']} ms (${result['importCpuMs']} ms CPU), ${result['importRssMb']} MB RSS after`);
    console.log(`  open store + memory    ${result['openMs']} ms`);
    console.log(`  first recall           ${result['firstRecallMs']} ms (${result['firstRecallCpuMs']} ms CPU), +${result['firstRecallRssMb']} MB RSS`);
    console.log(`  second recall          ${result['secondRecallMs']} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2));

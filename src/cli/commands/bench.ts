import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { benchMarkdown, benchSvg, runBench, type BenchOptions, runScale, scaleMarkdown, historySweepMarkdown, runHistorySweep, type PolicyName, type TraceKind } from '../../lab/index.js';
import { SELECT_VARIANTS, type SelectVariant } from '../../model/select-variants.js';
import { LOCOMO_HELP, example, ioOf, parseFraction, parsePositiveInt } from '../cli-context.js';
import { progressBar } from '../progress.js';

interface BenchCliOptions {
  trace?: string;
  traceFile?: string;
  policies?: string;
  deviceWrites: boolean;
  minRecurrence?: number;
  mergeBelowFill?: number;
  relocateEvery?: number;
  locomo?: string;
  json?: true;
  fast?: true;
  users?: number;
  sessions?: number;
  turns?: number;
  questions?: number;
  seed?: number;
  topicSkew?: number;
  followUp?: number;
  recordWorkers?: number;
  select?: SelectVariant;
  coldSamples?: number;
  dropCaches: boolean;
  sweeps: boolean;
  capacity?: number;
  theta?: number;
  tau?: number;
  out?: string;
  workDir?: string;
  scale?: true;
  scaleChunks?: number;
  scaleBaseline?: true;
  scaleBatch?: number;
  historySweep?: true;
  sizes?: string;
  historyDir?: string;
  buildOnly?: true;
  ingest: boolean;
}

function parseNonNegative(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0) throw new InvalidArgumentError(`expected a number >= 0, got ${value}`);
  return x;
}

function parseCount(value: string): number {
  return value.trim() === '0' ? 0 : parsePositiveInt(value);
}

export function register(program: Command): void {
  program
    .command('bench')
    .description('locality and storage efficiency of the layout policies against LevelDB and SQLite, on one trace')
    .option('--trace <kind>', "requests of the trace: 'questions' (each benchmark question once, default) or 'admission' (a recall at every user turn, the turn as the query)")
    .option('--trace-file <file>', 'reuse the trace recorded in FILE (same source and kind), or record it and save it there')
    .option('--policies <list>', 'comma-separated layout policies to run (default all six; the others are reported as not run)')
    .option('--no-device-writes', 'skip the store-by-store replay that measures device-level write amplification')
    .option('--min-recurrence <n>', 'co-accesses a pair needs before online relocation moves it (default: the library default)', parsePositiveInt)
    .option('--merge-below-fill <x>', 'GC also merges sealed blocks filled below this fraction of the capacity (default: the library default)', parseFraction)
    .option('--relocate-every <n>', 'one COLOCATE per this many recalls of a user (default: the library default)', parsePositiveInt)
    .option('--locomo <path>', 'LoCoMo file or folder (default: the synthetic generator)')
    .option('--json', 'print the figures as JSON (stable schema: policies, peers)')
    .option('--fast', 'tiny synthetic smoke run (no page-cache drop)')
    .option('--users <n>', 'synthetic users', parsePositiveInt)
    .option('--sessions <n>', 'synthetic sessions per user (longer histories)', parsePositiveInt)
    .option('--turns <n>', 'synthetic turns per session', parsePositiveInt)
    .option('--questions <n>', 'synthetic questions per user', parsePositiveInt)
    .option('--seed <n>', 'synthetic seed', parsePositiveInt)
    .option('--topic-skew <x>', 'synthetic: Zipf exponent of how often a user\'s topics come up (default 0: all alike)', parseNonNegative)
    .option('--follow-up <x>', 'synthetic: chance a session opens on the topic the previous one ended with (default 0)', parseFraction)
    .option('--record-workers <n>', 'record the trace with N worker threads, one conversation each at a time (default 1)', parsePositiveInt)
    .addOption(
      new Option(
        '--select <variant>',
        "SELECT the trace is recorded with: 'lexical' (default, the embedded model), 'hybrid' (plus an offline word-vector embedder, fused with BM25), 'dense' (experiment: the embedder's ranking alone)",
      ).choices(SELECT_VARIANTS),
    )
    .option('--cold-samples <n>', 'requests measured cold (default 300; fast 6)', parseCount)
    .option('--no-drop-caches', 'do not drop the OS page cache before cold reads')
    .option('--no-sweeps', 'skip the θ, τ_assoc and block-capacity sweeps')
    .option('--capacity <n>', 'block capacity of the comparison (default: the engine default)', parsePositiveInt)
    .option('--theta <x>', 'GC threshold θ of the comparison', parseFraction)
    .option('--tau <x>', 'τ_assoc of the comparison', parseFraction)
    .option('--out <dir>', 'write bench.json, bench.md and bench.svg (or scale.json, scale.md) into DIR')
    .option('--work-dir <dir>', 'keep the stores in DIR instead of a removed temporary directory')
    .option('--scale', 'the scale run instead: ≥ 1,000,000 chunks driven straight into the stores (long)')
    .option('--scale-chunks <n>', 'chunks of the scale run (default 1000000)', parsePositiveInt)
    .option('--scale-baseline', 'also run append-only in the scale run (about twice as long)')
    .option('--scale-batch <n>', 'scale run: sessions per user in one bulk write of a cohort round (default 50; 1 = one chunk per write)', parsePositiveInt)
    .option('--history-sweep', 'recall cost as one user\'s history grows (100 to 100k chunks) against SQLite FTS5, and the ingest table')
    .option('--sizes <list>', 'history sweep: comma-separated chunks per user (default 100,1000,10000,100000)')
    .option('--history-dir <dir>', 'history sweep: keep the grown histories (one per size) in DIR and resume from what an earlier run left there')
    .option('--build-only', 'history sweep: only grow the histories in --history-dir (no measurements)')
    .option('--no-ingest', 'history sweep: leave out the ingest table')
    .addHelpText('after', example('akashic bench --locomo ./locomo10.json --out bench-out') + LOCOMO_HELP)
    .action(async (opts: BenchCliOptions, cmd: Command) => {
      const io = ioOf(cmd);
      const command = ['akashic', ...process.argv.slice(2)].join(' ');
      if (opts.historySweep === true) {
        const r = await runHistorySweep({
          command,
          dropCaches: opts.dropCaches,
          ...(opts.sizes === undefined ? {} : { sizes: opts.sizes.split(',').map((x) => parsePositiveInt(x.trim())) }),
          ...(opts.coldSamples === undefined ? {} : { coldSamples: opts.coldSamples }),
          ...(opts.workDir === undefined ? {} : { workDir: opts.workDir }),
          ...(opts.seed === undefined ? {} : { seed: opts.seed }),
          ...(opts.historyDir === undefined ? {} : { historyDir: opts.historyDir }),
          ...(opts.buildOnly === true ? { buildOnly: true } : {}),
          ...(opts.ingest ? {} : { skipIngest: true }),
          log: (line) => io.stderr.write(line + '\n'),
        });
        if (opts.out !== undefined) {
          await mkdir(opts.out, { recursive: true });
          await writeFile(join(opts.out, 'history-sweep.json'), JSON.stringify(r, null, 2) + '\n');
          await writeFile(join(opts.out, 'history-sweep.md'), historySweepMarkdown(r));
        }
        io.stdout.write(opts.json === true ? JSON.stringify(r, null, 2) + '\n' : historySweepMarkdown(r));
        return;
      }
      if (opts.scale === true) {
        const bar = progressBar(io, 'scale');
        const r = await runScale({
          chunks: opts.scaleChunks ?? 1_000_000,
          command,
          ...(opts.users === undefined ? {} : { users: opts.users }),
          ...(opts.questions === undefined ? {} : { questionsPerUser: opts.questions }),
          ...(opts.scaleBatch === undefined ? {} : { batch: opts.scaleBatch }),
          ...(opts.coldSamples === undefined ? {} : { coldSamples: opts.coldSamples }),
          ...(opts.workDir === undefined ? {} : { workDir: opts.workDir }),
          dropCaches: opts.dropCaches,
          policies: opts.scaleBaseline === true ? ['append-only', 'akashic'] : ['akashic'],
          onProgress: (_stage, d, n) => bar.update(d, n),
          log: (line) => io.stderr.write(line + '\n'),
        }).finally(() => bar.stop());
        if (opts.out !== undefined) {
          await mkdir(opts.out, { recursive: true });
          await writeFile(join(opts.out, 'scale.json'), JSON.stringify(r, null, 2) + '\n');
          await writeFile(join(opts.out, 'scale.md'), scaleMarkdown(r));
        }
        io.stdout.write(opts.json === true ? JSON.stringify(r, null, 2) + '\n' : scaleMarkdown(r));
        return;
      }
      const params: NonNullable<BenchOptions['params']> = {
        ...(opts.capacity === undefined ? {} : { blockCapacity: opts.capacity }),
        ...(opts.theta === undefined ? {} : { gcThreshold: opts.theta }),
        ...(opts.tau === undefined ? {} : { tauAssoc: opts.tau }),
        ...(opts.minRecurrence === undefined ? {} : { relocateMinRecurrence: opts.minRecurrence }),
        ...(opts.relocateEvery === undefined ? {} : { relocateEveryRecalls: opts.relocateEvery }),
        ...(opts.mergeBelowFill === undefined ? {} : { gcMergeBelowFill: opts.mergeBelowFill }),
      };
      const bar = progressBar(io, 'bench');
      const result = await runBench({
        command,
        params,
        dropCaches: opts.dropCaches && opts.fast !== true,
        sweeps: opts.sweeps,
        ...(opts.deviceWrites ? {} : { deviceWrites: false }),
        ...(opts.trace === undefined ? {} : { trace: opts.trace as TraceKind }),
        ...(opts.traceFile === undefined ? {} : { traceFile: opts.traceFile }),
        ...(opts.policies === undefined ? {} : { policies: opts.policies.split(',').map((x) => x.trim()) as PolicyName[] }),
        ...(opts.locomo === undefined ? {} : { locomo: opts.locomo }),
        ...(opts.fast === undefined ? {} : { fast: true }),
        ...(opts.users === undefined ? {} : { users: opts.users }),
        ...(opts.sessions === undefined ? {} : { sessionsPerUser: opts.sessions }),
        ...(opts.turns === undefined ? {} : { turnsPerSession: opts.turns }),
        ...(opts.questions === undefined ? {} : { questionsPerUser: opts.questions }),
        ...(opts.seed === undefined ? {} : { seed: opts.seed }),
        ...(opts.topicSkew === undefined ? {} : { topicSkew: opts.topicSkew }),
        ...(opts.followUp === undefined ? {} : { followUpChance: opts.followUp }),
        ...(opts.recordWorkers === undefined ? {} : { recordWorkers: opts.recordWorkers }),
        ...(opts.select === undefined ? {} : { select: opts.select }),
        ...(opts.coldSamples === undefined ? {} : { coldSamples: opts.coldSamples }),
        ...(opts.workDir === undefined ? {} : { workDir: opts.workDir }),
        onProgress: (_stage, d, n) => bar.update(d, n),
      }).finally(() => bar.stop());
      if (opts.out !== undefined) {
        await mkdir(opts.out, { recursive: true });
        await writeFile(join(opts.out, 'bench.json'), JSON.stringify(result, null, 2) + '\n');
        await writeFile(join(opts.out, 'bench.md'), benchMarkdown(result));
        await writeFile(join(opts.out, 'bench.svg'), benchSvg(result));
      }
      io.stdout.write(opts.json === true ? JSON.stringify(result, null, 2) + '\n' : benchMarkdown(result));
    });
}

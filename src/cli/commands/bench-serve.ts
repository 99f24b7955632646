import type { Command } from 'commander';
import { runServeBench, serveBenchMarkdown } from '../../lab/index.js';
import { example, ioOf, parsePositiveInt } from '../cli-context.js';

export function register(program: Command): void {
  program
    .command('bench-serve')
    .description('append and recall latency (p50, p99) and requests/s over HTTP on loopback against embedded calls, at several client concurrencies')
    .option('--concurrency <list>', 'comma-separated client counts', '1,16,64')
    .option('--requests <n>', 'appends and recalls per concurrency level (each)', parsePositiveInt, 400)
    .option('--users <n>', 'users seeded with conversations', parsePositiveInt, 8)
    .option('--in-process', 'run the server in the benchmark process (no second process competing for the cores)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', example('akashic bench-serve --concurrency 1,16,64 --requests 400'))
    .action(async (opts: { concurrency: string; requests: number; users: number; inProcess?: true; json?: true }, cmd: Command) => {
      const concurrency = opts.concurrency.split(',').map((s) => parsePositiveInt(s));
      const report = await runServeBench({ concurrency, requests: opts.requests, users: opts.users, inProcess: opts.inProcess === true });
      ioOf(cmd).stdout.write(opts.json === true ? JSON.stringify(report, null, 2) + '\n' : serveBenchMarkdown(report) + '\n');
    });
}

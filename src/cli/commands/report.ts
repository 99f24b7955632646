import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { writeHtmlReport } from '../../admin/html-report.js';
import { lineWriter } from '../../util/line-sink.js';
import { isRedisUrl, redactRedisUrl } from '../../backend/redis/redis-url.js';
import { dbOption, example, ioOf, withStore } from '../cli-context.js';

export function register(program: Command): void {
  dbOption(program.command('report').description('one self-contained HTML page: block layout, φ histogram, blocks per retrieval'))
    .requiredOption('--out <file>', 'HTML file to write')
    .addHelpText('after', example('akashic report --db ./memory --out report.html'))
    .action(async (opts: { db: string; out: string }, cmd: Command) => {
      const data = await withStore(opts.db, { readOnly: true }, (store) =>
        writeHtmlReport(store, opts.out, { title: `Akashic database ${isRedisUrl(opts.db) ? redactRedisUrl(opts.db) : basename(resolve(opts.db))}` }),
      );
      await lineWriter(ioOf(cmd).stdout).line(`wrote ${opts.out} (${data.blocks.length} of ${data.blocksTotal} blocks drawn)`);
    });
}

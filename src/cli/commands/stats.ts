import type { Command } from 'commander';
import { writeStats } from '../../admin/stats-listing.js';
import { dbOption, example, ioOf, withStore } from '../cli-context.js';

export function register(program: Command): void {
  dbOption(program.command('stats').description('engine figures (StoreStats)'))
    .option('--json', 'print exactly the StoreStats object as JSON')
    .addHelpText('after', example('akashic stats --db ./memory --json'))
    .action(async (opts: { db: string; json?: true }, cmd: Command) => {
      await withStore(opts.db, { readOnly: true }, (store) => writeStats(store, ioOf(cmd).stdout, { json: opts.json === true }));
    });
}

import type { Command } from 'commander';
import { writeBlocks } from '../../admin/block-layout.js';
import { dbOption, example, ioOf, withStore } from '../cli-context.js';

export function register(program: Command): void {
  dbOption(program.command('blocks').description('physical layout: each block with state, origin, slots, fill, φ, bytes and its chunks'))
    .option('--user <user>', 'only this user')
    .option('--released', 'also list released blocks')
    .option('--json', 'one JSON object per block (JSON Lines)')
    .addHelpText('after', example('akashic blocks --db ./memory --user alice'))
    .action(async (opts: { db: string; user?: string; released?: true; json?: true }, cmd: Command) => {
      await withStore(opts.db, { readOnly: true }, (store) =>
        writeBlocks(store, ioOf(cmd).stdout, {
          ...(opts.user === undefined ? {} : { userId: opts.user }),
          includeReleased: opts.released === true,
          json: opts.json === true,
        }),
      );
    });
}

import type { Command } from 'commander';
import { inspectStore } from '../../admin/inspect.js';
import { dbOption, example, ioOf, withStore } from '../cli-context.js';

export function register(program: Command): void {
  dbOption(program.command('inspect').description('readable summary: chunks, blocks, φ histogram, amplification, size, format'))
    .addHelpText('after', example('akashic inspect --db ./memory'))
    .action(async (opts: { db: string }, cmd: Command) => {
      await withStore(opts.db, { readOnly: true }, (store) => inspectStore(store, ioOf(cmd).stdout));
    });
}

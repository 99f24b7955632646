import type { Command } from 'commander';
import { verifyToSink } from '../../admin/verify-listing.js';
import { EXIT, dbOption, example, ioOf, setExitCode, withStore } from '../cli-context.js';
import { afterBar, progressBar } from '../progress.js';

export function register(program: Command): void {
  dbOption(program.command('verify').description('check every invariant; exit 0 when clean, 1 with one line per problem'))
    .addHelpText('after', example('akashic verify --db ./memory || echo damaged'))
    .action(async (opts: { db: string }, cmd: Command) => {
      const io = ioOf(cmd);
      const bar = progressBar(io, 'verify');
      try {
        const report = await withStore(opts.db, { readOnly: true }, (store) =>
          verifyToSink(store, afterBar(bar, io.stdout), { onProgress: (done, total) => bar.update(done, total) }),
        );
        if (!report.ok) setExitCode(cmd, EXIT.failure);
      } finally {
        bar.stop();
      }
    });
}

import type { Command } from 'commander';
import { runGcToSink } from '../../admin/gc-run.js';
import { dbOption, example, ioOf, parseFraction, parsePositiveInt, withStore } from '../cli-context.js';
import { afterBar, progressBar } from '../progress.js';

export function register(program: Command): void {
  dbOption(program.command('gc').description('run one GC pass now and print its report'))
    .option('--threshold <theta>', 'victims need φ ≥ theta, in (0, 1] (default: the store default)', parseFraction)
    .option('--max-blocks <n>', 'at most this many victim blocks', parsePositiveInt)
    .option('--json', 'print the GcReport as JSON')
    .addHelpText('after', example('akashic gc --db ./memory --threshold 0.5 --max-blocks 100'))
    .action(async (opts: { db: string; threshold?: number; maxBlocks?: number; json?: true }, cmd: Command) => {
      const io = ioOf(cmd);
      const bar = progressBar(io, 'gc');
      try {
        await withStore(opts.db, { readOnly: false }, (store) =>
          runGcToSink(store, afterBar(bar, io.stdout), {
            ...(opts.threshold === undefined ? {} : { threshold: opts.threshold }),
            ...(opts.maxBlocks === undefined ? {} : { maxBlocks: opts.maxBlocks }),
            json: opts.json === true,
            onProgress: (done, total) => bar.update(done, total),
          }),
        );
      } finally {
        bar.stop();
      }
    });
}

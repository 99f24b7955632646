import type { Command } from 'commander';
import { salvage } from '../../engine/salvage.js';
import { EXIT, example, ioOf, setExitCode } from '../cli-context.js';

export function register(program: Command): void {
  program
    .command('salvage')
    .description('copy every readable live chunk of a damaged database into a new one, and report what was skipped')
    .requiredOption('--from <dir>', 'the damaged database (only read)')
    .requiredOption('--to <dir>', 'the new database to create (must not exist or be empty)')
    .option('--recover-orphans', 'also copy records whose directory entry was lost (may bring back deleted chunks)')
    .addHelpText('after', example('akashic salvage --from ./memory --to ./memory-salvaged'))
    .action(async (opts: { from: string; to: string; recoverOrphans?: true }, cmd: Command) => {
      const io = ioOf(cmd);
      const report = await salvage(opts.from, opts.to, { recoverOrphans: opts.recoverOrphans === true });
      io.stdout.write(JSON.stringify(report, null, 2) + '\n');
      // Exit 1 when anything could not be copied: the new database is healthy but incomplete.
      if (!report.complete) setExitCode(cmd, EXIT.failure);
    });
}

import type { Command } from 'commander';
import { purgeToSink } from '../../admin/purge-run.js';
import { EXIT, dbOption, example, ioOf, setExitCode, withStore } from '../cli-context.js';

export function register(program: Command): void {
  dbOption(program.command('purge').description("erase a user (or one session) for good: records, history, indexes, active turns; then compact so no file keeps them"))
    .requiredOption('--user <id>', 'the user to erase')
    .option('--session <id>', 'erase only the given session of the user')
    .option('--dry-run', 'list what would be erased and change nothing')
    .option('--json', 'print { purge, verify } as JSON (with --dry-run: the chunks that would go)')
    .addHelpText('after', '\nExits 1, changing nothing, when the database holds nothing of the user (or session).')
    .addHelpText('after', example('akashic purge --db ./memory --user alice --dry-run'))
    .action(async (opts: { db: string; user: string; session?: string; json?: true; dryRun?: true }, cmd: Command) => {
      const io = ioOf(cmd);
      const dryRun = opts.dryRun === true;
      const r = await withStore(opts.db, { readOnly: dryRun }, (store) =>
        purgeToSink(store, io.stdout, { user: opts.user, ...(opts.session === undefined ? {} : { session: opts.session }), json: opts.json === true, dryRun }),
      );
      if (r.verify !== null && !r.verify.ok) setExitCode(cmd, EXIT.failure);
    });
}

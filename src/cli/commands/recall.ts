import { Option, type Command } from 'commander';
import { invalidArgument } from '../../errors.js';
import { CLI_SESSION, recallToSink } from '../../admin/recall-run.js';
import { dbOption, example, ioOf, parsePositiveInt, withStore } from '../cli-context.js';

export function register(program: Command): void {
  dbOption(program.command('recall').description('print what memory would put in a prompt for a question (read-only)'))
    .requiredOption('--user <id>', 'whose memory')
    .requiredOption('--query <text>', 'the question, as the agent would ask it')
    .option('--session <id>', `the session asking (its uncompacted turns are shown too)`, CLI_SESSION)
    .addOption(new Option('--scope <scope>', 'every session of the user, or only the asking one').choices(['user', 'session']).default('user'))
    .option('--top-p <n>', 'chunks SELECT may pick (default: the memory default)', parsePositiveInt)
    .option('--budget <tokens>', 'token budget of the memory text (default 1536)', parsePositiveInt)
    .option('--json', 'print the recall result as JSON')
    .addHelpText('after', example('akashic recall --db ./memory --user alice --query "Where does Alice live?"'))
    .action(
      async (
        opts: { db: string; user: string; query: string; session: string; scope: string; topP?: number; budget?: number; json?: true },
        cmd: Command,
      ) => {
        if (opts.query.trim() === '') throw invalidArgument('--query must not be empty');
        const scope = opts.scope === 'session' ? 'session' : 'user';
        await withStore(opts.db, { readOnly: true }, (store) =>
          recallToSink(store, ioOf(cmd).stdout, {
            user: opts.user,
            query: opts.query,
            session: opts.session,
            scope,
            ...(opts.topP === undefined ? {} : { topP: opts.topP }),
            ...(opts.budget === undefined ? {} : { memoryBudgetTokens: opts.budget }),
            json: opts.json === true,
          }),
        );
      },
    );
}

import type { Command } from 'commander';
import { dumpStore } from '../../admin/dump.js';
import { dbOption, example, ioOf, withStore } from '../cli-context.js';
import { progressBar } from '../progress.js';

export function register(program: Command): void {
  dbOption(program.command('dump').description('logical JSONL dump of the live chunks, their kept history and the active turns, from one consistent snapshot, to stdout'))
    .option('--user <user>', 'only this user')
    .option('--session <session>', 'only the given session')
    .option('--agent <agent>', 'only chunks and active turns of this agent')
    .option('--run <run>', 'only chunks and active turns of this run')
    .addHelpText('after', example('akashic dump --db ./memory --user alice --agent planner > alice-planner.jsonl'))
    .action(async (opts: { db: string; user?: string; session?: string; agent?: string; run?: string }, cmd: Command) => {
      const io = ioOf(cmd);
      const bar = progressBar(io, 'dump', { streamsToStdout: true });
      try {
        await withStore(opts.db, { readOnly: true }, (store) =>
          dumpStore(store, io.stdout, {
            ...(opts.user === undefined ? {} : { userId: opts.user }),
            ...(opts.session === undefined ? {} : { sessionId: opts.session }),
            ...(opts.agent === undefined ? {} : { agentId: opts.agent }),
            ...(opts.run === undefined ? {} : { runId: opts.run }),
            onProgress: (done, total) => bar.update(done, total),
          }),
        );
      } finally {
        bar.stop();
      }
    });
}

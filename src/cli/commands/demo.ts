import { existsSync, readdirSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { runDemo } from '../../lab/index.js';
import { destroyDatabase, refuseNonDirectory } from '../../admin/open-store.js';
import { example, ioOf, parsePositiveInt } from '../cli-context.js';
import { progressBar } from '../progress.js';

/** The default demo database: owned by the demo, recreated on every run (git-ignored). */
export const DEFAULT_DEMO_DB = '.akashic-demo';

export function register(program: Command): void {
  program
    .command('demo')
    .description('run the main job on the embedded default: ingest a multi-session workload, recall, relocate, GC, print layout figures')
    .option('--db <dir>', `database directory to create (default ${DEFAULT_DEMO_DB}, recreated each run)`)
    .option('--force', 'replace the database in an existing --db directory (never one that is open elsewhere)')
    .option('--users <n>', 'synthetic users', parsePositiveInt, 3)
    .option('--sessions <n>', 'sessions per user', parsePositiveInt, 60)
    .option('--json', 'print the full report as JSON after the summary')
    .addHelpText('after', example('akashic demo --db ./demo-db'))
    .action(async (opts: { db?: string; force?: true; users: number; sessions: number; json?: true }, cmd: Command) => {
      const io = ioOf(cmd);
      const path = opts.db ?? DEFAULT_DEMO_DB;
      await refuseNonDirectory(path);
      if (existsSync(path) && statSync(path).isDirectory() && readdirSync(path).length > 0) {
        if (opts.db !== undefined && opts.force !== true) {
          throw Object.assign(new Error(`${path} exists and is not empty; pass --force to replace it`), { code: 'AKASHIC_DEMO_EXISTS' });
        }
        // Respects the lock: a database open elsewhere is never deleted (exit 3).
        await destroyDatabase(path);
      }
      // On a terminal, a progress bar (stderr) under the line of the running step; piped, just the lines.
      let bar = progressBar(io, 'demo');
      const sink = (line: string): void => {
        bar.stop();
        bar = progressBar(io, 'demo');
        io.stdout.write(line + '\n');
      };
      let report;
      try {
        report = await runDemo({ path, users: opts.users, sessionsPerUser: opts.sessions, onProgress: (d, t) => bar.update(d, t) }, sink);
      } finally {
        bar.stop();
      }
      if (opts.json === true) io.stdout.write(JSON.stringify(report, null, 2) + '\n');
    });
}

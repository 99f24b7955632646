import type { Command } from 'commander';
import { lineWriter } from '../../util/line-sink.js';
import { loadDump, spoolToTempFile } from '../../admin/load.js';
import { openStoreForTool } from '../../admin/open-store.js';
import { EXIT, dbOption, example, ioOf, setExitCode } from '../cli-context.js';
import { progressBar } from '../progress.js';

export function register(program: Command): void {
  dbOption(program.command('load').description('restore a dump (validates every line first; applies nothing if any is bad)'))
    .argument('[file]', "dump file, or '-' for stdin", '-')
    .addHelpText('after', example('akashic load --db ./restored alice.jsonl'))
    .action(async (file: string, opts: { db: string }, cmd: Command) => {
      const io = ioOf(cmd);
      const spooled = file === '-' ? await spoolToTempFile(io.stdin) : null;
      const path = spooled?.path ?? file;
      const bar = progressBar(io, 'load');
      try {
        let total = 0;
        const { validation, result } = await loadDump(path, () => openStoreForTool(opts.db, { create: true }), {
          onValidated: (v) => {
            total = v.chunks;
            bar.update(0, total);
          },
          onProgress: (done) => bar.update(done, total),
        });
        bar.stop();
        if (result === null) {
          const err = lineWriter(io.stderr);
          for (const p of validation.problems) await err.line(`line ${p.line}: ${p.reason}`);
          const more = validation.problemCount - validation.problems.length;
          if (more > 0) await err.line(`… and ${more} more bad lines`);
          await err.line(`akashic: ${file === '-' ? 'stdin' : file}: ${validation.problemCount} bad line${validation.problemCount === 1 ? '' : 's'}; nothing was loaded`);
          setExitCode(cmd, EXIT.failure);
          return;
        }
        await lineWriter(io.stdout).line(`loaded ${result.chunks} chunks: ${result.restored} restored, ${result.skipped} already present${result.versions > 0 ? `; ${result.versions} history versions` : ''}${result.turns + result.turnsSkipped > 0 ? `; ${result.turns + result.turnsSkipped} active turns: ${result.turns} appended, ${result.turnsSkipped} already present` : ''}`);
      } finally {
        bar.stop();
        await spooled?.cleanup();
      }
    });
}

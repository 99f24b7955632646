import type { Command } from 'commander';
import { salvage, type SalvageReport } from '../../engine/salvage.js';
import { EXIT, example, ioOf, setExitCode } from '../cli-context.js';

export function register(program: Command): void {
  program
    .command('salvage')
    .description('copy every readable live chunk of a damaged database into a new one, and report what was skipped')
    .requiredOption('--from <dir>', 'the damaged database (only read)')
    .requiredOption('--to <dir>', 'the new database to create (must not exist or be empty)')
    .option('--recover-orphans', 'also copy records whose directory entry was lost (may bring back deleted chunks)')
    .option('--json', 'print the SalvageReport as JSON')
    .addHelpText('after', example('akashic salvage --from ./memory --to ./memory-salvaged'))
    .action(async (opts: { from: string; to: string; recoverOrphans?: true; json?: true }, cmd: Command) => {
      const io = ioOf(cmd);
      const report = await salvage(opts.from, opts.to, { recoverOrphans: opts.recoverOrphans === true });
      io.stdout.write(opts.json === true ? JSON.stringify(report, null, 2) + '\n' : salvageText(report, opts.to));
      // Exit 1 when anything could not be copied: the new database is healthy but incomplete.
      if (!report.complete) setExitCode(cmd, EXIT.failure);
    });
}

/** The report as text, like every other command's default output. */
export function salvageText(r: SalvageReport, to: string): string {
  const lines = [
    `copied: ${r.copied} live chunks, ${r.activeTurns} active turns into ${to}`,
    `deleted chunks seen (not copied): ${r.deleted}`,
    `skipped: ${r.skippedCount}`,
    ...r.skipped.map((s) => `  ${s.key}: ${s.reason}`),
    ...(r.skippedCount > r.skipped.length ? [`  … and ${r.skippedCount - r.skipped.length} more`] : []),
    `orphan records: ${r.orphans} (${r.orphansCopied} copied)`,
    ...r.storageErrors.map((e) => `storage error: ${e}`),
    ...(r.repairedLevelDb ? ['the source could not be opened as is: a repaired copy of it was salvaged (the source was not changed)'] : []),
    r.complete ? 'complete: everything readable was copied' : 'incomplete: the new database is healthy but lacks what is listed above',
  ];
  return lines.join('\n') + '\n';
}

import { Option, type Command } from 'commander';
import { runRecallEval, type RecallEvalSource } from '../../eval/run-recall-eval.js';
import { DEFAULT_CHUNK_GATE_TOKENS, DEFAULT_MEMORY_BUDGET_TOKENS, DEFAULT_RECALL_TOP_P } from '../../memattention/options.js';
import { DEFAULT_KEYWORD_LIMIT } from '../../model/keywords.js';
import { LOCOMO_HELP, example, ioOf, parsePositiveInt } from '../cli-context.js';
import { afterBar, progressBar } from '../progress.js';

interface RecallFlags {
  locomo?: string;
  synthetic?: true;
  users?: number;
  seed?: number;
  topP?: number;
  budget?: number;
  gate?: number;
  keywords?: number;
  unit?: 'passage' | 'chunk';
  json?: true;
}

export function register(program: Command): void {
  const evalCmd = program
    .command('eval')
    .description('measure the memory layer (recall quality)')
    .addHelpText('after', example('akashic eval recall --locomo ./locomo10.json --json') + LOCOMO_HELP);
  evalCmd
    .command('recall')
    .description('evidence recall of MemAttention recall (embedded model) vs BM25 over raw turns at the same token budget')
    .addOption(new Option('--locomo <path>', 'LoCoMo .json file or folder of them, read in place'))
    .addOption(new Option('--synthetic', 'use the synthetic generator (the default when --locomo is not given)').conflicts('locomo'))
    .addOption(new Option('--users <n>', 'synthetic: conversations (default: generator default)').argParser(parsePositiveInt).conflicts('locomo'))
    .addOption(new Option('--seed <n>', 'synthetic: seed (default: generator default)').argParser(parsePositiveInt).conflicts('locomo'))
    .option('--top-p <n>', `chunks recall may select, recallTopP (default: ${DEFAULT_RECALL_TOP_P})`, parsePositiveInt)
    .option('--budget <tokens>', `memory token budget of recall and baseline (default: ${DEFAULT_MEMORY_BUDGET_TOKENS})`, parsePositiveInt)
    .option('--gate <tokens>', `chunk gate τ_c (default: ${DEFAULT_CHUNK_GATE_TOKENS})`, parsePositiveInt)
    .option('--keywords <n>', `keywords per chunk of the embedded model (default: ${DEFAULT_KEYWORD_LIMIT})`, parsePositiveInt)
    .addOption(new Option('--unit <unit>', 'what recall fills its budget with (default: passage)').choices(['passage', 'chunk']))
    .option('--json', 'print the report as one JSON object')
    .addHelpText('after', example('akashic eval recall --locomo ./locomo10.json --json') + LOCOMO_HELP)
    .action(async (opts: RecallFlags, cmd: Command) => {
      const io = ioOf(cmd);
      const source: RecallEvalSource =
        opts.locomo !== undefined
          ? { kind: 'locomo', path: opts.locomo }
          : {
              kind: 'synthetic',
              options: { ...(opts.users === undefined ? {} : { users: opts.users }), ...(opts.seed === undefined ? {} : { seed: opts.seed }) },
            };
      const bar = progressBar(io, 'eval recall');
      try {
        await runRecallEval(source, afterBar(bar, io.stdout), {
          ...(opts.topP === undefined ? {} : { topP: opts.topP }),
          ...(opts.budget === undefined ? {} : { memoryBudgetTokens: opts.budget }),
          ...(opts.gate === undefined ? {} : { chunkGateTokens: opts.gate }),
          ...(opts.keywords === undefined ? {} : { keywordLimit: opts.keywords }),
          ...(opts.unit === undefined ? {} : { recallUnit: opts.unit }),
          json: opts.json === true,
          onProgress: (done, total) => bar.update(done, total),
        });
      } finally {
        bar.stop();
      }
    });
}

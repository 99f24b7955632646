import { InvalidArgumentError, Option, type Command } from 'commander';
import { runRecallEval, type RecallEvalSource, runQaEval, runUpdateEval, loadScenarioPhrasings, SYNTHETIC_STYLES, type SyntheticStyle } from '../../lab/index.js';
import { DEFAULT_CHUNK_GATE_TOKENS, DEFAULT_MEMORY_BUDGET_TOKENS, DEFAULT_RECALL_TOP_P, DEFAULT_RELEVANCE_FLOOR } from '../../memattention/options.js';
import { DEFAULT_KEYWORD_LIMIT } from '../../model/keywords.js';
import { SELECT_VARIANTS, type SelectVariant } from '../../model/select-variants.js';
import { LOCOMO_HELP, example, ioOf, parsePositiveInt } from '../cli-context.js';
import { afterBar, progressBar } from '../progress.js';

interface RecallFlags {
  locomo?: string;
  synthetic?: true;
  users?: number;
  seed?: number;
  style?: SyntheticStyle;
  topP?: number;
  budget?: number;
  gate?: number;
  keywords?: number;
  unit?: 'sentence' | 'passage' | 'chunk';
  floor?: number;
  select?: SelectVariant;
  json?: true;
}

interface QaFlags extends RecallFlags {
  baseUrl: string;
  model: string;
  apiKey?: string;
  limit?: number;
  timeoutMs?: number;
}

/** Parses a share in [0, 1] (commander's argParser). */
function parseShare(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a number in [0, 1]');
  return n;
}

function sourceOf(opts: RecallFlags): RecallEvalSource {
  return opts.locomo !== undefined
    ? { kind: 'locomo', path: opts.locomo }
    : {
        kind: 'synthetic',
        options: {
          ...(opts.users === undefined ? {} : { users: opts.users }),
          ...(opts.seed === undefined ? {} : { seed: opts.seed }),
          ...(opts.style === undefined ? {} : { style: opts.style }),
        },
      };
}

function recallSettings(opts: RecallFlags): {
  topP?: number;
  memoryBudgetTokens?: number;
  chunkGateTokens?: number;
  keywordLimit?: number;
  recallUnit?: 'sentence' | 'passage' | 'chunk';
  relevanceFloor?: number;
  select?: SelectVariant;
} {
  return {
    ...(opts.topP === undefined ? {} : { topP: opts.topP }),
    ...(opts.budget === undefined ? {} : { memoryBudgetTokens: opts.budget }),
    ...(opts.gate === undefined ? {} : { chunkGateTokens: opts.gate }),
    ...(opts.keywords === undefined ? {} : { keywordLimit: opts.keywords }),
    ...(opts.unit === undefined ? {} : { recallUnit: opts.unit }),
    ...(opts.floor === undefined ? {} : { relevanceFloor: opts.floor }),
    ...(opts.select === undefined ? {} : { select: opts.select }),
  };
}

export function register(program: Command): void {
  const evalCmd = program
    .command('eval')
    .description('measure the memory layer (recall quality, question answering)')
    .addHelpText('after', example('akashic eval recall --locomo ./locomo10.json --json') + LOCOMO_HELP);
  evalCmd
    .command('recall')
    .description('evidence recall of MemAttention recall (embedded model) vs BM25 over raw turns at the same token budget')
    .addOption(new Option('--locomo <path>', 'LoCoMo .json file or folder of them, read in place'))
    .addOption(new Option('--synthetic', 'use the synthetic generator (the default when --locomo is not given)').conflicts('locomo'))
    .addOption(new Option('--users <n>', 'synthetic: conversations (default: generator default)').argParser(parsePositiveInt).conflicts('locomo'))
    .addOption(new Option('--seed <n>', 'synthetic: seed (default: generator default)').argParser(parsePositiveInt).conflicts('locomo'))
    .addOption(
      new Option('--style <style>', "synthetic: who speaks and how: two friends chatting, a person and a tool-using assistant, one person's diary, or a group chat of three to five friends (default: chat)")
        .choices(SYNTHETIC_STYLES)
        .conflicts('locomo'),
    )
    .option('--top-p <n>', `chunks recall may select, recallTopP (default: ${DEFAULT_RECALL_TOP_P})`, parsePositiveInt)
    .option('--budget <tokens>', `memory token budget of recall and baseline (default: ${DEFAULT_MEMORY_BUDGET_TOKENS})`, parsePositiveInt)
    .option('--gate <tokens>', `chunk gate τ_c (default: ${DEFAULT_CHUNK_GATE_TOKENS})`, parsePositiveInt)
    .option('--keywords <n>', `keywords per chunk of the embedded model (default: ${DEFAULT_KEYWORD_LIMIT})`, parsePositiveInt)
    .addOption(new Option('--unit <unit>', 'what recall fills its budget with: sentences, whole turns or whole chunks (default: sentence)').choices(['sentence', 'passage', 'chunk']))
    .option('--floor <share>', `relevance floor of recall, in [0, 1]: passages scoring below this share of the best are left out (default: ${DEFAULT_RELEVANCE_FLOOR})`, parseShare)
    .addOption(
      new Option(
        '--select <variant>',
        "SELECT of recall: 'lexical' (default, the embedded model), 'hybrid' (plus an offline word-vector embedder, fused with BM25), 'dense' (experiment: the embedder's ranking alone)",
      ).choices(SELECT_VARIANTS),
    )
    .option('--json', 'print the report as one JSON object')
    .addHelpText('after', example('akashic eval recall --locomo ./locomo10.json --json') + LOCOMO_HELP)
    .action(async (opts: RecallFlags, cmd: Command) => {
      const io = ioOf(cmd);
      const bar = progressBar(io, 'eval recall');
      try {
        await runRecallEval(sourceOf(opts), afterBar(bar, io.stdout), {
          ...recallSettings(opts),
          json: opts.json === true,
          onProgress: (done, total) => bar.update(done, total),
        });
      } finally {
        bar.stop();
      }
    });
  evalCmd
    .command('updates')
    .description('facts that change: seeded scenarios of updates (new job, city, car, partner) and look-alike controls, replayed through MemAttention at the defaults')
    .option('--seed <n...>', 'seeds of the scenario sets (default: 1)', (v: string, prev: number[] | undefined) => [...(prev ?? []), parsePositiveInt(v)])
    .option(
      '--phrasings <file>',
      'JSON file of phrasings to draw from instead of the built-in ones, per fact (employer, home, car, partner): lists stated, updated, otherPerson, addition, hedge, past, unrelated and questions of templates with {v} (the value), {who} (a relative) and {name} (the person)',
    )
    .option('--json', 'print the report as one JSON object (with every scenario)')
    .addHelpText('after', example('akashic eval updates --seed 101 --seed 102 --json') + '\n' + example('akashic eval updates --phrasings ./my-phrasings.json --seed 7'))
    .action(async (opts: { seed?: number[]; phrasings?: string; json?: true }, cmd: Command) => {
      const io = ioOf(cmd);
      const phrasings = opts.phrasings === undefined ? undefined : await loadScenarioPhrasings(opts.phrasings);
      await runUpdateEval(io.stdout, { ...(opts.seed === undefined ? {} : { seeds: opts.seed }), ...(phrasings === undefined ? {} : { phrasings }), json: opts.json === true });
    });
  evalCmd
    .command('qa')
    .description("LoCoMo question answering: a chat model answers each question from MemAttention's recall and from BM25 over raw turns at the same budget; token F1 against the gold answers")
    .requiredOption('--base-url <url>', 'OpenAI-compatible server of the chat model, e.g. http://127.0.0.1:8000/v1 (vLLM) or http://127.0.0.1:11434/v1 (Ollama)')
    .requiredOption('--model <name>', 'chat model name as the server knows it')
    .option('--api-key <key>', 'API key (default: env OPENAI_API_KEY; local servers need none)')
    .addOption(new Option('--locomo <path>', 'LoCoMo .json file or folder of them, read in place'))
    .addOption(new Option('--synthetic', 'use the synthetic generator (the default when --locomo is not given)').conflicts('locomo'))
    .addOption(new Option('--users <n>', 'synthetic: conversations (default: generator default)').argParser(parsePositiveInt).conflicts('locomo'))
    .addOption(new Option('--seed <n>', 'synthetic: seed (default: generator default)').argParser(parsePositiveInt).conflicts('locomo'))
    .addOption(
      new Option('--style <style>', "synthetic: who speaks and how: two friends chatting, a person and a tool-using assistant, one person's diary, or a group chat of three to five friends (default: chat)")
        .choices(SYNTHETIC_STYLES)
        .conflicts('locomo'),
    )
    .option('--limit <n>', 'answer only the first n questions (in replay order)', parsePositiveInt)
    .option('--top-p <n>', `chunks recall may select, recallTopP (default: ${DEFAULT_RECALL_TOP_P})`, parsePositiveInt)
    .option('--budget <tokens>', `token budget of both contexts (default: ${DEFAULT_MEMORY_BUDGET_TOKENS})`, parsePositiveInt)
    .option('--gate <tokens>', `chunk gate τ_c (default: ${DEFAULT_CHUNK_GATE_TOKENS})`, parsePositiveInt)
    .option('--timeout-ms <ms>', 'per-request timeout of the chat model (default: 30000)', parsePositiveInt)
    .option('--json', 'print the report as one JSON object (with every answer)')
    .addHelpText('after', example('akashic eval qa --locomo ./locomo10.json --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct --limit 200 --json') + LOCOMO_HELP)
    .action(async (opts: QaFlags, cmd: Command) => {
      const io = ioOf(cmd);
      const bar = progressBar(io, 'eval qa');
      try {
        await runQaEval(sourceOf(opts), afterBar(bar, io.stdout), {
          ...recallSettings(opts),
          reader: {
            baseURL: opts.baseUrl,
            model: opts.model,
            ...(opts.apiKey === undefined ? {} : { apiKey: opts.apiKey }),
            ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
          },
          ...(opts.limit === undefined ? {} : { limit: opts.limit }),
          json: opts.json === true,
          onProgress: (done, total) => bar.update(done, total),
        });
      } finally {
        bar.stop();
      }
    });
}

/**
 * The code blocks of the user-facing documents, extracted as written, and a runner that executes a TypeScript
 * block the way a user would paste it into an ES module: transpiled (types erased, nothing else changed), with
 * `akashic` resolving to this package (self-reference through its `exports`, i.e. the built dist) and the other
 * imports to this repository's node_modules, in a fresh working directory.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface CodeBlock {
  readonly file: string;
  readonly lang: string;
  readonly code: string;
  /** The heading the block sits under. */
  readonly heading: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** Why the block must not run (`<!-- not-run: why -->` right above it), or null. */
  readonly notRun: string | null;
  /** Marked `<!-- setup -->`: the frame the document's later examples run inside (see `withSetup`). */
  readonly setup: boolean;
}

/** Every fenced code block of `file` (relative to the repository root). */
export async function codeBlocks(file: string): Promise<CodeBlock[]> {
  const text = await readFile(join(ROOT, file), 'utf8');
  const out: CodeBlock[] = [];
  let heading = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#+ /.test(line)) heading = line.replace(/^#+ /, '');
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence === null) continue;
    const start = i;
    let above = start - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    const marker = above >= 0 ? /^<!--\s*(not-run:\s*(.*?)|setup)\s*-->$/.exec(lines[above]!.trim()) : null;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    out.push({
      file,
      lang: fence[1]!,
      code: body.join('\n') + '\n',
      heading,
      line: start + 1,
      notRun: marker?.[2] !== undefined ? marker[2] : null,
      setup: marker?.[1] === 'setup',
    });
  }
  return out;
}

/**
 * An example placed inside its document's setup block: the setup's line `// … the example …` is replaced by the
 * example's code, so the result is a whole module (imports may sit anywhere at the top level of a module).
 */
export function withSetup(setup: CodeBlock, example: CodeBlock): string {
  const lines = setup.code.split('\n');
  const at = lines.findIndex((l) => /^\s*\/\/ … the example …\s*$/.test(l));
  if (at < 0) throw new Error(`${setup.file}:${setup.line}: the setup block has no "// … the example …" line`);
  return [...lines.slice(0, at), example.code.trimEnd(), ...lines.slice(at + 1)].join('\n');
}

/**
 * What a block says it prints: every `// → text` comment, in order (one printed line each). Empty when the block
 * states no output.
 */
export function statedOutput(code: string): string[] {
  return [...code.matchAll(/\/\/ → (.*)$/gm)].map((m) => m[1]!.trimEnd());
}

export interface SnippetRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The working directory it ran in (removed by `dispose`). */
  readonly cwd: string;
}

/** Runs a TypeScript block as an ES module in a fresh directory. */
export async function runSnippet(code: string, env: Record<string, string> = {}): Promise<SnippetRun & { dispose: () => Promise<void> }> {
  const js = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false } }).outputText;
  // Inside the package (git-ignored), so `akashic` self-resolves and the dev dependencies are found.
  const holder = join(ROOT, '.akashic-snippets');
  await mkdir(holder, { recursive: true });
  const file = join(holder, `snippet-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(file, js);
  const cwd = await mkdtemp(join(tmpdir(), 'akashic-snippet-'));
  const result = await new Promise<SnippetRun>((done) => {
    execFile(process.execPath, [file], { cwd, env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr, cwd });
    });
  });
  await rm(file, { force: true });
  return { ...result, dispose: () => rm(cwd, { recursive: true, force: true }) };
}

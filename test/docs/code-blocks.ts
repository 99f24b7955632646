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
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    out.push({ file, lang: fence[1]!, code: body.join('\n') + '\n', heading });
  }
  return out;
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

/**
 * Every code block of README.md and docs/*.md, run as written against a fresh directory, with its visible outcome
 * checked. A block nobody checks fails the test, so a new block needs a check here, or the stated output its
 * examples print (`// → …`), or a `<!-- not-run: why -->` mark (then its commands' options are still checked
 * against the CLI's help, and TypeScript blocks must still parse).
 */
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedChatServer, type ScriptedChatServer } from '../model/scripted-chat-server.js';
import { conceptVector, startScriptedEmbeddingsServer } from '../model/scripted-embeddings-server.js';
import { ROOT, codeBlocks, runSnippet, statedOutput, withSetup, type CodeBlock, type SnippetRun } from './code-blocks.js';

type Check = (run: SnippetRun) => void | Promise<void>;

const DOCS = ['README.md', ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const blocks = (await Promise.all(DOCS.map((f) => codeBlocks(f)))).flat();
const ran = new Set<CodeBlock>();

function block(file: string, heading: string, lang = 'ts'): CodeBlock {
  const found = blocks.filter((b) => b.file === file && b.heading === heading && b.lang === lang);
  if (found.length !== 1) throw new Error(`${file}: expected one ${lang} block under "${heading}", found ${found.length}`);
  ran.add(found[0]!);
  return found[0]!;
}

async function runAndCheck(b: CodeBlock, check: Check, env: Record<string, string> = {}): Promise<void> {
  const r = await runSnippet(b.code, env);
  try {
    expect(r.stderr, `${b.file} / ${b.heading}`).toBe('');
    expect(r.code).toBe(0);
    await check(r);
  } finally {
    await r.dispose();
  }
}

describe('README.md', () => {
  it('the two commands exist as written', async () => {
    const sh = block('README.md', 'Two commands', 'sh');
    expect(sh.code).toMatch(/^npm install && npx akashic demo\s/m);
    expect(sh.code).toMatch(/^npm test\s/m);
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.bin['akashic']).toBe('bin/akashic.js');
    expect(pkg.scripts['test']).toContain('vitest run');
    // `npx akashic demo` itself: see the demo test in test/cli/demo-output.slow.test.ts.
  });

  it('the library snippet stores, compacts and recalls', async () => {
    await runAndCheck(block('README.md', 'Using it as a library'), (r) => {
      const m = /^([^]*) (\d+)\n$/.exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      // The recalled memory names the city, read from at least one block.
      expect(m![1]).toContain('Lisbon');
      expect(Number(m![2])).toBeGreaterThanOrEqual(1);
    });
  });
});

describe('README.md with a model server', () => {
  it('the embedder snippet stores vectors and recalls the pet', async () => {
    // nomic-embed-text's 768 dimensions, from a scripted /v1/embeddings server on 127.0.0.1.
    const server = await startScriptedEmbeddingsServer((t) => [...conceptVector(t), ...new Array<number>(768 - conceptVector(t).length).fill(0)]);
    try {
      await runAndCheck(
        block('README.md', 'With a model server: embeddings and chat'),
        (r) => {
          expect(r.stdout).toContain('user: I adopted a puppy from the shelter.');
        },
        { OPENAI_BASE_URL: server.baseURL },
      );
      expect(server.requests.length).toBeGreaterThanOrEqual(2); // the chunk at compaction, the query at recall
      expect(server.requests.every((q) => q.model === 'nomic-embed-text')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('docs/adapters.md', () => {
  let server: ScriptedChatServer;
  beforeAll(async () => {
    server = await startScriptedChatServer();
  });
  afterAll(async () => server.close());

  it('LangGraph store', async () => {
    await runAndCheck(block('docs/adapters.md', 'LangGraph store (long-term memory)'), (r) => {
      expect(r.stdout).toBe("Alice drinks green tea m1 [ [ 'alice', 'memories' ] ]\n");
    });
  });

  it('LangGraph checkpointer', async () => {
    await runAndCheck(block('docs/adapters.md', 'LangGraph checkpointer'), (r) => {
      expect(r.stdout).toBe("[ 'hi', 'echo: hi' ]\n");
    });
  });

  it('AI SDK memory middleware: the second conversation gets the first one as memory', async () => {
    server.reset();
    server.enqueue({ kind: 'content', content: 'Congratulations on the move!' }, { kind: 'content', content: 'You said you moved to Lisbon.' });
    await runAndCheck(
      block('docs/adapters.md', 'AI SDK memory middleware'),
      (r) => {
        expect(r.stdout).toBe('You said you moved to Lisbon.\n');
        expect(server.requests.map((q) => q.url)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
        const second = server.requests[1]!.body.messages!;
        expect(second[0]!.role).toBe('system');
        expect(second[0]!.content).toContain('Lisbon');
        expect(second.at(-1)).toEqual({ role: 'user', content: 'Where did I say I moved?' });
      },
      { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test-key' },
    );
  });

  it('LangChain chat history', async () => {
    await runAndCheck(block('docs/adapters.md', 'LangChain chat history'), (r) => {
      expect(r.stdout).toBe("[ 'I moved to Berlin.', 'Noted!' ]\ntrue\n");
    });
  });

});

describe('docs/api.md: every example prints what it says', () => {
  const file = 'docs/api.md';
  const setups = blocks.filter((b) => b.file === file && b.setup);
  const examples = blocks.filter((b) => b.file === file && !b.setup && b.notRun === null && b.lang === 'ts');

  it('has one setup block and an example for every call', () => {
    expect(setups.length).toBe(1);
    expect(examples.length).toBeGreaterThanOrEqual(25);
    ran.add(setups[0]!);
  });

  it.each(examples.map((b) => [`${b.heading} (line ${b.line})`, b] as const))('%s', async (_name, b) => {
    ran.add(b);
    const stated = statedOutput(b.code);
    expect(stated.length, `${file}:${b.line} states no output`).toBeGreaterThan(0);
    const r = await runSnippet(withSetup(setups[0]!, b));
    try {
      expect(r.stderr, `${file}:${b.line}`).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n'), `${file}:${b.line}`).toEqual(stated);
    } finally {
      await r.dispose();
    }
  });
});

describe('docs/reliability.md', () => {
  it('the salvage example copies the chunk it stored', async () => {
    const b = block('docs/reliability.md', 'Salvage');
    const r = await runSnippet(b.code);
    try {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toEqual(statedOutput(b.code));
    } finally {
      await r.dispose();
    }
  });
});

const helpCache = new Map<string, Promise<string>>();
function help(words: readonly string[]): Promise<string> {
  const key = words.join(' ');
  let h = helpCache.get(key);
  if (h === undefined) {
    h = new Promise((done, fail) => {
      execFile(process.execPath, [join(ROOT, 'bin/akashic.js'), ...words, '--help'], { cwd: ROOT, timeout: 60_000 }, (err, stdout) =>
        err === null ? done(stdout) : fail(err),
      );
    });
    helpCache.set(key, h);
  }
  return h;
}

/** `npx akashic …` commands of a shell block, continuation lines joined, comments dropped. */
function akashicCommands(code: string): string[][] {
  const joined = code.replace(/\\\n\s*/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.replace(/\s#.*$/, '').trim())
    .filter((l) => /^npx akashic\b/.test(l))
    .map((l) => l.replace(/[[\]]/g, ' ').split(/\s+/).slice(2));
}

describe('blocks marked not-run', () => {
  const marked = blocks.filter((b) => b.notRun !== null);

  it('each says why', () => {
    expect(marked.length).toBeGreaterThan(0);
    for (const b of marked) expect(b.notRun!.length, `${b.file}:${b.line}`).toBeGreaterThan(5);
  });

  it.each(marked.filter((b) => b.lang === 'sh').map((b) => [`${b.file}:${b.line}`, b] as const))(
    '%s: every akashic command and option exists',
    async (_name, b) => {
      ran.add(b);
      for (const words of akashicCommands(b.code)) {
        const end = words.findIndex((w) => w.startsWith('-') || w.startsWith('<') || w.includes('/'));
        const sub = end < 0 ? words : words.slice(0, end);
        const text = await help(sub);
        for (const opt of words.filter((w) => w.startsWith('--'))) {
          expect(text, `${b.file}:${b.line}: ${opt} of "akashic ${sub.join(' ')}"`).toContain(opt.replace(/=.*$/, ''));
        }
      }
    },
  );

  it.each(marked.filter((b) => b.lang === 'ts').map((b) => [`${b.file}:${b.line}`, b] as const))('%s: parses as TypeScript', (_name, b) => {
    ran.add(b);
    const out = ts.transpileModule(b.code, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    expect(out.diagnostics ?? []).toEqual([]);
  });
});

describe('every block', () => {
  it('of README.md and docs/*.md is checked by one of the tests above', () => {
    const unchecked = blocks.filter((b) => !ran.has(b) && b.lang !== '');
    expect(unchecked.map((b) => `${b.file}:${b.line} / ${b.heading} (${b.lang})`)).toEqual([]);
  });
});

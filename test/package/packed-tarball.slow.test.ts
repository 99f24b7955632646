/**
 * The package as a user gets it: `npm pack`, then install the tarball into a fresh project offline (dependencies
 * come from the npm cache that `npm ci` filled; nothing is fetched), import every entry point as ESM, and
 * type-check a consumer under NodeNext, Bundler and node10 module resolution.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerLock, type Lock } from './consumer-lock.js';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string; peerDependencies: Record<string, string>; devDependencies: Record<string, string> };

/** Every entry point and the names it must export. */
const ENTRIES: Record<string, string[]> = {
  akashic: ['AkashicStore', 'AkashicMemory', 'AkashicError', 'EmbeddedModel', 'OpenAIChatModel'],
  'akashic/langgraph': ['AkashicSaver', 'AkashicLangGraphStore'],
  'akashic/ai-sdk': ['akashicMemory'],
  'akashic/langchain': ['AkashicChatMessageHistory'],
  'akashic/lab': ['generateSynthetic', 'loadLocomo', 'runBench', 'evaluateRecall', 'replayConversation'],
};

const CONSUMER = `import { AkashicStore, AkashicMemory, type RecallResult } from 'akashic';
import { AkashicSaver, AkashicLangGraphStore } from 'akashic/langgraph';
import { akashicMemory } from 'akashic/ai-sdk';
import { AkashicChatMessageHistory } from 'akashic/langchain';
import { generateSynthetic } from 'akashic/lab';

export async function use(): Promise<RecallResult> {
  const store = await AkashicStore.open({ path: './memory' });
  const memory = new AkashicMemory(store);
  const middleware = akashicMemory({ memory });
  const saver = new AkashicSaver({ store });
  const lg = new AkashicLangGraphStore({ store });
  const history = new AkashicChatMessageHistory({ store, userId: 'u', sessionId: 's' });
  void [middleware, saver, lg, history, generateSynthetic];
  return memory.recall({ user: 'u', session: 's', query: 'q' });
}
`;

describe('the packed tarball, installed offline into a fresh project', () => {
  let work: string;
  let project: string;
  let files: string[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'akashic-pack-'));
    // The build is npm test's first step; packing again would only repeat it.
    const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, maxBuffer: 64 << 20 });
    const info = JSON.parse(packed.stdout) as { filename: string; integrity: string; files: { path: string }[] }[];
    files = info[0]!.files.map((f) => f.path);
    project = join(work, 'consumer');
    await mkdir(project);
    const extra = Object.fromEntries(['ai', '@langchain/core', '@langchain/langgraph-checkpoint'].map((p) => [p, pkg.peerDependencies[p]!]));
    extra['@types/node'] = pkg.devDependencies['@types/node']!;
    const repoLock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Lock['packages'][string] & { name: string };
    const { packageJson, lock } = consumerLock(repoLock, { file: `../${info[0]!.filename}`, integrity: info[0]!.integrity, manifest }, extra);
    await writeFile(join(project, 'package.json'), JSON.stringify(packageJson, null, 2));
    await writeFile(join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
    // Offline: every package comes from the npm cache by its integrity; install scripts are not needed (the
    // native modules ship prebuilt binaries).
    await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project, maxBuffer: 64 << 20, timeout: 600_000 });
  }, 900_000);

  afterAll(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('ships the library, its types, the CLI, a LICENSE, and no sources, source maps, tests or tools', async () => {
    expect(files).toContain('LICENSE');
    expect(files).toContain('bin/akashic.js');
    expect(files).toContain('dist/src/index.js');
    expect(files).toContain('dist/src/index.d.ts');
    expect(files.filter((f) => f.startsWith('dist/test/') || f.startsWith('dist/tools/') || f.startsWith('test/') || f.startsWith('src/'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // No shipped module points at a source map that is not there.
    const index = await readFile(join(project, 'node_modules', 'akashic', 'dist', 'src', 'index.js'), 'utf8');
    expect(index).not.toContain('sourceMappingURL');
  });

  it('installs none of the optional service packages (hono, the MCP SDK, prom-client, ioredis)', () => {
    for (const p of ['hono', '@hono/node-server', '@hono/zod-openapi', '@modelcontextprotocol/sdk', 'prom-client', 'ioredis']) {
      expect(existsSync(join(project, 'node_modules', ...p.split('/'))), p).toBe(false);
    }
  });

  it('without them, serve, mcp and a Redis URL fail with AKASHIC_MISSING_PACKAGE naming the install command', async () => {
    const cli = join(project, 'node_modules', 'akashic', 'bin', 'akashic.js');
    const serve = await run(process.execPath, [cli, 'serve', '--db', join(work, 'served'), '--port', '0'], { cwd: project }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toContain('AKASHIC_MISSING_PACKAGE');
    expect(serve.stderr).toContain('npm install hono@');
    expect(existsSync(join(work, 'served'))).toBe(false);
    const mcp = await run(process.execPath, [cli, 'mcp', '--db', join(work, 'mcp-db')], { cwd: project }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(mcp.code).not.toBe(0);
    expect(mcp.stderr).toContain('npm install @modelcontextprotocol/sdk@');
    const script = `import { AkashicStore } from 'akashic';
      try { await AkashicStore.open({ url: 'redis://127.0.0.1:9' }); console.log('no error'); } catch (e) { console.log(e.code + ' ' + e.message); }`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(stdout.trim()).toMatch(/^AKASHIC_MISSING_PACKAGE .*'ioredis'.*npm install ioredis@\^6/);
  });

  it('does not install openai (optional) and imports every entry point as ESM', async () => {
    expect(existsSync(join(project, 'node_modules', 'openai'))).toBe(false);
    for (const [entry, names] of Object.entries(ENTRIES)) {
      const script = `const m = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(m)));`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
      const keys = JSON.parse(stdout) as string[];
      for (const n of names) expect(keys, entry).toContain(n);
    }
  });

  it('without openai, the OpenAI-compatible client fails with a typed error naming the package', async () => {
    const script = `import { OpenAIChatModel } from 'akashic';
      const m = new OpenAIChatModel({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' });
      try { await m.buildMeta('hello'); console.log('no error'); } catch (e) { console.log(e.code + ' ' + e.message); }`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(stdout.trim()).toBe("AKASHIC_MODEL the OpenAI-compatible client needs the optional package 'openai': npm install openai@^6");
  });

  it('the CLI runs from the installed package', async () => {
    const { stdout } = await run(process.execPath, [join(project, 'node_modules', 'akashic', 'bin', 'akashic.js'), '--version'], { cwd: project });
    expect(stdout.trim()).toBe(pkg.version);
  });

  it.each([
    ['NodeNext', 'NodeNext'],
    ['ESNext', 'Bundler'],
    ['CommonJS', 'node10'],
  ])('types resolve for every entry point (module %s, moduleResolution %s)', async (module, moduleResolution) => {
    const dir = join(project, `tsc-${moduleResolution}`);
    await mkdir(dir, { recursive: true });
    // skipLibCheck keeps this bounded: a missing or unresolvable entry point or export still fails.
    await writeFile(join(dir, 'consumer.ts'), CONSUMER);
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module, moduleResolution, target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
        files: ['consumer.ts'],
      }),
    );
    const r = await run(process.execPath, [TSC, '-p', dir], { cwd: dir }).catch((e: { stdout: string; code: number }) => ({ stdout: e.stdout, code: e.code }));
    expect('code' in r ? r.stdout : '').toBe('');
  }, 300_000);
});

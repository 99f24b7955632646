/**
 * The package's adapter and client entry points, as a user imports them: `akashic/langgraph`, `akashic/ai-sdk`,
 * `akashic/langchain` and `akashic/client`, resolved by Node through the `exports` map of package.json to the built files in dist/
 * (`npm test` builds first).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const EXPECTED: Record<string, string[]> = {
  'akashic/langgraph': ['AkashicLangGraphStore', 'AkashicSaver'],
  'akashic/ai-sdk': ['akashicMemory'],
  'akashic/langchain': ['AkashicChatMessageHistory'],
  'akashic/client': ['AkashicError', 'RemoteMemory', 'RemoteStore', 'isAkashicError'],
};

describe('adapter entry points (built)', () => {
  it.each(Object.keys(EXPECTED))('%s exports exactly its documented names', async (entry) => {
    const script = `const m = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(m).sort()));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd() });
    expect(JSON.parse(stdout)).toEqual(EXPECTED[entry]);
  });
});

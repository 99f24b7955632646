import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { openStore, runMain, tempDir } from './fixtures.js';

describe('akashic recall', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let db: string;
  beforeAll(async () => {
    tmp = await tempDir();
    db = join(tmp.dir, 'db');
    const store = await openStore(db);
    const memory = new AkashicMemory(store);
    await memory.appendTurn({ user: 'alice', session: 's1', role: 'user', text: 'I moved to Lisbon last week.' });
    await memory.endSession({ user: 'alice', session: 's1' });
    await memory.appendTurn({ user: 'alice', session: 's2', role: 'user', text: 'We adopted a puppy named Biscuit.' });
    await memory.endSession({ user: 'alice', session: 's2' });
    await memory.close();
    await store.close();
  }, 60_000);
  afterAll(async () => tmp.dispose());

  it('prints the memory text a prompt would get, then where each passage came from, and changes nothing', async () => {
    const before = await runMain(['dump', '--db', db]);
    const r = await runMain(['recall', '--db', db, '--user', 'alice', '--query', 'Where does Alice live?']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [head, ...rest] = r.stdout.split('--- passages ---\n');
    expect(head).toContain('--- memory text (what the prompt would get) ---\n');
    expect(head).toContain('user: I moved to Lisbon last week.\n');
    const first = /^1\. score (\d+\.\d{3}) {2}session s1, chunk \w+, turns \w+: user: I moved to Lisbon last week\.$/m.exec(rest.join(''));
    expect(first, r.stdout).not.toBeNull();
    expect(Number(first![1])).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/^\d+ passage\(s\) from \d+ chunk\(s\), \d+ tokens, /m);
    expect((await runMain(['dump', '--db', db])).stdout).toBe(before.stdout);
  }, 60_000);

  it('--json prints the recall result; the text matches the library call', async () => {
    const r = await runMain(['recall', '--db', db, '--user', 'alice', '--query', 'What is the name of the dog?', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { text: string; passages: { sessionId: string }[]; tokenCount: number };
    const store = await openStore(db, { readOnly: true });
    const memory = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    try {
      const direct = await memory.recall({ user: 'alice', session: 'akashic-cli', scope: 'user', query: 'What is the name of the dog?' });
      expect(out.text).toBe(direct.text);
      expect(out.passages.map((p) => p.sessionId)).toEqual(direct.passages.map((p) => p.sessionId));
      expect(out.text).toContain('Biscuit');
    } finally {
      await memory.close();
      await store.close();
    }
  }, 60_000);

  it('a user with no memory gets a line saying so; bad input is a usage error naming the option', async () => {
    const none = await runMain(['recall', '--db', db, '--user', 'nobody', '--query', 'anything?']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('memory holds nothing for this question (0 chunk(s) considered)\n');
    const empty = await runMain(['recall', '--db', db, '--user', 'alice', '--query', '  ']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--query must not be empty');
    const scope = await runMain(['recall', '--db', db, '--user', 'alice', '--query', 'x', '--scope', 'everyone']);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("'everyone' is invalid");
    expect((await runMain(['recall', '--db', db, '--query', 'x'])).stderr).toContain("required option '--user <id>' not specified");
  }, 60_000);
});

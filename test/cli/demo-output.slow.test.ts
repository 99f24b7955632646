/**
 * `akashic demo` as a user runs it (piped, so one line per step and no bar): every step announces itself, every
 * figure is explained, and the totals it prints are the ones `akashic inspect` prints for the same database.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './fixtures.js';

describe('akashic demo output', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let demo: { code: number | null; stdout: string; stderr: string };
  let inspect: { code: number | null; stdout: string; stderr: string };
  beforeAll(async () => {
    tmp = await tempDir();
    const db = join(tmp.dir, 'demo-db');
    demo = await runCli(['demo', '--db', db, '--users', '1', '--sessions', '8']);
    inspect = await runCli(['inspect', '--db', db]);
  }, 300_000);
  afterAll(async () => tmp.dispose());

  it('announces each of the four steps and explains every figure', () => {
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    const lines = demo.stdout.split('\n');
    for (const n of [1, 2, 3, 4]) expect(lines.some((l) => l.startsWith(`${n}/4 `)), `step ${n}`).toBe(true);
    for (const label of ['blocks/retrieval', 'lower bound', 'WA', 'SA']) {
      expect(lines.some((l) => l.startsWith(`  ${label.padEnd(18)}`)), label).toBe(true);
    }
    expect(demo.stdout).toMatch(/At \d+\.\d\d the layout is /);
  });

  it('prints the totals exactly as inspect prints them for the same database', () => {
    expect(inspect.code).toBe(0);
    const rows = new Map(inspect.stdout.split('\n').map((l) => [l.slice(0, 18).trim(), l.slice(18)]));
    const totals = demo.stdout.split('\n').filter((l) => l.startsWith('  ') && /^ {2}(retrievals|write amp\.|space amp\.|blocks|gc|on disk) /.test(l));
    expect(totals.length).toBe(6);
    for (const l of totals) {
      const key = l.slice(2, 20).trim();
      const value = l.slice(20);
      const shown = rows.get(key);
      expect(shown, key).toBeDefined();
      // inspect may say more after the same figures (e.g. stored/live), never something else.
      const common = value.replace(/ \(every read since creation.*\)$/, '');
      expect(shown!.startsWith(common), `${key}: demo "${common}" vs inspect "${shown}"`).toBe(true);
    }
  });

  it('shows memory first: recalled passages with dates and scores, the changed fact current and its old value kept in history only', () => {
    const lines = demo.stdout.split('\n');
    const q = lines.findIndex((l) => l.includes('Q: Where does Maya work now?'));
    expect(q).toBeGreaterThan(0);
    const answer = lines.slice(q + 1).filter((l) => l.startsWith('     ['));
    expect(answer[0]).toMatch(/^ {5}\[\d{4}-\d\d-\d\d, score \d+\.\d\d\] /);
    expect(answer[0]).toContain('Globex');
    const untilNext = lines.slice(q + 1, lines.findIndex((l, i) => i > q && l.includes('Q: ')));
    expect(untilNext.join('\n')).not.toContain('Acme');
    expect(demo.stdout).toMatch(/updated what was said before: .*"Acme" → "Globex"/);
    expect(lines.some((l) => l.startsWith('  changed: ') && l.includes('kept in history'))).toBe(true);
    // The storage part never contradicts itself: the closing line compares the same recalled sets.
    expect(demo.stdout).not.toContain('scatters');
  });
});

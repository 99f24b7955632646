import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHtmlReport } from '../../src/admin/html-report.js';
import { openStoreForTool } from '../../src/admin/open-store.js';
import { buildSample, runCli, tempDir } from './fixtures.js';

describe('report', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let db: string;
  beforeAll(async () => {
    tmp = await tempDir();
    db = join(tmp.dir, 'db');
    await buildSample(db);
  });
  afterAll(async () => tmp.dispose());

  it('writes one self-contained HTML page with SVG pictures', async () => {
    const out = join(tmp.dir, 'report.html');
    const r = await runCli(['report', '--db', db, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*report\.html \(\d+ of \d+ blocks drawn\)\n$/);
    const html = await readFile(out, 'utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<svg');
    expect(html).toContain('aria-label="block layout"');
    expect(html).toContain('aria-label="phi histogram"');
    expect(html).toContain('A per-request history is not recorded');
    // No external resource: no URL, no script, no link or img element.
    expect(html).not.toMatch(/https?:|<script|<link|<img|src=/i);
    // Ids are escaped.
    expect(html).toContain('user &quot;alice&quot;');
  });

  it('caps the drawn blocks and says so', async () => {
    const store = await openStoreForTool(db, { readOnly: true });
    try {
      const out = join(tmp.dir, 'small.html');
      const data = await writeHtmlReport(store, out, { maxBlocks: 2 });
      expect(data.blocks.length).toBe(2);
      expect(await readFile(out, 'utf8')).toContain(`Showing the first 2 of ${data.blocksTotal} blocks.`);
    } finally {
      await store.close();
    }
  });
});

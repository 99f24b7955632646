import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { openFamilies, type ColumnFamilies } from '../../src/store/kv/column-families.js';
import { spreadGetMany } from '../../src/store/read/spread-get-many.js';

describe('spreadGetMany (a large getMany issued as concurrent runs of neighbouring keys)', () => {
  let dir: string;
  let db: ClassicLevel<string, Buffer>;
  let cf: ColumnFamilies;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'akashic-spread-'));
    db = new ClassicLevel<string, Buffer>(dir, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await db.open();
    cf = openFamilies(db);
  });

  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const key = (i: number): string => `u\u0000s\u0000${String(i).padStart(5, '0')}`;

  it('returns what one getMany returns, in the order asked, absent keys included, for every size around the split', async () => {
    await cf.dir.batch(Array.from({ length: 400 }, (_, i) => ({ type: 'put' as const, key: key(i), value: Buffer.from(`v${i}`) })));
    const snapshot = db.snapshot();
    try {
      for (const n of [0, 1, 95, 96, 97, 191, 250, 500]) {
        // Shuffled, with keys that do not exist (400 and up) and a repeated key.
        const keys = Array.from({ length: n }, (_, j) => key((j * 7919) % 500));
        if (n > 2) keys[n - 1] = keys[0]!;
        const expected = await cf.dir.getMany(keys, { snapshot });
        const got = await spreadGetMany(cf.dir, keys, snapshot);
        expect(got).toEqual(expected);
        expect(got.filter((v) => v === undefined).length).toBe(keys.filter((k) => Number(k.slice(-5)) >= 400).length);
      }
    } finally {
      await snapshot.close();
    }
  });

  it('reads every run from the snapshot given: writes made after it are not seen', async () => {
    await cf.dir.batch(Array.from({ length: 300 }, (_, i) => ({ type: 'put' as const, key: key(i), value: Buffer.from('old') })));
    const snapshot = db.snapshot();
    try {
      await cf.dir.batch(Array.from({ length: 300 }, (_, i) => ({ type: 'put' as const, key: key(i), value: Buffer.from('new') })));
      const keys = Array.from({ length: 300 }, (_, i) => key(299 - i));
      const got = await spreadGetMany(cf.dir, keys, snapshot);
      expect(got.map((v) => v?.toString())).toEqual(keys.map(() => 'old'));
      expect((await spreadGetMany(cf.dir, keys, undefined)).map((v) => v?.toString())).toEqual(keys.map(() => 'new'));
    } finally {
      await snapshot.close();
    }
  });
});

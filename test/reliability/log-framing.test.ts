/**
 * LevelDB's log framing as the engine reads it (`store/leveldb/log-check.ts`): the one reader behind the
 * write-ahead-log check and the MANIFEST's live-table list, run over a log real LevelDB wrote.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { logDamage, logFrames, logRecords } from '../../src/store/leveldb/log-check.js';
import { tempDir } from '../cli/fixtures.js';

let dispose: (() => Promise<void>) | null = null;
afterEach(async () => {
  await dispose?.();
  dispose = null;
});

/** A write-ahead log holding a small write, a 100 KiB value (fragmented over four 32 KiB blocks) and another small write. */
async function realLog(): Promise<{ buf: Buffer; big: Buffer }> {
  const t = await tempDir();
  dispose = t.dispose;
  const big = Buffer.alloc(100 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
  const db = new ClassicLevel<string, Buffer>(t.dir, { valueEncoding: 'buffer' });
  await db.put('a', Buffer.from('first'));
  await db.put('b', big);
  await db.put('c', Buffer.from('last'));
  await db.close(); // the memtable is not flushed: the writes stay in the log
  const log = (await readdir(t.dir)).find((n) => n.endsWith('.log'));
  if (log === undefined) throw new Error('LevelDB left no log');
  return { buf: await readFile(join(t.dir, log)), big };
}

describe('log framing', () => {
  it('joins a record fragmented across blocks, and finds no damage in an intact log', async () => {
    const { buf, big } = await realLog();
    const types = [...logFrames(buf)].map((f) => (f.kind === 'record' ? f.type : -1));
    expect(types).toEqual([1, 2, 3, 3, 4, 1]); // FULL, FIRST, MIDDLE, MIDDLE, LAST, FULL
    const records = [...logRecords(buf)];
    expect(records).toHaveLength(3); // one write batch per put
    expect(Buffer.from(records[0]!).includes(Buffer.from('first'))).toBe(true);
    expect(Buffer.from(records[1]!).includes(big)).toBe(true);
    expect(Buffer.from(records[2]!).includes(Buffer.from('last'))).toBe(true);
    expect(logDamage('x.log', buf)).toEqual([]);
  });

  it('stops at a torn tail, and throws at a checksum mismatch the damage check reports', async () => {
    const { buf } = await realLog();
    expect([...logRecords(buf.subarray(0, buf.length - 2))]).toHaveLength(2);
    const flipped = Buffer.from(buf);
    flipped[40 * 1024] = flipped[40 * 1024]! ^ 0x01; // inside the big record's second fragment
    expect(() => [...logRecords(flipped)]).toThrow(/checksum mismatch/);
    // The rest of that block is dropped, so the next block's fragment has no start either.
    expect(logDamage('x.log', flipped)).toEqual([
      { file: 'x.log', offset: 32 * 1024, reason: 'checksum mismatch' },
      { file: 'x.log', offset: 64 * 1024, reason: 'a record fragment has no start' },
    ]);
  });
});

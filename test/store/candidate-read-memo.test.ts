import { describe, expect, it } from 'vitest';
import { MemoryLevel } from 'memory-level';
import { CandidateReadMemo } from '../../src/store/index/candidate-read-memo.js';
import { BatchWriter } from '../../src/store/kv/batch-writer.js';
import { resolveStoreOptions } from '../../src/api/store-options.js';

const RANGE = { gte: 'k\u0000u\u0000memory\u0000tea\u0000', lt: 'k\u0000u\u0000memory\u0000tea\u0001', reverse: true, limit: 256 };

describe('CandidateReadMemo (candidate reads kept per user at its version)', () => {
  it('a range read twice at one version is read once; the same range at another version is read again', async () => {
    const memo = new CandidateReadMemo(1 << 20);
    let reads = 0;
    const read = async (): Promise<string[]> => {
      reads++;
      return [`${RANGE.gte}b`, `${RANGE.gte}a`];
    };
    const first = await memo.view('u', '7')!.scan(RANGE, read);
    expect(await memo.view('u', '7')!.scan(RANGE, read)).toBe(first);
    expect(reads).toBe(1);
    // Another limit is another range.
    await memo.view('u', '7')!.scan({ ...RANGE, limit: 64 }, read);
    expect(reads).toBe(2);
    await memo.view('u', '8')!.scan(RANGE, read);
    expect(reads).toBe(3);
    // The old version's reads are gone: back at '7' (which a real version never does) everything is read again.
    await memo.view('u', '7')!.scan(RANGE, read);
    expect(reads).toBe(4);
  });

  it('directory values: only the keys the memo lacks are read, in one call, and absent ones are remembered', async () => {
    const memo = new CandidateReadMemo(1 << 20);
    const calls: string[][] = [];
    const read = async (keys: string[]): Promise<(Buffer | undefined)[]> => {
      calls.push(keys);
      return keys.map((k) => (k === 'gone' ? undefined : Buffer.from(`value of ${k}`)));
    };
    expect(await memo.view('u', '1')!.values(['a', 'b', 'gone'], read)).toEqual([Buffer.from('value of a'), Buffer.from('value of b'), undefined]);
    expect(await memo.view('u', '1')!.values(['c', 'a', 'gone'], read)).toEqual([Buffer.from('value of c'), Buffer.from('value of a'), undefined]);
    expect(await memo.view('u', '1')!.values(['b', 'c'], read)).toEqual([Buffer.from('value of b'), Buffer.from('value of c')]);
    expect(calls).toEqual([['a', 'b', 'gone'], ['c']]);
  });

  it('keeps a copy of each value, not a view the backend may reuse', async () => {
    const memo = new CandidateReadMemo(1 << 20);
    const page = Buffer.from('value of a');
    await memo.view('u', '1')!.values(['a'], async () => [page]);
    page.fill(0);
    expect(await memo.view('u', '1')!.values(['a'], async () => [])).toEqual([Buffer.from('value of a')]);
  });

  it('derived values are made once per version and made again once the version moved', async () => {
    const memo = new CandidateReadMemo(1 << 20);
    let made = 0;
    const make = async (): Promise<string[]> => {
      made++;
      return [`parsed ${made}`];
    };
    const first = await memo.view('u', '3')!.derive('w', () => 32, make);
    expect(await memo.view('u', '3')!.derive('w', () => 32, make)).toBe(first);
    expect(made).toBe(1);
    // Another id is another value; another user has its own.
    await memo.view('u', '3')!.derive('x', () => 32, make);
    await memo.view('v', '3')!.derive('w', () => 32, make);
    expect(made).toBe(3);
    // The version moved: made again, and the new value is what later reads at that version get.
    const moved = await memo.view('u', '4')!.derive('w', () => 32, make);
    expect(moved).toEqual(['parsed 4']);
    expect(await memo.view('u', '4')!.derive('w', () => 32, make)).toBe(moved);
    expect(made).toBe(4);
  });

  it('decoded values: found by id, decoded once per version, only the missing ones read, a failed decode not kept', async () => {
    const memo = new CandidateReadMemo(1 << 20);
    const calls: string[][] = [];
    let decodes = 0;
    const read = async (keys: string[]): Promise<(Buffer | undefined)[]> => {
      calls.push(keys);
      return keys.map((k) => (k === 'dir/gone' ? undefined : Buffer.from(`value of ${k}`)));
    };
    const decode = (key: string, v: Buffer | undefined): { key: string; text: string } => {
      decodes++;
      if (v === undefined) throw new Error(`no value for ${key}`);
      return { key, text: v.toString() };
    };
    // Items are named by an id and stored under a key of their own.
    const get = (version: string, ids: string[], r = read): Promise<{ key: string; text: string }[]> =>
      memo.view('u', version)!.decoded(ids, (i) => `dir/${ids[i]!}`, r, decode);
    const a = await get('1', ['a', 'b']);
    expect(a).toEqual([
      { key: 'dir/a', text: 'value of dir/a' },
      { key: 'dir/b', text: 'value of dir/b' },
    ]);
    const b = await get('1', ['b', 'c']);
    expect(b[0]).toBe(a[1]);
    expect(b[1]).toEqual({ key: 'dir/c', text: 'value of dir/c' });
    expect(decodes).toBe(3);
    expect(calls).toEqual([['dir/a', 'dir/b'], ['dir/c']]);
    // A value that does not decode throws every time (nothing kept for it).
    await expect(get('1', ['gone'])).rejects.toThrow('no value for dir/gone');
    await expect(get('1', ['gone'])).rejects.toThrow('no value for dir/gone');
    expect(decodes).toBe(5);
    // Another version decodes again from what it reads.
    expect(await get('2', ['a'], async (keys) => keys.map(() => Buffer.from('new value')))).toEqual([{ key: 'dir/a', text: 'new value' }]);
  });

  it('without a version, or with a zero budget, nothing is kept', () => {
    expect(new CandidateReadMemo(1 << 20).view('u', null)).toBeNull();
    expect(new CandidateReadMemo(0).view('u', '1')).toBeNull();
  });

  it('stays within its byte bound, dropping the least recently used user first', async () => {
    const memo = new CandidateReadMemo(2048);
    const keys = Array.from({ length: 10 }, (_, i) => `${RANGE.gte}chunk-${i}`);
    for (const u of ['a', 'b', 'c', 'd', 'e']) await memo.view(u, '1')!.scan(RANGE, async () => keys);
    expect(memo.bytes).toBeLessThanOrEqual(2048);
    let reads = 0;
    const count = async (): Promise<string[]> => {
      reads++;
      return keys;
    };
    await memo.view('e', '1')!.scan(RANGE, count);
    expect(reads).toBe(0);
    await memo.view('a', '1')!.scan(RANGE, count);
    expect(reads).toBe(1);
    // A user whose reads alone exceed the bound reads past the memo.
    const big = Array.from({ length: 200 }, (_, i) => `${RANGE.gte}chunk-${i}`);
    await memo.view('f', '1')!.scan(RANGE, async () => big);
    expect(memo.bytes).toBeLessThanOrEqual(2048);
    memo.clear();
    expect(memo.bytes).toBe(0);
  });
});

describe('BatchWriter.generation (the version a single-writer database is read at)', () => {
  it('is null while a batch is in flight and moves when it finishes, written or failed', async () => {
    const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await db.open();
    const writer = new BatchWriter(db as never, resolveStoreOptions({ db: db as never }));
    const g0 = writer.generation();
    expect(g0).not.toBeNull();
    const pending = writer.write([{ type: 'put', key: 'a', value: Buffer.from('1') }]);
    expect(writer.generation()).toBeNull();
    await pending;
    const g1 = writer.generation();
    expect(g1).not.toBeNull();
    expect(g1).not.toBe(g0);
    // Nothing to write: no batch, no move.
    await writer.write([]);
    expect(writer.generation()).toBe(g1);
    await db.close();
    await expect(writer.write([{ type: 'put', key: 'b', value: Buffer.from('2') }])).rejects.toThrow();
    expect(writer.generation()).not.toBe(g1);
  });

  it('once told which families to follow, moves only for batches writing one of them (or a root key)', async () => {
    const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await db.open();
    const dir = db.sublevel<string, Buffer>('dir', { valueEncoding: 'buffer' });
    const active = db.sublevel<string, Buffer>('active', { valueEncoding: 'buffer' });
    const writer = new BatchWriter(db as never, resolveStoreOptions({ db: db as never }));
    writer.watch([dir]);
    const g0 = writer.generation();
    const turn = writer.write([{ type: 'put', sublevel: active as never, key: 't1', value: Buffer.from('turn') }]);
    expect(writer.generation()).toBe(g0);
    await turn;
    expect(writer.generation()).toBe(g0);
    const entry = writer.write([
      { type: 'put', sublevel: active as never, key: 't2', value: Buffer.from('turn') },
      { type: 'put', sublevel: dir as never, key: 'c1', value: Buffer.from('entry') },
    ]);
    expect(writer.generation()).toBeNull();
    await entry;
    const g1 = writer.generation();
    expect(g1).not.toBe(g0);
    await writer.write([{ type: 'put', key: 'root', value: Buffer.from('x') }]);
    expect(writer.generation()).not.toBe(g1);
    expect(await dir.get('c1')).toEqual(Buffer.from('entry'));
    await db.close();
  });
});

/**
 * A damaged LevelDB table file (.ldb), damaged after the database was closed. classic-level 3 opens LevelDB with
 * paranoid_checks off and reads with verify_checksums off, so LevelDB itself would hand up damaged bytes — and a
 * damaged key reads as "missing" and aborts the process at the next compaction. The engine checks every table
 * block's CRC-32C before LevelDB opens the directory. The contract: a damaged table is refused with
 * AKASHIC_CORRUPTION (never "missing", never a crash); salvage copies every chunk outside the damaged block into a
 * clean database and never aborts.
 *
 * Where the bytes are flipped is chosen from the table's own structure, not from fractions of its length: a key
 * byte of the first and last entry of every fourth data block (compressed blocks: the middle of the block), the
 * trailers, the filter, metaindex and index blocks and the footer. Each damaged copy is probed in a child process
 * (fixtures/damaged-db-probe.ts), which also compacts the database when the engine accepted it, so that an abort
 * shows up as a dead child instead of a dead test runner. In process, a flip at every key byte of every
 * uncompressed block and at every 31st byte of the file must be found by the check.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { tableDamage } from '../../src/store/leveldb/table-check.js';
import { blockEntries, decodeHandle, FOOTER_BYTES, readBlock, readFooter, type BlockHandle } from '../../src/store/leveldb/table-format.js';
import type { ProbeOutcome } from './fixtures/damaged-db-probe.js';
import { planUlid } from '../../tools/crash-test/content.js';
import { text } from '../support/backends.js';
import type { Seeded } from './helpers.js';

const probe = fileURLToPath(new URL('../../dist/test/reliability/fixtures/damaged-db-probe.js', import.meta.url));
const CHUNKS = 600;
const BLOCK_CAPACITY = 8;

/** A place to flip one byte, what lives there, and how many chunks its loss may cost at most. */
interface Flip {
  readonly name: string;
  readonly at: number;
  /** 'block': inside a checksummed block or trailer; 'table': the footer's handles or magic; 'padding': unused footer bytes. */
  readonly kind: 'block' | 'table' | 'padding';
  /** For a data block: chunks that salvage may lose (frames hold up to BLOCK_CAPACITY chunks; directory entries one). */
  readonly mayLose: number | null;
}

/** Data blocks of a table with their entries' key offsets in the file (uncompressed blocks only). */
function layout(buf: Buffer): { blocks: { h: BlockHandle; compressed: boolean; keys: string[]; keyOffsets: number[]; keyRanges: [number, number][] }[]; footer: ReturnType<typeof readFooter>; filter: BlockHandle } {
  const footer = readFooter(buf);
  const blocks = blockEntries(readBlock(buf, footer.index)).map((e) => {
    const h = decodeHandle(e.value);
    const compressed = buf[h.offset + h.size] !== 0;
    const entries = blockEntries(readBlock(buf, h));
    const keyRanges: [number, number][] = [];
    if (!compressed) {
      // A restart at every 16th entry: find each entry's unshared key bytes by walking the block's own encoding.
      let at = h.offset;
      for (const en of entries) {
        // shared and unshared key lengths: one byte each (fixture keys are shorter than 128 bytes), then the value length
        if ((buf[at]! | buf[at + 1]!) & 0x80) throw new Error('fixture keys are expected shorter than 128 bytes');
        const unshared = buf[at + 1]!;
        let p = at + 2;
        while (buf[p]! & 0x80) p++;
        p++;
        keyRanges.push([p, p + unshared]);
        at = p + unshared + en.value.length;
      }
    }
    return { h, compressed, keys: entries.map((en) => Buffer.from(en.key).toString('latin1')), keyOffsets: keyRanges.map(([a, b]) => (a + b) >> 1), keyRanges };
  });
  const meta = blockEntries(readBlock(buf, footer.metaindex));
  const filter = decodeHandle(meta[0]!.value);
  return { blocks, footer, filter };
}

function flipsOf(buf: Buffer): Flip[] {
  const { blocks, footer, filter } = layout(buf);
  const out: Flip[] = [];
  blocks.forEach((b, i) => {
    if (i % 8 !== 0 && i !== blocks.length - 1) return;
    const family = b.keys[0]!.slice(0, b.keys[0]!.indexOf('!', 1) + 1);
    // A block may hold the end of one column family and the start of the next: count key by key.
    const mayLose = b.keys.reduce((n, k) => n + (k.startsWith('!blk!') ? BLOCK_CAPACITY : k.startsWith('!dir!') ? 1 : 0), 0);
    if (b.compressed) out.push({ name: `data block ${i} (${family}, compressed), middle`, at: b.h.offset + (b.h.size >> 1), kind: 'block', mayLose });
    else {
      out.push({ name: `data block ${i} (${family}), first key`, at: b.keyOffsets[0]!, kind: 'block', mayLose });
      out.push({ name: `data block ${i} (${family}), last key`, at: b.keyOffsets[b.keyOffsets.length - 1]!, kind: 'block', mayLose });
    }
  });
  const b0 = blocks[0]!.h;
  out.push({ name: 'trailer checksum of data block 0', at: b0.offset + b0.size + 2, kind: 'block', mayLose: blocks[0]!.keys.filter((k) => k.startsWith('!blk!')).length * BLOCK_CAPACITY });
  out.push({ name: 'filter block', at: filter.offset + (filter.size >> 1), kind: 'block', mayLose: 0 });
  out.push({ name: 'metaindex block', at: footer.metaindex.offset + 2, kind: 'block', mayLose: 0 });
  out.push({ name: 'index block', at: footer.index.offset + (footer.index.size >> 1), kind: 'table', mayLose: null });
  const f = buf.length - FOOTER_BYTES;
  out.push({ name: 'footer: index handle', at: f + 4, kind: 'table', mayLose: null });
  out.push({ name: 'footer: magic', at: f + 44, kind: 'table', mayLose: null });
  out.push({ name: 'footer: padding', at: f + 38, kind: 'padding', mayLose: 0 });
  return out;
}

describe('a damaged LevelDB table file', () => {
  let dir: string;
  let pristine: string;
  let expectedPath: string;
  let table = '';
  let flips: Flip[] = [];
  const outcomes: { name: string; o: ProbeOutcome }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-ldb-'));
    pristine = join(dir, 'pristine');
    // Deterministic contents (ids, clock), so every run lays out the same table.
    const store = await AkashicStore.open({ path: pristine, gc: { intervalMs: 0 }, durability: 'relaxed', blockCapacity: BLOCK_CAPACITY, now: () => 1_700_000_000_000 });
    const seeded: Seeded[] = [];
    for (const userId of ['alice', 'bob', 'carol']) {
      for (let i = 0; i < CHUNKS / 3; i += 20) {
        const ops = Array.from({ length: 20 }, (_, j) => ({
          op: 'put' as const,
          sessionId: `s${(i + j) % 2}`,
          chunkId: planUlid(0, seeded.length + j, 7 * (seeded.length + j)),
          text: `${userId} #${i + j} ${text(i + j, 12)}`,
        }));
        await store.write(userId, ops);
        for (const o of ops) seeded.push({ userId, sessionId: o.sessionId, chunkId: o.chunkId, text: o.text });
      }
    }
    await store.close();
    // Reopening replays the log into a level-0 table: afterwards everything lives in .ldb files.
    await (await AkashicStore.open({ path: pristine, gc: { intervalMs: 0 } })).close();
    table = (await readdir(pristine)).find((f) => f.endsWith('.ldb')) ?? '';
    flips = flipsOf(await readFile(join(pristine, table)));
    const expected = Object.fromEntries(seeded.map((s) => [`${s.userId}/${s.sessionId}/${s.chunkId}`, s]));
    expectedPath = join(dir, 'expected.json');
    await writeFile(expectedPath, JSON.stringify(expected));
  }, 60_000);

  afterAll(async () => {
    // What happened, place by place (kept in the test log; docs/reliability.md summarizes it).
    console.log(
      outcomes
        .map(({ name, o }) => `${name}: open ${o.openError ?? 'ok'}, reads ok ${o.readOk} missing ${o.missing}, salvage ${'error' in o.salvage ? o.salvage.error : `${o.salvage.copied} copied/${o.salvage.skipped} skipped/${o.salvage.storageErrors} damage reports${o.salvage.repaired ? ' (repaired copy)' : ''}`}`)
        .join('\n'),
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('the fixture holds its data in one table file and the probe is built', () => {
    expect(table).toMatch(/\.ldb$/);
    expect(existsSync(probe)).toBe(true);
    expect(flips.filter((f) => f.kind === 'block').length).toBeGreaterThanOrEqual(10);
  });

  it('the check finds a flip at every key byte of every uncompressed block and at every 31st byte of the file', async () => {
    const buf = await readFile(join(pristine, table));
    expect(tableDamage(table, buf)).toEqual([]);
    const { blocks } = layout(buf);
    const footerPadding = (at: number): boolean => {
      const f = buf.length - FOOTER_BYTES;
      // The footer starts with four varint handles; from their end up to the magic is zero padding, which LevelDB
      // never reads (a flip there is harmless, as the 'padding' flip below asserts).
      let end = f;
      for (let n = 0; n < 4; n++) {
        while ((buf[end]! & 0x80) !== 0) end++;
        end++;
      }
      return at >= end && at < f + 40;
    };
    const positions = new Set<number>();
    for (const b of blocks) {
      if (b.compressed) continue;
      for (const [from, to] of b.keyRanges) for (let at = from; at < to; at++) positions.add(at);
    }
    for (let at = 0; at < buf.length; at += 31) positions.add(at);
    let found = 0;
    for (const at of positions) {
      if (footerPadding(at)) continue;
      const copy = Buffer.from(buf);
      copy[at] = copy[at]! ^ 0x5a;
      const damage = tableDamage(table, copy, 1);
      expect(damage.length, `flip at byte ${at} of ${buf.length}`).toBe(1);
      found++;
    }
    // Thousands of places (the table holds the directory and index; block frames live in frame files).
    expect(found).toBeGreaterThan(2000);
  });

  it.each(Array.from({ length: 24 }, (_, i) => i))('flip #%s of the sampled places: refused or harmless, never a crash; salvage recovers the rest', async (i) => {
    const flip = flips[i];
    if (flip === undefined) return; // fewer places in this layout
    const db = join(dir, `damaged-${i}`);
    await cp(pristine, db, { recursive: true });
    const file = join(db, table);
    const bytes = await readFile(file);
    bytes[flip.at] = bytes[flip.at]! ^ 0x5a;
    await writeFile(file, bytes);

    const run = spawnSync(process.execPath, [probe, db, expectedPath, join(dir, `salvaged-${i}`)], { encoding: 'utf8', timeout: 60_000 });
    expect(run.signal, `${flip.name}: ${run.stderr}`).toBeNull();
    expect(run.status, `${flip.name}: ${run.stderr}`).toBe(0);
    const o = JSON.parse(run.stdout.trim().split('\n').pop()!) as ProbeOutcome;
    outcomes.push({ name: flip.name, o });

    expect(o.untyped, flip.name).toEqual([]);
    expect(o.wrong, flip.name).toEqual([]);
    if (flip.kind === 'padding') {
      expect(o.openError, flip.name).toBeNull();
      expect(o.readOk, flip.name).toBe(CHUNKS);
      expect(o.verify?.ok, flip.name).toBe(true);
    } else {
      // Detected before LevelDB opens: never "missing", never an abort in a later compaction.
      expect(o.openError, flip.name).toBe('AKASHIC_CORRUPTION');
    }
    if ('error' in o.salvage) throw new Error(`${flip.name}: salvage failed with ${o.salvage.error}`);
    expect(o.salvagedVerifyOk, flip.name).toBe(true);
    expect(o.salvagedWrong, flip.name).toEqual([]);
    expect(o.salvagedChunks, flip.name).toBe(o.salvage.copied);
    if (flip.mayLose !== null) expect(o.salvage.copied, flip.name).toBeGreaterThanOrEqual(CHUNKS - flip.mayLose);
    if (flip.kind !== 'padding') expect(o.salvage.complete, flip.name).toBe(false);
  });
});

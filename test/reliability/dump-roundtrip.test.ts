/**
 * dump → load → dump is byte for byte the same, on a database holding everything the engine keeps logically:
 * prototype-like attribute keys (`__proto__`, `constructor`, `prototype`, `toString`), payloads, vectors,
 * expiring chunks, updated and deleted chunks, every kind, and MemAttention's active (not yet compacted) turns in
 * several namespaces. Loading the same dump twice changes nothing the second time.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, AkashicStore } from '../../src/index.js';
import { dumpStore } from '../../src/admin/dump.js';
import { loadDump } from '../../src/admin/load.js';
import { ScriptedModel } from '../memattention/fixtures.js';

async function dumpTo(store: AkashicStore, path: string, opts: { userId?: string } = {}): Promise<string> {
  const out = createWriteStream(path);
  await dumpStore(store, out, opts);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return readFile(path, 'utf8');
}

// JSON.parse defines `__proto__` as an own key, as a caller's parsed input would.
const PROTO_ATTRS = JSON.parse('{"__proto__":"p","constructor":"c","prototype":"x","toString":"t","hasOwnProperty":"h"}') as Record<string, string>;

describe('dump → load → dump', () => {
  let dir: string;
  const now = 1_750_000_000_000;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-roundtrip-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('round-trips every chunk field, prototype-like attribute keys and active turns, byte for byte', async () => {
    const a = await AkashicStore.open({ path: join(dir, 'a'), gc: { intervalMs: 0 }, now: () => now });
    const [p1, , p3, p4] = await a.write('alice', [
      { op: 'put', sessionId: 's1', text: 'prototype keys', attributes: PROTO_ATTRS, keywords: ['proto'] },
      { op: 'put', sessionId: 's1', text: 'with a payload and a vector', payload: Uint8Array.from([0, 1, 2, 255]), embedding: { model: 'm', vector: [0.25, -1, 3.5] } },
      { op: 'put', sessionId: 's2', text: 'expires later', expiresAt: now + 86_400_000, kind: 'note', agentId: 'agent-1', runId: 'run-1' },
      { op: 'put', sessionId: 's2', text: 'to be deleted', kind: 'summary' },
    ]);
    await a.write('alice', [
      { op: 'update', sessionId: 's2', chunkId: p3!.chunkId, text: 'expires later, updated', tokenCount: 7 },
      { op: 'delete', sessionId: 's2', chunkId: p4!.chunkId },
    ]);
    await a.put('bob', { sessionId: 's1', text: 'bob', attributes: { constructor: 'only' }, provenance: ['t1'], supersedes: [p1!.chunkId] });
    const memory = new AkashicMemory(a, { model: new ScriptedModel(), chunkGateTokens: 1_000_000 });
    await memory.appendTurn({ user: 'alice', session: 's1', role: 'user', text: 'an active turn', turnId: 'turn-a' });
    await memory.appendTurn({ user: 'alice', session: 's1', role: 'assistant', text: 'a reply\nwith "quotes" and 😀', at: now - 5 });
    await memory.appendTurn({ user: 'bob', session: 's9', role: 'user', text: 'another namespace' });

    const first = await dumpTo(a, join(dir, 'first.jsonl'));
    await memory.close();
    await a.close();
    const lines = first.trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'header', format: 3, chunks: 4, versions: 2, turns: 3 });
    expect(lines.filter((l) => l.startsWith('{"type":"turn"'))).toHaveLength(3);
    expect(first).toContain('"__proto__":"p"');
    expect(first).toContain('"expiresAt":');
    expect(first).toContain('"embedding":');
    expect(first).toContain('"agentId":"agent-1","runId":"run-1"');

    const open = (name: string) => () => AkashicStore.open({ path: join(dir, name), gc: { intervalMs: 0 }, now: () => now });
    const loaded = await loadDump(join(dir, 'first.jsonl'), open('b'));
    expect(loaded.validation.problems).toEqual([]);
    expect(loaded.result).toMatchObject({ chunks: 4, restored: 4, versions: 2, turns: 3, turnsSkipped: 0 });
    // Loading again: idempotent.
    const again = await loadDump(join(dir, 'first.jsonl'), open('b'));
    expect(again.result).toMatchObject({ restored: 0, skipped: 4, turns: 0, turnsSkipped: 3 });

    const b = await AkashicStore.open({ path: join(dir, 'b'), gc: { intervalMs: 0 }, now: () => now });
    try {
      expect(await dumpTo(b, join(dir, 'second.jsonl'))).toBe(first);
      const r = await b.get('alice', 's1', p1!.chunkId);
      expect(Object.hasOwn(r!.attributes, '__proto__')).toBe(true);
      expect(r!.attributes['__proto__']).toBe('p');
      expect(Object.getPrototypeOf(r!.attributes)).toBe(Object.prototype);
      // A scoped dump carries only that user's turns.
      const bobOnly = await dumpTo(b, join(dir, 'bob.jsonl'), { userId: 'bob' });
      expect(JSON.parse(bobOnly.split('\n')[0]!)).toMatchObject({ chunks: 1, turns: 1 });
    } finally {
      await b.close();
    }
    // The loaded turns are live active turns: the memory of the new database sees them.
    const c = await AkashicStore.open({ path: join(dir, 'b'), gc: { intervalMs: 0 }, now: () => now });
    try {
      const m = new AkashicMemory(c, { model: new ScriptedModel(), chunkGateTokens: 1_000_000 });
      const r = await m.completeRequest({ user: 'alice', session: 's1', turns: [], enableWriteback: false });
      expect(r.activeTokens).toBeGreaterThan(0);
      await m.close();
    } finally {
      await c.close();
    }
  });
});

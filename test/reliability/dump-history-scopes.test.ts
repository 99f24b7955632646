/**
 * Per-scope export/import (dump format 3) on both backends: history versions and agent/run scopes travel, a dump
 * loaded into an empty database dumps again byte for byte (whole, per user, per agent, per run), and bad version
 * lines are refused before anything is written.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDumpFile, validateDumpFile } from '../../src/admin/load.js';
import { dumpStore, type DumpOptions } from '../../src/admin/dump.js';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicError } from '../../src/errors.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { ScriptedModel } from '../memattention/fixtures.js';

let clock = 1_750_000_000_000;
const now = (): number => clock;

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function dump(store: AkashicStore, opts: DumpOptions = {}): Promise<string> {
  const lines: string[] = [];
  await dumpStore(store, (l) => void lines.push(l), { ...opts, pageSize: 2 });
  return lines.join('\n') + '\n';
}

describe.each(['memory-level', 'classic-level'] as const)('dump and load with history and scopes (%s)', (backend) => {
  let dir: string;
  const open = (name: string): Promise<AkashicStore> =>
    backend === 'classic-level'
      ? AkashicStore.open({ path: join(dir, name), gc: { intervalMs: 0 }, durability: 'relaxed', now })
      : AkashicStore.open({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }), gc: { intervalMs: 0 }, now });
  /** Loads `text` into a fresh database, after validating all of it; returns the (open) target. */
  const loadInto = async (text: string, name: string): Promise<AkashicStore> => {
    const file = join(dir, `${name}.jsonl`);
    await writeFile(file, text);
    const v = await validateDumpFile(file);
    expect(v.problems).toEqual([]);
    const target = await open(name);
    await applyDumpFile(target, file, { batchSize: 3 });
    return target;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-dump-history-'));
    clock = 1_750_000_000_000;
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  /** A source with updated, deleted, reconciled and restored-over-tombstone chunks in several scopes. */
  async function source(): Promise<AkashicStore> {
    const s = await open('src');
    const [a, b, c, d] = await s.write('team', [
      { op: 'put', sessionId: 'job', text: 'plan v1', agentId: 'planner', runId: 'r1', attributes: { k: 'v' } },
      { op: 'put', sessionId: 'job', text: 'code v1', agentId: 'coder', runId: 'r1' },
      { op: 'put', sessionId: 'job', text: 'shared note' },
      { op: 'put', sessionId: 'other', text: 'doomed', agentId: 'coder', runId: 'r2', expiresAt: clock + 10 * 86_400_000 },
    ]);
    clock += 1_000;
    await s.write('team', [{ op: 'update', sessionId: 'job', chunkId: a!.chunkId, text: 'plan v2' }]);
    clock += 1_000;
    await s.write('team', [
      { op: 'update', sessionId: 'job', chunkId: a!.chunkId, text: 'plan v3', supersededBy: { sessionId: 'job', chunkId: c!.chunkId } },
      { op: 'update', sessionId: 'job', chunkId: b!.chunkId, text: 'code v2' },
    ]);
    clock += 1_000;
    await s.write('team', [{ op: 'delete', sessionId: 'other', chunkId: d!.chunkId, supersededBy: { sessionId: 'job', chunkId: b!.chunkId } }]);
    await s.put('solo', { sessionId: 's', text: 'unrelated user' });
    const memory = new AkashicMemory(s, { model: new ScriptedModel(), chunkGateTokens: 1_000_000 });
    await memory.appendTurn({ user: 'team', session: 'job', role: 'user', text: 'pending planner turn', agentId: 'planner', runId: 'r1' });
    await memory.appendTurn({ user: 'team', session: 'job', role: 'user', text: 'pending unscoped turn' });
    await memory.close();
    return s;
  }

  it('round-trips history (updates, deletes, successors) and scoped turns byte for byte, and history reads agree', async () => {
    const src = await source();
    const first = await dump(src);
    const lines = first.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ format: 3, chunks: 4, versions: 4, turns: 2 });
    expect(lines.filter((l) => l['type'] === 'version').map((l) => `${l['text']}:${l['cause']}`)).toEqual(['plan v1:update', 'plan v2:update', 'code v1:update', 'doomed:delete']);
    const dst = await loadInto(first, 'dst');
    try {
      expect(await dump(dst)).toBe(first);
      for (const e of await all(src.list('team', { includeDeleted: true }))) {
        expect(await dst.history('team', e.sessionId, e.chunkId)).toEqual(await src.history('team', e.sessionId, e.chunkId));
      }
      const deleted = (await all(dst.list('team', { includeDeleted: true }))).filter((e) => e.entry.state === 'deleted');
      expect(deleted).toHaveLength(1);
      expect(deleted[0]!.entry).toMatchObject({ agentId: 'coder', runId: 'r2', deletedAt: 1_750_000_003_000, supersededBy: { sessionId: 'job' } });
      expect((await dst.get('team', 'other', deleted[0]!.chunkId, { asOf: 1_750_000_000_500 }))?.text).toBe('doomed');
      expect((await dst.verify()).ok).toBe(true);
      expect((await dst.stats()).chunks).toBe((await src.stats()).chunks);
      // Idempotent: loading the same dump again changes nothing.
      const file = join(dir, 'dst.jsonl');
      await applyDumpFile(dst, file);
      expect(await dump(dst)).toBe(first);
    } finally {
      await dst.close();
      await src.close();
    }
  });

  it('exports one agent, one run, one user or one session; each loads into an empty database and dumps again identically', async () => {
    const src = await source();
    try {
      const scopes: [string, DumpOptions][] = [
        ['planner', { userId: 'team', agentId: 'planner' }],
        ['coder-r2', { agentId: 'coder', runId: 'r2' }],
        ['r1', { runId: 'r1' }],
        ['team-job', { userId: 'team', sessionId: 'job' }],
      ];
      for (const [name, opts] of scopes) {
        const text = await dump(src, opts);
        const dst = await loadInto(text, name);
        try {
          expect(await dump(dst, opts)).toBe(text);
          expect(await dump(dst)).toBe(text.replace(/^[^\n]*/, (h) => JSON.stringify({ ...JSON.parse(h), user: null, session: null, agent: null, run: null })));
        } finally {
          await dst.close();
        }
      }
      const planner = (await dump(src, { agentId: 'planner' })).trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(planner.map((l) => `${l['type']}:${l['text']}`)).toEqual(['chunk:plan v3', 'version:plan v1', 'version:plan v2', 'turn:pending planner turn']);
      const coderR2 = (await dump(src, { agentId: 'coder', runId: 'r2' })).trimEnd().split('\n');
      expect(coderR2.slice(1).map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['version']);
    } finally {
      await src.close();
    }
  });

  it('still reads a format-2 dump', async () => {
    const v2 = [
      '{"type":"header","format":2,"engineVersion":"0.1.0","user":null,"session":null,"chunks":1,"turns":1}',
      '{"type":"chunk","userId":"u","sessionId":"s","chunkId":"01ARZ3NDEKTSV4RRFFQ69G5FAV","version":2,"createdAt":1,"updatedAt":2,"tokenCount":1,"kind":"note","text":"old","keywords":[],"attributes":{},"payload":null,"supersedes":[],"provenance":[]}',
      '{"type":"turn","userId":"u","sessionId":"s","turnId":"t1","role":"user","text":"hi","at":5,"tokenCount":1}',
    ].join('\n');
    const dst = await loadInto(v2 + '\n', 'v2');
    try {
      expect((await dst.get('u', 's', '01ARZ3NDEKTSV4RRFFQ69G5FAV'))?.text).toBe('old');
      expect(await dump(dst)).toBe(
        v2.replace('"format":2', '"format":3').replace('"session":null,', '"session":null,"agent":null,"run":null,').replace('"chunks":1,', '"chunks":1,"versions":0,') + '\n',
      );
    } finally {
      await dst.close();
    }
  });

  it('refuses bad version lines before writing anything', async () => {
    const src = await source();
    const good = (await dump(src)).trimEnd().split('\n');
    await src.close();
    const idx = (pred: (o: Record<string, unknown>) => boolean): number => good.findIndex((l) => pred(JSON.parse(l) as Record<string, unknown>));
    const del = idx((o) => o['cause'] === 'delete');
    const upd = idx((o) => o['text'] === 'plan v1');
    const cases: [string, string[], RegExp][] = [
      ['a deleted chunk whose history does not end with its deletion', good.map((l, i) => (i === del ? l.replace('"cause":"delete"', '"cause":"update"') : l)), /must end with its deletion/],
      ['a version not older than the live one', good.map((l, i) => (i === upd ? l.replace('"version":1,', '"version":3,') : l)), /not older than its live version/],
      ['versions out of order', good.map((l, i) => (i === upd ? good[upd + 1]! : i === upd + 1 ? good[upd]! : l)), /oldest first/],
      ['a bad cause', good.map((l, i) => (i === upd ? l.replace('"cause":"update"', '"cause":"edit"') : l)), /"cause" must be/],
      ['a missing version line', good.filter((_, i) => i !== upd), /header says 4 versions/],
      ['an unknown field', good.map((l, i) => (i === upd ? l.replace('"validFrom"', '"extra":1,"validFrom"') : l)), /unknown field "extra"/],
    ];
    for (const [what, lines, reason] of cases) {
      const file = join(dir, 'bad.jsonl');
      await writeFile(file, lines.join('\n') + '\n');
      const v = await validateDumpFile(file);
      expect(v.ok, what).toBe(false);
      expect(v.problems.map((p) => p.reason).join('; '), what).toMatch(reason);
    }
  });

  it('restoreHistory validates its input with typed errors and changes nothing', async () => {
    const s = await open('api');
    try {
      const record = { userId: 'u', sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', version: 1, createdAt: 1, updatedAt: 1, tokenCount: 1, kind: 'note' as const, text: 'x', keywords: [], attributes: {}, payload: null, supersedes: [], provenance: [] };
      const ok = { record, validFrom: 1, validUntil: 2, cause: 'update' as const, supersededBy: null };
      const bad = [
        [{ ...ok, cause: 'edit' }],
        [{ ...ok, validUntil: Number.NaN }],
        [{ ...ok, record: { ...record, chunkId: 'nope' } }],
        [ok, ok],
        [{ ...ok, supersededBy: { sessionId: 's' } }],
        'not an array',
      ];
      for (const b of bad) {
        await expect(s.restoreHistory('u', b as never)).rejects.toSatisfy((e) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
      }
      expect(await s.history('u', 's', record.chunkId)).toEqual([]);
      expect((await s.stats()).chunks).toBe(0);
      const [r] = await s.restoreHistory('u', [{ ...ok, cause: 'delete' }]);
      expect(r).toMatchObject({ op: 'restoreHistory', version: 1 });
      expect((await s.history('u', 's', record.chunkId)).map((v) => v.cause)).toEqual(['delete']);
      const [again] = await s.restoreHistory('u', [{ ...ok, cause: 'delete' }]);
      expect(again!.skipped).toBe(true);
      expect((await s.verify()).ok).toBe(true);
    } finally {
      await s.close();
    }
  });
});

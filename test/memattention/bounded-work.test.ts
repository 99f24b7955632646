import { describe, expect, it } from 'vitest';
import type { WriteOp } from '../../src/api/requests.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { POSTINGS_READ_BUDGET } from '../../src/store/index/candidate-reader.js';
import { CountingModel, memoryStore, sentence } from './fixtures.js';

const U = 'alice';
const S = 's1';
const TOPICS = ['tea', 'jazz', 'hiking', 'chess', 'sailing', 'pottery', 'cycling', 'opera', 'baking', 'running'];
const BOUNDS = { candidateWindow: 16, candidatePrefilter: 8, topP: 5, recallTopP: 5 };

interface Work {
  /** Per compaction: model input tokens, metas shown to SELECT, records read, directory entries scanned. */
  compactions: { tokens: number; candidates: number; recordsRead: number; scanned: number }[];
  recall: { tokens: number; candidates: number; blocksTouched: number; chunks: number };
}

/** Seeds `history` memory chunks, then measures three compactions and one recall. */
async function measure(history: number): Promise<Work> {
  // Postings merged every 16 chunks, so the pending chunks a read adds stay below the window here too.
  const { store } = await memoryStore({ postingMergeAt: 16 });
  const ops: WriteOp[] = Array.from({ length: history }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length]!;
    return { op: 'put', sessionId: S, kind: 'memory', text: `user: ${sentence(topic, 20)} (${i})`, keywords: [topic, 'plans', 'weather'], tokenCount: 30, createdAt: 1_000 + i };
  });
  for (let i = 0; i < ops.length; i += 100) await store.write(U, ops.slice(i, i + 100));
  const model = new CountingModel(new EmbeddedModel());
  // Reads each append's CompactionResult: awaiting write-back.
  const memory = new AkashicMemory(store, { model, chunkGateTokens: 40, writeBack: 'await', ...BOUNDS });
  const work: Work = { compactions: [], recall: { tokens: 0, candidates: 0, blocksTouched: 0, chunks: 0 } };
  for (const topic of ['tea', 'chess', 'opera']) {
    model.reset();
    const r = await memory.appendTurn({ user: U, session: S, role: 'user', text: sentence(topic, 40) });
    const c = r.compacted!;
    work.compactions.push({ tokens: model.total, candidates: c.candidates, recordsRead: c.recordsRead, scanned: c.scanned });
  }
  model.reset();
  const rec = await memory.recall({ user: U, session: S, query: 'what about tea and chess plans?', memoryBudgetTokens: 100_000 });
  work.recall = { tokens: model.total, candidates: rec.candidates, blocksTouched: rec.blocksTouched, chunks: rec.chunks.length };
  await memory.close();
  await store.close();
  return work;
}

describe('bounded work per compaction and per recall', () => {
  it('model input and records read stay bounded as history grows 10×', async () => {
    const small = await measure(30);
    const large = await measure(300);
    const cap = BOUNDS.candidateWindow + BOUNDS.candidatePrefilter;
    for (const w of [small, large]) {
      for (const c of w.compactions) {
        expect(c.candidates).toBeLessThanOrEqual(cap);
        expect(c.recordsRead).toBeLessThanOrEqual(BOUNDS.topP);
      }
      expect(w.recall.candidates).toBeLessThanOrEqual(cap);
      expect(w.recall.chunks).toBeLessThanOrEqual(BOUNDS.topP);
      expect(w.recall.blocksTouched).toBeLessThanOrEqual(BOUNDS.topP);
    }
    const maxTokens = (w: Work): number => Math.max(...w.compactions.map((c) => c.tokens));
    // Same candidate count, same shapes: only id digits differ. 10× the history must not cost more than a few percent.
    expect(maxTokens(large)).toBeLessThanOrEqual(maxTokens(small) * 1.1);
    expect(large.recall.tokens).toBeLessThanOrEqual(small.recall.tokens * 1.1);
    // The metadata I/O that picks the candidates goes through the candidate index: bounded by the window and the
    // postings budget (plus the pending chunks, bounded by postingMergeAt), not by the history (a directory scan
    // would read 10× more here).
    for (const w of [small, large]) for (const c of w.compactions) expect(c.scanned).toBeLessThanOrEqual(BOUNDS.candidateWindow + POSTINGS_READ_BUDGET);
    expect(large.compactions[0]!.scanned).toBeLessThan(300);
    expect(large.compactions[0]!.scanned).toBeLessThanOrEqual(2 * small.compactions[0]!.scanned + cap);
  });
});

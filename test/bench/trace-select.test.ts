import { describe, expect, it } from 'vitest';
import { recordTrace } from '../../src/lab/bench/trace.js';
import { isAkashicError } from '../../src/errors.js';
import { checkSelectVariant, selectSetup } from '../../src/model/select-variants.js';
import { WordMeanEmbedder } from '../../src/model/word-mean-embedder.js';
import { cosine } from '../../src/util/cosine.js';
import { generateSynthetic } from '../../src/lab/workload/index.js';

describe('traces recorded with another SELECT', () => {
  it('dense: every request recalls the live chunks nearest its query by the embedder', async () => {
    const conversations = generateSynthetic({ users: 1, sessionsPerUser: 6, turnsPerSession: 8, questionsPerUser: 0, seed: 3 });
    const trace = await recordTrace(conversations, 'test', { kind: 'admission', select: 'dense' });
    const embedder = await WordMeanEmbedder.offline();
    const live = new Map<string, Float32Array>();
    let checked = 0;
    for (const e of trace.events) {
      if (e.kind === 'write') {
        for (const op of e.ops) {
          if (op.op === 'delete') live.delete(op.chunkId);
          else live.set(op.chunkId, (await embedder.embed([op.text]))[0]!);
        }
        continue;
      }
      const [q] = await embedder.embed([e.query]);
      const nearest = [...live.entries()]
        .map(([id, v]) => ({ id, score: cosine(q!, v) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5);
      // The recall keeps the chunks whose passages pass the relevance floor: a non-empty subset of SELECT's five.
      expect(e.recall.length).toBeLessThanOrEqual(Math.min(5, live.size));
      if (live.size > 0) expect(e.recall.length).toBeGreaterThan(0);
      // Ties in cosine may pick either chunk, so each recalled chunk is compared by score with the fifth nearest.
      const fifth = nearest[Math.min(5, nearest.length) - 1]?.score ?? -Infinity;
      for (const c of e.recall) expect(cosine(q!, live.get(c.chunkId)!), `request ${e.index}`).toBeGreaterThanOrEqual(fifth - 1e-6);
      if (live.size > 0) checked++;
    }
    expect(checked).toBeGreaterThan(5);
  }, 60_000);

  it('names the variants a report can carry, and refuses any other', async () => {
    expect((await selectSetup('lexical')).embedder).toBeUndefined();
    const hybrid = await selectSetup('hybrid');
    expect(hybrid.embedder?.id).toMatch(/^word-mean-sif:/u);
    expect(hybrid.experiment).toBe(false);
    expect((await selectSetup('dense')).experiment).toBe(true);
    let code = '';
    try {
      checkSelectVariant('semantic');
    } catch (err) {
      code = isAkashicError(err) ? err.code : String(err);
    }
    expect(code).toBe('AKASHIC_INVALID_ARGUMENT');
  });
});

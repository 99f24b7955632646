import { describe, expect, it } from 'vitest';
import { recordTrace, type Trace, type TraceEvent } from '../../src/lab/bench/trace.js';
import { generateSynthetic } from '../../src/lab/workload/index.js';

/** A trace without what depends on the clock (generated chunk ids, times): texts, queries and set sizes. */
function shape(t: Trace): unknown[] {
  return t.events.map((e: TraceEvent) =>
    e.kind === 'write'
      ? { user: e.user, ops: e.ops.map((o) => (o.op === 'delete' ? o.op : `${o.op}:${o.text}`)) }
      : { user: e.user, index: e.index, query: e.query, recalled: e.recall.length },
  );
}

describe('trace recording in worker threads', () => {
  it('records the same admission trace as one thread, users interleaved the same way', async () => {
    const conversations = generateSynthetic({ users: 2, sessionsPerUser: 2, turnsPerSession: 8, questionsPerUser: 0, seed: 4, followUpChance: 0.5 });
    const one = await recordTrace(conversations, 'test', { kind: 'admission' });
    const two = await recordTrace(conversations, 'test', { kind: 'admission', workers: 2 });
    expect(one.requests).toBeGreaterThan(0);
    expect(two.requests).toBe(one.requests);
    expect(two.chunksWritten).toBe(one.chunksWritten);
    expect(shape(two)).toEqual(shape(one));
  }, 60_000);
});

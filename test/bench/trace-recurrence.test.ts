import { describe, expect, it } from 'vitest';
import type { Trace, TraceEvent } from '../../src/lab/bench/trace.js';
import { traceRecurrence } from '../../src/lab/bench/trace-recurrence.js';

const put = (user: string, ids: string[]): TraceEvent => ({
  kind: 'write',
  user,
  ops: ids.map((chunkId) => ({ op: 'put' as const, sessionId: 's', chunkId, createdAt: 0, text: chunkId, tokenCount: 1, keywords: [], provenance: [] })),
  neighbours: ids.map(() => []),
});
const ask = (user: string, index: number, ids: string[]): TraceEvent => ({
  kind: 'request',
  user,
  index,
  category: 0,
  oracle: [],
  recall: ids.map((chunkId) => ({ sessionId: 's', chunkId })),
  evidenceFound: false,
  query: '',
  sessionId: 's',
});
const trace = (events: TraceEvent[]): Trace => ({ kind: 'admission', source: 'test', users: 2, events, chunksWritten: 0, requests: 0, recordMs: 0 });

describe('trace recurrence figures', () => {
  it('counts overlap with the previous request, exact repeats and pairs seen before, per user', () => {
    const r = traceRecurrence(
      trace([
        put('u', ['a', 'b', 'c', 'd']),
        ask('u', 0, ['a', 'b']),
        ask('u', 1, ['b', 'a']), // same set: overlap 1, exact repeat, its one pair seen before
        ask('u', 2, ['c', 'd']), // overlap 0, new set, new pair
        ask('u', 3, []), // empty sets are not requests here
      ]),
    );
    expect(r.overlapWithPrevious).toBeCloseTo(0.5);
    expect(r.exactSetRecurs).toBeCloseTo(1 / 3);
    expect(r.pairsSeenBefore).toBeCloseTo(1 / 3);
    expect(r.recalledShareOfChunks).toBe(1);
  });

  it('never compares one user with another, and averages users', () => {
    const r = traceRecurrence(trace([put('u', ['a', 'b']), put('v', ['a', 'b', 'x', 'y']), ask('u', 0, ['a', 'b']), ask('v', 1, ['a', 'b']), ask('v', 2, ['x', 'y'])]));
    expect(r.exactSetRecurs).toBe(0);
    expect(r.pairsSeenBefore).toBe(0);
    expect(r.overlapWithPrevious).toBe(0); // only v has two requests, and they share nothing
    expect(r.recalledShareOfChunks).toBeCloseTo((1 + 1) / 2);
  });

  it('is null on a trace without recalls', () => {
    expect(traceRecurrence(trace([put('u', ['a'])]))).toEqual({ overlapWithPrevious: null, exactSetRecurs: null, pairsSeenBefore: null, recalledShareOfChunks: null });
  });
});

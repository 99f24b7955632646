import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MalformedReplyError,
  checkJointCompact,
  parseReply,
  repairPartition,
  selectReply,
} from '../../src/model/llm-replies.js';

describe('parseReply', () => {
  it('accepts JSON, also inside a Markdown json fence', () => {
    expect(parseReply('{"ids":["a"]}', selectReply)).toEqual({ ids: ['a'] });
    expect(parseReply('```json\n{"ids":["b"]}\n```', selectReply)).toEqual({ ids: ['b'] });
  });

  it('rejects empty, non-JSON and mis-shaped content as MalformedReplyError', () => {
    for (const content of [null, '', 'nope', '{"ids": "a"}', '[]']) {
      expect(() => parseReply(content, selectReply)).toThrowError(MalformedReplyError);
    }
  });
});

describe('checkJointCompact', () => {
  const related = new Set(['r1', 'r2']);

  it('rejects updates or deletions of chunks that were not offered', () => {
    expect(() => checkJointCompact({ text: '', updates: [{ id: 'x', text: '' }], deletions: [] }, related)).toThrowError(
      MalformedReplyError,
    );
    expect(() => checkJointCompact({ text: '', updates: [], deletions: ['x'] }, related)).toThrowError(MalformedReplyError);
  });

  it('rejects a chunk both updated and deleted', () => {
    expect(() =>
      checkJointCompact({ text: '', updates: [{ id: 'r1', text: '' }], deletions: ['r1'] }, related),
    ).toThrowError(MalformedReplyError);
  });
});

describe('repairPartition', () => {
  it('always yields a partition of the input ids', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 15 }),
        fc.array(fc.array(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 6 }), { maxLength: 6 }),
        (ids, groups) => {
          const out = repairPartition(groups, ids);
          expect(out.flat().sort()).toEqual([...ids].sort());
          for (const group of out) expect(group.length).toBeGreaterThan(0);
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { ownBytes } from '../../src/util/own-bytes.js';

describe('ownBytes (what caches keep of a value read from a backend)', () => {
  it('keeps a buffer that is the whole of its memory as it is', () => {
    const own = Buffer.alloc(1300, 7);
    expect(ownBytes(own)).toBe(own);
  });

  it('copies a view into a larger buffer, so the larger buffer is not kept alive, with the same bytes', () => {
    const page = Buffer.alloc(64 * 1024, 1);
    page.write('value', 100);
    for (const view of [page.subarray(100, 105), page.subarray(0, 10), Buffer.from('short')]) {
      const kept = ownBytes(view);
      expect(kept).not.toBe(view);
      expect(kept.equals(view)).toBe(true);
      // Memory of its own: not the page, nor Node's shared pool of small buffers.
      expect(kept.buffer.byteLength).toBe(view.byteLength);
      expect(ownBytes(kept)).toBe(kept);
    }
    expect(ownBytes(page.subarray(100, 105)).toString()).toBe('value');
  });
});

import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRetry } from '../../src/backend/redis/redis-connection.js';

/** A cluster client that never connects, whose slot map refreshes are counted (and answered, or not). */
function client(answers: boolean): { readonly c: Cluster; readonly refreshes: () => number } {
  const c = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
  let n = 0;
  c.refreshSlotsCache = ((cb?: (err?: Error) => void) => {
    n++;
    if (answers) cb?.();
  }) as Cluster['refreshSlotsCache'];
  return { c, refreshes: () => n };
}

describe('a retry after MOVED', () => {
  it('refreshes the slot map before trying again, and only for MOVED', async () => {
    const { c, refreshes } = client(true);
    let calls = 0;
    const v = await withRetry(5_000, async () => {
      calls++;
      if (calls === 1) throw new Error('MOVED 1795 127.0.0.1:7400');
      if (calls === 2) throw new Error('TRYAGAIN Multiple keys request during rehashing of slot');
      return 'ok';
    }, { client: c });
    expect(v).toBe('ok');
    expect(calls).toBe(3);
    expect(refreshes()).toBe(1);
    c.disconnect();
  });

  it('goes on when the refresh never answers, within its wait', async () => {
    const { c, refreshes } = client(false);
    let calls = 0;
    const t = Date.now();
    const v = await withRetry(10_000, async () => {
      calls++;
      if (calls === 1) throw new Error('MOVED 1795 127.0.0.1:7400');
      return 'ok';
    }, { client: c });
    expect(v).toBe('ok');
    expect(refreshes()).toBe(1);
    expect(Date.now() - t).toBeLessThan(5_000);
    c.disconnect();
  });
});

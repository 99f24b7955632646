import { it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { memoryEngine } from './engines.js';
import { AkashicLangGraphStore } from '../../src/adapters/langgraph/index.js';
const calls = (): number => [7500, 7501, 7502].map((p) => execFileSync('redis-cli', ['-p', String(p), 'info', 'commandstats'], { encoding: 'utf8' })).reduce((a, s) => a + [...s.matchAll(/cmdstat_(evalsha|eval|hget|hmget|get|exists|smembers|multi|sadd):calls=(\d+)/g)].reduce((x, m) => x + Number(m[2]), 0), 0);
it('prof', async () => {
  const e = await memoryEngine();
  const s = new AkashicLangGraphStore({ store: e });
  for (let i = 0; i < 10; i++) await s.put(['a', 'b'], 'k' + i, { x: i });
  const ops: Record<string, () => Promise<unknown>> = { put: () => s.put(['a', 'b'], 'k1', { x: 9 }), get: () => s.get(['a', 'b'], 'k1'), search: () => s.search(['a']), list: () => s.listNamespaces({}) };
  for (const [n, f] of Object.entries(ops)) {
    const c0 = calls(); const t = performance.now();
    for (let i = 0; i < 10; i++) await f();
    const ms = (performance.now() - t) / 10; const c1 = calls();
    console.log(n, 'ms/op', ms.toFixed(1), 'client commands/op', ((c1 - c0) / 10).toFixed(1));
  }
  await e.close();
});

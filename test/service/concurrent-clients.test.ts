/**
 * Many clients at once over loopback: every acknowledged write is there afterwards, reads see them, and a client
 * that stalls mid-request does not hold up the others.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteMemory, RemoteStore } from '../../src/client/index.js';
import { TEST_ENGINE } from '../support/test-engine.js';
import { inProcessService } from './service-helpers.js';

let svc: Awaited<ReturnType<typeof inProcessService>>;
beforeAll(async () => {
  svc = await inProcessService({ memoryOptions: { chunkGateTokens: 1_000_000 } });
});
afterAll(() => svc.stop());

describe('64 concurrent clients', () => {
  it('land every append and every put, and read them back', async () => {
    const CLIENTS = 64;
    // Over Redis every write waits for the node's fsync (appendfsync always): 3 rounds per client keep the same
    // 64-way concurrency on 8 users at a fraction of the time.
    const PER = TEST_ENGINE === 'redis' ? 3 : 8;
    const acked: { user: string; session: string; chunkId: string }[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const memory = new RemoteMemory({ baseUrl: svc.service.url });
        const store = new RemoteStore({ baseUrl: svc.service.url });
        const user = `u${c % 8}`;
        for (let i = 0; i < PER; i++) {
          await memory.appendTurn({ user, session: `c${c}`, role: 'user', text: `client ${c} says ${i}` });
          const { chunkId } = await store.put(user, { sessionId: `notes${c}`, text: `note ${i} of ${c}` });
          acked.push({ user, session: `notes${c}`, chunkId });
          await memory.recall({ user, session: `c${c}`, query: `says ${i}` });
        }
      }),
    );
    expect(acked).toHaveLength(CLIENTS * PER);
    for (let c = 0; c < CLIENTS; c++) {
      const turns = await svc.service.memory.activeTurns({ user: `u${c % 8}`, session: `c${c}` });
      expect(turns.map((t) => t.text)).toEqual(Array.from({ length: PER }, (_, i) => `client ${c} says ${i}`));
    }
    const store = new RemoteStore({ baseUrl: svc.service.url });
    for (const a of acked) expect((await store.get(a.user, a.session, a.chunkId))?.text).toMatch(/^note \d+ of \d+$/);
  });
});

describe('a slow client', () => {
  it('that sends half a body does not stall the others', async () => {
    const { port } = new URL(svc.service.url);
    const slow = connect(Number(port), '127.0.0.1');
    let answered = false;
    slow.on('data', () => (answered = true));
    await new Promise<void>((r) => slow.once('connect', () => r()));
    slow.write('POST /v1/store/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const store = new RemoteStore({ baseUrl: svc.service.url });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.put('patient', { sessionId: 's', text: `served ${i}` })));
    expect(results).toHaveLength(50);
    expect(await store.sessions('patient')).toEqual(['s']);
    expect(answered).toBe(false); // still waiting for its body, while 50 others were served
    slow.destroy();
  });
});

/**
 * The database the behaviour suites (MemAttention, the adapters) open their stores on: memory-level by default, or a
 * fresh prefix on the suite's Redis deployment when `AKASHIC_TEST_ENGINE=redis` (the `redis` vitest project sets it).
 * One switch, so the same test files run over both without copies.
 *
 * On Redis every fresh database is a prefix of its own; `test/support/test-engine-setup.ts` (the `redis` project's
 * setup file) closes the stores a file left open and drops its prefixes after the file.
 */
import { MemoryLevel } from 'memory-level';
import type { AnyLevel } from '../../src/api/store-options.js';
import { RedisLevel } from '../../src/backend/redis/redis-level.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from './redis-test-url.js';

export type TestEngineName = 'memory-level' | 'redis';

/** Which engine this run's behaviour suites use. */
export const TEST_ENGINE: TestEngineName = process.env['AKASHIC_TEST_ENGINE'] === 'redis' ? 'redis' : 'memory-level';

/** A fresh, empty database and a way to get a handle on the same data again after the first one was closed. */
export interface FreshDb {
  readonly db: AnyLevel;
  /** A handle on the same data (memory-level: the same object, which the engine reopens; Redis: a new connection). */
  again(): AnyLevel;
}

const prefixes: string[] = [];
const closers: (() => Promise<void>)[] = [];

/** Registers a store (or anything with `close`) to close after the file if the test did not. */
export function closeAfterFile(closable: { close(): Promise<unknown> }): void {
  closers.push(async () => {
    await closable.close();
  });
}

export function freshDb(): FreshDb {
  // Without a deployment the setup file skips every test of the redis project; hooks that open a store before
  // the skip still get one, on memory-level.
  if (TEST_ENGINE === 'memory-level' || REDIS_URL === null) {
    const db = new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    return { db, again: () => db };
  }
  const prefix = testPrefix();
  prefixes.push(prefix);
  const open = (): AnyLevel => new RedisLevel({ url: urlWithPrefix(prefix), keyEncoding: 'utf8', valueEncoding: 'buffer' });
  return { db: open(), again: open };
}

/** Closes what the file left open, then deletes every prefix it created. Called by the setup file after each file. */
export async function releaseTestEngine(): Promise<void> {
  const pending = closers.splice(0);
  for (const close of pending) await close().catch(() => undefined);
  const mine = prefixes.splice(0);
  for (const p of mine) await dropPrefix(p);
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AkashicStore as Engine, type AkashicStoreOptions } from '../../src/index.js';
import { TEST_ENGINE, closeAfterFile, freshDb } from '../support/test-engine.js';

type EngineTweaks = Omit<AkashicStoreOptions, 'db' | 'path' | 'url'>;

/** Names the engine `memoryEngine` opens on and the one `diskEngine` opens on, for test titles. */
export const MEMORY_ENGINE_NAME: string = TEST_ENGINE;
export const DURABLE_ENGINE_NAME: string = TEST_ENGINE === 'redis' ? 'redis' : 'classic-level';

const quiet = { gc: { intervalMs: 0 }, durability: 'relaxed' } as const;

async function track(engine: Promise<Engine>): Promise<Engine> {
  const e = await engine;
  if (TEST_ENGINE === 'redis') closeAfterFile(e);
  return e;
}

/**
 * A quiet engine (no background GC, relaxed durability) over a fresh database of the run's test engine:
 * memory-level, or a Redis prefix of its own under AKASHIC_TEST_ENGINE=redis.
 */
export function memoryEngine(tweaks: EngineTweaks = {}): Promise<Engine> {
  return track(Engine.open({ ...quiet, ...tweaks, db: freshDb().db }));
}

/**
 * An engine whose data outlives it: `reopen` opens the same data again after close. classic-level in a fresh temp
 * directory, or under AKASHIC_TEST_ENGINE=redis a Redis prefix of its own (reopened over a new connection).
 */
export async function diskEngine(): Promise<{ engine: Engine; reopen(): Promise<Engine>; cleanup(): Promise<void> }> {
  if (TEST_ENGINE === 'redis') {
    const fresh = freshDb();
    return { engine: await track(Engine.open({ ...quiet, db: fresh.db })), reopen: () => track(Engine.open({ ...quiet, db: fresh.again() })), cleanup: async () => undefined };
  }
  const dir = await mkdtemp(join(tmpdir(), 'akashic-adapter-'));
  const path = join(dir, 'db');
  const open = (): Promise<Engine> => Engine.open({ ...quiet, path });
  return { engine: await open(), reopen: open, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The engines a suite over "every backend" opens: memory-level and classic-level, or under AKASHIC_TEST_ENGINE=redis
 * only Redis (the classic-level run belongs to the default tier).
 */
export function durableEngines(): readonly (readonly [string, () => Promise<{ engine: Engine; cleanup(): Promise<void> }>])[] {
  const onTestEngine = async (): Promise<{ engine: Engine; cleanup(): Promise<void> }> => ({ engine: await memoryEngine(), cleanup: async () => undefined });
  if (TEST_ENGINE === 'redis') return [['redis', onTestEngine]];
  return [
    ['memory-level', onTestEngine],
    ['classic-level', diskEngine],
  ];
}

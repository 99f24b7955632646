import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { AkashicStore as Engine } from '../../src/index.js';

/** A quiet engine (no background GC, relaxed durability) over memory-level. */
export function memoryEngine(): Promise<Engine> {
  return Engine.open({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }), gc: { intervalMs: 0 }, durability: 'relaxed' });
}

/** An engine over classic-level in a fresh temp directory; `reopen` opens the same directory again after close. */
export async function diskEngine(): Promise<{ engine: Engine; reopen(): Promise<Engine>; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'akashic-adapter-'));
  const path = join(dir, 'db');
  const open = (): Promise<Engine> => Engine.open({ path, gc: { intervalMs: 0 }, durability: 'relaxed' });
  return { engine: await open(), reopen: open, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

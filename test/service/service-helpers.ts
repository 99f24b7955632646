import { AkashicStore } from '../../src/index.js';
import { TEST_ENGINE, closeAfterFile, freshDb } from '../support/test-engine.js';
import { ApiKeys, hashApiKey, startService, type RunningService, type ServiceOptions } from '../../src/service/index.js';

/** A quiet store (no background GC) over a fresh database of the run's test engine: memory-level, or a Redis prefix. */
export async function memoryStore(): Promise<AkashicStore> {
  const store = await AkashicStore.open({ db: freshDb().db, gc: { intervalMs: 0 }, durability: 'relaxed' });
  if (TEST_ENGINE === 'redis') closeAfterFile(store);
  return store;
}

/** Two tenants and an admin: key-a owns alice and every `a:` user, key-b owns bob and every `b:` user. */
export const KEYS = { a: 'key-a-secret', b: 'key-b-secret', admin: 'key-admin-secret' } as const;

export function tenantKeys(): ApiKeys {
  return new ApiKeys([
    { name: 'tenant-a', sha256: hashApiKey(KEYS.a), users: ['alice'], userPrefix: 'a:' },
    { name: 'tenant-b', sha256: hashApiKey(KEYS.b), users: ['bob'], userPrefix: 'b:' },
    { name: 'ops', sha256: hashApiKey(KEYS.admin), admin: true },
  ]);
}

/** A service on a free loopback port over a fresh store (see memoryStore); `stop` closes both. */
export async function inProcessService(opts: Omit<ServiceOptions, 'store' | 'db'> = {}): Promise<{ service: RunningService; stop(): Promise<void> }> {
  const store = await memoryStore();
  const service = await startService({ port: 0, ...opts, store });
  return {
    service,
    stop: async () => {
      await service.close();
      await store.close();
    },
  };
}

/** POSTs JSON (or a raw string) and returns the status and parsed body. */
export async function post(url: string, body: unknown, key?: string, raw = false): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }) },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // NDJSON or text: the caller reads it as text
  }
  return { status: res.status, body: parsed };
}

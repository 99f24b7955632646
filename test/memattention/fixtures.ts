/** Stores, models and builders shared by the MemAttention tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import type { AkashicStoreOptions } from '../../src/api/store-options.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { extractKeywords } from '../../src/model/keywords.js';
import type {
  ChunkBodyView,
  ChunkMetaView,
  CoAccessView,
  CompressResult,
  JointCompactResult,
  MemoryModel,
  MetaResult,
  ModelTurn,
} from '../../src/model/memory-model.js';
import { createTokenizer } from '../../src/model/tokenizer.js';
import type { AnyLevel } from '../../src/api/store-options.js';
import { TEST_ENGINE, closeAfterFile, freshDb } from '../support/test-engine.js';
import { reportModelUsage } from '../../src/util/model-usage.js';

export const tokenizer = createTokenizer();

type StoreTweaks = Omit<AkashicStoreOptions, 'db' | 'path'>;

/**
 * A store over a fresh database of the run's test engine (memory-level, or a Redis prefix of its own under
 * AKASHIC_TEST_ENGINE=redis), background GC off. `reopen` opens a store over the same data again (after `close`).
 */
export async function memoryStore(tweaks: StoreTweaks = {}): Promise<{ store: AkashicStore; db: AnyLevel; reopen(): Promise<AkashicStore> }> {
  const fresh = freshDb();
  const options = { ...tweaks, gc: { intervalMs: 0 } };
  const open = async (db: AnyLevel): Promise<AkashicStore> => {
    const store = await AkashicStore.open({ ...options, db });
    if (TEST_ENGINE === 'redis') closeAfterFile(store);
    return store;
  };
  return { store: await open(fresh.db), db: fresh.db, reopen: () => open(fresh.again()) };
}

/** A store in a fresh classic-level temp dir; `cleanup` closes nothing, it removes the directory. */
export async function classicStore(tweaks: StoreTweaks = {}): Promise<{ store: AkashicStore; path: string; reopen(): Promise<AkashicStore>; cleanup(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'akashic-memattention-'));
  const options = { ...tweaks, gc: { intervalMs: 0 }, durability: 'relaxed' as const };
  const store = await AkashicStore.open({ ...options, path });
  return {
    store,
    path,
    reopen: () => AkashicStore.open({ ...options, path }),
    cleanup: () => rm(path, { recursive: true, force: true }),
  };
}

/** A store whose data outlives it, with what to remove after the test. */
export interface DurableStore {
  store: AkashicStore;
  reopen(): Promise<AkashicStore>;
  cleanup(): Promise<void>;
}

/**
 * The backends a suite that reopens its store runs over: memory-level and classic-level, or under
 * AKASHIC_TEST_ENGINE=redis only Redis (the classic-level run belongs to the default tier).
 */
export function durableStores(): readonly (readonly [string, (tweaks?: StoreTweaks) => Promise<DurableStore>])[] {
  const onTestEngine = async (tweaks: StoreTweaks = {}): Promise<DurableStore> => ({ ...(await memoryStore(tweaks)), cleanup: async () => undefined });
  if (TEST_ENGINE === 'redis') return [['redis', onTestEngine]];
  return [
    ['memory-level', onTestEngine],
    ['classic-level', classicStore],
  ];
}

/** Every chunk metadata entry (live by default) of a user, in key order. */
export async function listAll(store: AkashicStore, user: string, opts: { sessionId?: string; includeDeleted?: boolean } = {}) {
  const out = [];
  for await (const e of store.list(user, opts)) out.push(e);
  return out;
}

/** A turn of about `words` words that mentions `topic`. */
export function sentence(topic: string, words = 12): string {
  const filler = ['today', 'we', 'talked', 'about', 'plans', 'and', 'the', 'weather', 'was', 'mild', 'again', 'really'];
  const out = [`I like ${topic}.`];
  for (let i = 0; i < words; i++) out.push(filler[i % filler.length]!);
  return out.join(' ');
}

/** Arguments a model method received, recorded by ScriptedModel. */
export interface ModelCalls {
  compress: ModelTurn[][];
  select: { query: { text: string; keywords: readonly string[] }; candidates: ChunkMetaView[]; topP: number }[];
  jointCompact: { fresh: { text: string; keywords: readonly string[] }; related: ChunkBodyView[] }[];
  colocate: ChunkMetaView[][];
}

/**
 * A MemoryModel whose decisions the test scripts. Defaults: COMPRESS joins `role: text` lines; BUILDMETA is the
 * lexical extractor; SELECT is the embedded BM25 ranking; JOINT-COMPACT keeps the fresh text and changes nothing;
 * COLOCATE puts everything given into one group. Override any step with the hooks.
 */
export class ScriptedModel implements MemoryModel {
  readonly name = 'scripted';
  readonly calls: ModelCalls = { compress: [], select: [], jointCompact: [], colocate: [] };
  readonly #embedded = new EmbeddedModel();
  selectHook: ((query: { text: string; keywords: readonly string[] }, candidates: readonly ChunkMetaView[], topP: number) => Promise<string[]>) | null = null;
  jointHook: ((fresh: { text: string; keywords: readonly string[] }, related: readonly ChunkBodyView[]) => Promise<JointCompactResult>) | null = null;

  async compress(turns: readonly ModelTurn[]): Promise<CompressResult> {
    this.calls.compress.push([...turns]);
    return { text: turns.map((t) => `${t.role}: ${t.text}`).join('\n') };
  }

  async buildMeta(text: string): Promise<MetaResult> {
    return { keywords: extractKeywords(text, 12) };
  }

  async select(query: { text: string; keywords: readonly string[] }, candidates: readonly ChunkMetaView[], topP: number): Promise<string[]> {
    this.calls.select.push({ query, candidates: [...candidates], topP });
    if (this.selectHook !== null) return this.selectHook(query, candidates, topP);
    return this.#embedded.select(query, candidates, topP);
  }

  async jointCompact(fresh: { text: string; keywords: readonly string[] }, related: readonly ChunkBodyView[]): Promise<JointCompactResult> {
    this.calls.jointCompact.push({ fresh, related: [...related] });
    if (this.jointHook !== null) return this.jointHook(fresh, related);
    return { text: fresh.text, updates: [], deletions: [] };
  }

  async colocate(chunks: readonly ChunkMetaView[], _coAccess: CoAccessView, _tauAssoc: number): Promise<string[][]> {
    this.calls.colocate.push([...chunks]);
    return [chunks.map((c) => c.id)];
  }

  async group(chunks: readonly ChunkMetaView[], _coAccess: CoAccessView): Promise<string[][]> {
    return [chunks.map((c) => c.id)];
  }
}

/** Wraps a model and counts, per call, the tokens of its JSON-serialized input. */
export class CountingModel implements MemoryModel {
  readonly name: string;
  readonly #inner: MemoryModel;
  /** Input tokens per method since the last `reset()`. */
  tokens: Record<string, number> = {};

  constructor(inner: MemoryModel) {
    this.#inner = inner;
    this.name = `counting:${inner.name}`;
  }

  reset(): void {
    this.tokens = {};
  }

  get total(): number {
    return Object.values(this.tokens).reduce((a, b) => a + b, 0);
  }

  #count(method: string, args: unknown[]): void {
    // Maps (co-access views) serialize as {}; they carry no text the model would read as tokens.
    this.tokens[method] = (this.tokens[method] ?? 0) + tokenizer.count(JSON.stringify(args));
  }

  compress(turns: readonly ModelTurn[]): Promise<CompressResult> {
    this.#count('compress', [turns]);
    return this.#inner.compress(turns);
  }

  buildMeta(text: string): Promise<MetaResult> {
    this.#count('buildMeta', [text]);
    return this.#inner.buildMeta(text);
  }

  select(query: { text: string; keywords: readonly string[] }, candidates: readonly ChunkMetaView[], topP: number): Promise<string[]> {
    this.#count('select', [query, candidates, topP]);
    return this.#inner.select(query, candidates, topP);
  }

  jointCompact(fresh: { text: string; keywords: readonly string[] }, related: readonly ChunkBodyView[]): Promise<JointCompactResult> {
    this.#count('jointCompact', [fresh, related]);
    return this.#inner.jointCompact(fresh, related);
  }

  colocate(chunks: readonly ChunkMetaView[], coAccess: CoAccessView, tauAssoc: number): Promise<string[][]> {
    this.#count('colocate', [chunks, tauAssoc]);
    return this.#inner.colocate(chunks, coAccess, tauAssoc);
  }

  group(chunks: readonly ChunkMetaView[], coAccess: CoAccessView): Promise<string[][]> {
    return this.#inner.group(chunks, coAccess);
  }
}

/** The embedded model's decisions, each call reporting fixed server-style usage, as a remote model would. */
export function reportingModel(): MemoryModel {
  const inner = new EmbeddedModel({ denseSignal: false });
  const report = (promptTokens: number, completionTokens: number): void => reportModelUsage({ promptTokens, completionTokens, model: 'reporting' });
  return {
    name: 'reporting',
    compress: async (turns) => (report(100, 20), inner.compress(turns)),
    buildMeta: async (text) => (report(10, 5), inner.buildMeta(text)),
    select: async (q, c, p) => (report(30, 2), inner.select(q, c, p)),
    jointCompact: async (f, r) => (report(40, 8), inner.jointCompact(f, r)),
    colocate: async (c, co, t) => (report(7, 1), inner.colocate(c, co, t)),
    group: async (c, co) => (report(9, 1), inner.group(c, co)),
  };
}

/**
 * MemAttention's side of the MemoryModel contract: every call goes through here, so that a model that throws a
 * non-Akashic error, or answers outside its contract (an id it was not given, an id both updated and deleted),
 * fails the whole operation with AKASHIC_MODEL before anything is applied.
 * @internal
 */
import { AkashicError, isAkashicError } from '../errors.js';
import type {
  ChunkBodyView,
  ChunkMetaView,
  CoAccessView,
  JointCompactResult,
  MemoryModel,
  ModelTurn,
} from '../model/memory-model.js';
import { LIMITS } from '../api/chunk-input.js';
import type { Tokenizer } from '../model/tokenizer.js';
import { collectModelUsage, noteReceipt, type CollectedUsage, type ModelCallKind } from '../util/model-usage.js';
import { modelContract } from './layer-errors.js';

/** A validated JOINT-COMPACT answer. */
export interface CheckedJoint {
  readonly text: string;
  readonly updates: readonly { readonly id: string; readonly text: string }[];
  readonly deletions: readonly string[];
  /** Why, by id of an updated or deleted chunk (only ids the model changed, each at most MAX_REASON_CHARS). */
  readonly reasons: ReadonlyMap<string, string>;
}

/** Longest reason kept per changed chunk (a longer one is cut): an explanation, not a second copy of the text. */
const MAX_REASON_CHARS = 2000;

async function settle<T>(fn: () => Promise<T>): Promise<{ value?: T; error?: unknown; failed: boolean; usage: CollectedUsage | null }> {
  try {
    return { value: await fn(), failed: false, usage: null };
  } catch (error) {
    return { error, failed: true, usage: null };
  }
}

export class CheckedModel {
  readonly #m: MemoryModel;
  readonly #tokenizer: Tokenizer | null;

  /** `tokenizer` estimates the tokens of calls whose model reports no usage (else ~4 characters a token). */
  constructor(model: MemoryModel, tokenizer: Tokenizer | null = null) {
    this.#m = model;
    this.#tokenizer = tokenizer;
  }

  get name(): string {
    return typeof this.#m.name === 'string' ? this.#m.name : 'unnamed';
  }

  /**
   * One model call, with its cost receipt noted for the operation around it (`withReceipts`): the usage the model
   * reported, else the tokenizer's estimate over the call's input and output.
   */
  async #call<T>(what: ModelCallKind, fn: () => Promise<T>, input: () => unknown): Promise<T> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const local = this.#m.local === true;
    const r = local ? await settle(fn) : await collectModelUsage(fn);
    const latencyMs = performance.now() - t0;
    const u = r.usage;
    const estimated = !local && (u === null || !u.tokensReported);
    noteReceipt({
      call: what,
      model: u?.model ?? this.name,
      promptTokens: local ? 0 : estimated ? this.#estimate(input()) : u!.promptTokens,
      completionTokens: local ? 0 : estimated ? (r.failed ? 0 : this.#estimate(r.value)) : u!.completionTokens,
      usageSource: local ? 'local' : estimated ? 'estimated' : u!.local ? 'local' : 'server',
      startedAt,
      latencyMs,
      retries: u?.retries ?? 0,
      ok: !r.failed,
    });
    if (!r.failed) return r.value as T;
    const err = r.error;
    if (isAkashicError(err)) throw err;
    throw new AkashicError('AKASHIC_MODEL', `model ${this.name} ${what} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }

  #estimate(v: unknown): number {
    let text: string;
    try {
      text = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
    } catch {
      return 0;
    }
    return this.#tokenizer === null ? Math.ceil(text.length / 4) : this.#tokenizer.count(text);
  }

  #text(what: string, v: unknown): string {
    if (typeof v !== 'string') throw modelContract(this.name, what, `returned ${typeof v} instead of text`);
    if (!v.isWellFormed()) throw modelContract(this.name, what, 'returned text with a lone UTF-16 surrogate');
    const bytes = Buffer.byteLength(v, 'utf8');
    if (bytes > LIMITS.textBytes) throw modelContract(this.name, what, `returned ${bytes} bytes of text; a chunk holds at most ${LIMITS.textBytes}`);
    return v;
  }

  /** The model's passage scores, or null when it has no `scorePassages`. */
  async scorePassages(query: { text: string; keywords: readonly string[] }, passages: readonly string[]): Promise<number[] | null> {
    const m = this.#m;
    if (typeof m.scorePassages !== 'function') return null;
    const r: unknown = await this.#call('scorePassages', () => m.scorePassages!(query, passages), () => [query, passages]);
    if (!Array.isArray(r) || r.length !== passages.length || !r.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0)) {
      throw modelContract(this.name, 'scorePassages', `must return ${passages.length} finite scores ≥ 0`);
    }
    return r as number[];
  }

  async compress(turns: readonly ModelTurn[]): Promise<string> {
    const r = await this.#call('compress', () => this.#m.compress(turns), () => turns);
    return this.#text('compress', (r as { text?: unknown } | null)?.text);
  }

  /** Keywords, de-duplicated and cut to what a chunk record can hold (oversized ones are dropped, not rejected). */
  async buildMeta(text: string): Promise<string[]> {
    const r = await this.#call('buildMeta', () => this.#m.buildMeta(text), () => text);
    const kws = (r as { keywords?: unknown } | null)?.keywords;
    if (!Array.isArray(kws) || !kws.every((k) => typeof k === 'string')) throw modelContract(this.name, 'buildMeta', 'keywords must be an array of strings');
    const out = new Set<string>();
    for (const k of kws as string[]) {
      if (out.size >= LIMITS.keywords) break;
      if (k.length > 0 && k.isWellFormed() && Buffer.byteLength(k, 'utf8') <= LIMITS.keywordBytes) out.add(k);
    }
    return [...out];
  }

  /** Selected ids, each one of the candidates', no repeats, at most `topP`. */
  async select(query: { text: string; keywords: readonly string[] }, candidates: readonly ChunkMetaView[], topP: number): Promise<string[]> {
    if (candidates.length === 0) return [];
    const r = await this.#call('select', () => this.#m.select(query, candidates, topP), () => [query, candidates]);
    const known = new Set(candidates.map((c) => c.id));
    if (!Array.isArray(r)) throw modelContract(this.name, 'select', 'must return an array of ids');
    const out: string[] = [];
    for (const id of r as unknown[]) {
      if (typeof id !== 'string' || !known.has(id)) throw modelContract(this.name, 'select', `returned an id it was not given: ${JSON.stringify(id)}`);
      if (!out.includes(id)) out.push(id);
    }
    return out.slice(0, topP);
  }

  async jointCompact(fresh: { text: string; keywords: readonly string[] }, related: readonly ChunkBodyView[]): Promise<CheckedJoint> {
    const r: JointCompactResult = await this.#call('jointCompact', () => this.#m.jointCompact(fresh, related), () => [fresh, related]);
    if (r === null || typeof r !== 'object') throw modelContract(this.name, 'jointCompact', 'must return an object');
    const text = this.#text('jointCompact', r.text);
    const known = new Set(related.map((c) => c.id));
    const touched = new Set<string>();
    const claim = (id: unknown, what: string): string => {
      if (typeof id !== 'string' || !known.has(id)) throw modelContract(this.name, 'jointCompact', `${what} names a chunk it was not given: ${JSON.stringify(id)}`);
      if (touched.has(id)) throw modelContract(this.name, 'jointCompact', `chunk ${JSON.stringify(id)} is updated or deleted twice`);
      touched.add(id);
      return id;
    };
    if (!Array.isArray(r.updates) || !Array.isArray(r.deletions)) throw modelContract(this.name, 'jointCompact', 'updates and deletions must be arrays');
    const updates = r.updates.map((u) => ({ id: claim(u?.id, 'an update'), text: this.#text('jointCompact update', u?.text) }));
    const deletions = r.deletions.map((id) => claim(id, 'a deletion'));
    const reasons = new Map<string, string>();
    if (r.reasons !== undefined) {
      if (r.reasons === null || typeof r.reasons !== 'object') throw modelContract(this.name, 'jointCompact', 'reasons must be an object of strings by chunk id');
      for (const [id, why] of Object.entries(r.reasons)) {
        if (typeof why !== 'string') throw modelContract(this.name, 'jointCompact', `the reason for ${JSON.stringify(id)} must be a string`);
        if (touched.has(id) && why.trim() !== '' && why.isWellFormed()) reasons.set(id, why.slice(0, MAX_REASON_CHARS));
      }
    }
    return { text, updates, deletions, reasons };
  }

  /** Groups of at least two of the given ids; an id is kept only in the first group naming it. */
  async colocate(chunks: readonly ChunkMetaView[], coAccess: CoAccessView, tauAssoc: number): Promise<string[][]> {
    const r = await this.#call('colocate', () => this.#m.colocate(chunks, coAccess, tauAssoc), () => chunks);
    if (!Array.isArray(r)) throw modelContract(this.name, 'colocate', 'must return an array of id groups');
    const known = new Set(chunks.map((c) => c.id));
    const placed = new Set<string>();
    const groups: string[][] = [];
    for (const g of r as unknown[]) {
      if (!Array.isArray(g)) throw modelContract(this.name, 'colocate', 'every group must be an array of ids');
      const members: string[] = [];
      for (const id of g as unknown[]) {
        if (typeof id !== 'string' || !known.has(id)) throw modelContract(this.name, 'colocate', `returned an id it was not given: ${JSON.stringify(id)}`);
        if (!placed.has(id)) members.push(id);
        placed.add(id);
      }
      if (members.length >= 2) groups.push(members);
    }
    return groups;
  }
}

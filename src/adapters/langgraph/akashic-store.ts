/**
 * LangGraph.js `BaseStore` over the Akashic engine: long-term memory items addressed by (namespace, key), stored as
 * `note` chunks of the engine (item-record.ts) under the user/session mapping of namespace-mapping.ts.
 *
 * Finding an item: the engine has no secondary index, and item keys are not ULIDs, so the key travels as a marker
 * keyword in the chunk's directory entry and a lookup scans the directory of one namespace (= one engine session):
 * O(items in that namespace) metadata reads, no block reads, then one `getMany` for the bodies. Deterministic chunk
 * ids (a hash of the key) would make lookups O(1) but cannot be reused once the engine has tombstoned them (a put
 * after a delete of the same key would conflict); a separate key index would need its own consistency protocol.
 * `batch` scans each touched namespace once, however many operations it holds.
 */
import {
  BaseStore,
  type GetOperation,
  type IndexConfig,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import type { StoreSurface as Engine } from '../../protocol/surfaces.js';
import type { WriteOp } from '../../api/requests.js';
import { AkashicError, invalidArgument } from '../../errors.js';
import { bm25Scores } from '../../model/bm25-ranking.js';
import { termsOf } from '../../model/keywords.js';
import type { ChunkRecord } from '../../record/chunk-record.js';
import type { ChunkContent, ChunkRef } from '../../api/chunk-input.js';
import type { ListedEntry } from '../../api/results.js';
import { retryOnConflict } from '../shared/conflict-retry.js';
import { escapeIdPart, fitsEngineId } from '../shared/id-escaping.js';
import { KeyedQueue } from '../../util/keyed-queue.js';
import { isMarker, isMarkerOf } from '../shared/marker-keywords.js';
import { textsAtPath } from './item-fields.js';
import { cosine } from '../../util/cosine.js';
import { checkItemKey, decodeVectors, itemContent, itemOf, KEY_TAG, keyMarker, valueText } from './item-record.js';
import { checkNamespace, compareNamespaces, hasPrefix, hasSuffix, namespaceOf, scopeOf, writableScope, type EngineScope } from './namespace-mapping.js';
import { checkFilter, matchesFilter } from './store-filter.js';
import { FORMAT_ATTRIBUTE, pushdownFilter } from './field-attributes.js';
import { keysOf, rejectUnknownKeys } from '../../api/option-keys.js';

/** Keywords kept per item for lexical `query` ranking. */
export const DEFAULT_ITEM_KEYWORDS = 64;
/** Bodies read per `getMany` while filtering or vector-scoring a search. */
const READ_PAGE = 512;

export interface AkashicLangGraphStoreOptions {
  /** An open engine. The adapter never closes it. */
  readonly store: Engine;
  /**
   * Vector index, as InMemoryStore's: `embeddings` embed the texts at `fields` (default `["$"]`, the whole value) on
   * put, and a search `query` is ranked by cosine similarity. Without it, `query` is ranked lexically (BM25 over the
   * keywords of the indexed fields, the ranking the engine's embedded recall uses).
   */
  readonly index?: IndexConfig;
  /** Keywords extracted per item for lexical ranking (1–255). Default 64. */
  readonly keywordLimit?: number;
}

const LANGGRAPH_STORE_KEYS = keysOf<AkashicLangGraphStoreOptions>()('store', 'index', 'keywordLimit');

/** One live item as the directory shows it. */
interface Listed {
  readonly namespace: string[];
  readonly userId: string;
  readonly entry: ListedEntry;
}

const newestFirst = (a: ListedEntry, b: ListedEntry): number =>
  b.entry.updatedAt - a.entry.updatedAt || (a.chunkId < b.chunkId ? 1 : a.chunkId > b.chunkId ? -1 : 0);

/**
 * A LangGraph `BaseStore` persisted in Akashic. Exported from `akashic/langgraph`.
 *
 * Differences from InMemoryStore (all deliberate, see docs/adapters.md): namespaces without items are not listed;
 * search results without a query come most recently updated first; `query` is always ranked (lexically by default);
 * filters compare deeply and type-strictly; values are stored as JSON (a round trip, not the caller's object).
 *
 * @example
 *   const engine = await AkashicStore.open({ path: './memory' });   // from 'akashic'
 *   const store = new AkashicLangGraphStore({ store: engine });     // from 'akashic/langgraph'
 *   await store.put(['alice', 'memories'], 'm1', { text: 'likes green tea' });
 *   const hits = await store.search(['alice'], { query: 'tea', limit: 5 });
 */
export class AkashicLangGraphStore extends BaseStore {
  readonly #store: Engine;
  readonly #index: IndexConfig | undefined;
  readonly #fields: readonly string[];
  readonly #keywordLimit: number;
  readonly #queue = new KeyedQueue();

  /** @throws AkashicError AKASHIC_INVALID_ARGUMENT naming a bad option. */
  constructor(options: AkashicLangGraphStoreOptions) {
    super();
    if (options === null || typeof options !== 'object') throw invalidArgument('options must be an object');
    rejectUnknownKeys(options, LANGGRAPH_STORE_KEYS, 'AkashicLangGraphStore options');
    const { store, index, keywordLimit = DEFAULT_ITEM_KEYWORDS } = options;
    if (store === null || typeof store !== 'object' || typeof store.write !== 'function') throw invalidArgument("AkashicLangGraphStore: option store must be an open AkashicStore engine from 'akashic'");
    if (!Number.isInteger(keywordLimit) || keywordLimit < 1 || keywordLimit > 255) throw invalidArgument(`option keywordLimit must be an integer in [1, 255], got ${String(keywordLimit)}`);
    if (index !== undefined && (index === null || typeof index.embeddings?.embedDocuments !== 'function')) {
      throw invalidArgument('option index.embeddings must implement embedDocuments and embedQuery');
    }
    this.#store = store;
    this.#index = index;
    this.#fields = index?.fields ?? ['$'];
    this.#keywordLimit = keywordLimit;
  }

  /**
   * Runs operations with InMemoryStore's batch semantics: every read (get, search, listNamespaces) sees the state
   * before the batch; puts and deletes apply afterwards, the last one per (namespace, key) winning. The writes of
   * one engine user (first namespace label) land in one atomic engine write; a batch spanning users is atomic per
   * user.
   */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    if (!Array.isArray(operations)) throw invalidArgument('operations must be an array');
    const results: unknown[] = new Array(operations.length).fill(null);
    const reads: Promise<void>[] = [];
    const gets: { i: number; op: GetOperation }[] = [];
    const puts: PutOperation[] = [];
    operations.forEach((op, i) => {
      if (op === null || typeof op !== 'object') throw invalidArgument(`operations[${i}] must be an object`);
      if ('namespacePrefix' in op) {
        reads.push(this.#search(op).then((r) => void (results[i] = r)));
      } else if ('value' in op) {
        checkNamespace(op.namespace, `operations[${i}].namespace`);
        checkItemKey(op.key, `operations[${i}].key`);
        puts.push(op);
      } else if ('key' in op) {
        checkNamespace(op.namespace, `operations[${i}].namespace`);
        checkItemKey(op.key, `operations[${i}].key`);
        gets.push({ i, op });
      } else if ('limit' in op || 'matchConditions' in op) {
        reads.push(this.#listNamespaces(op).then((r) => void (results[i] = r)));
      } else {
        throw invalidArgument(`operations[${i}] is not a get, search, put or listNamespaces operation`);
      }
    });
    if (gets.length > 0) {
      reads.push(this.#getItems(gets.map((g) => g.op)).then((items) => gets.forEach((g, k) => void (results[g.i] = items[k] ?? null))));
    }
    await Promise.all(reads);
    if (puts.length > 0) await this.#applyPuts(puts);
    return results as OperationResults<Op>;
  }

  // ---- reads ---------------------------------------------------------------------------------------------------

  /** Live items of one session by key marker, newest version first (duplicates only after concurrent writers). */
  async #scanSession(scope: EngineScope): Promise<Map<string, ListedEntry[]>> {
    const byMarker = new Map<string, ListedEntry[]>();
    for await (const e of this.#store.list(scope.userId, { sessionId: scope.sessionId })) {
      const marker = e.entry.keywords[0];
      if (e.entry.kind !== 'note' || marker === undefined || !isMarkerOf(marker, KEY_TAG)) continue;
      const list = byMarker.get(marker);
      if (list === undefined) byMarker.set(marker, [e]);
      else list.push(e);
    }
    for (const list of byMarker.values()) list.sort(newestFirst);
    return byMarker;
  }

  async #read(userId: string, refs: readonly ChunkRef[]): Promise<(ChunkRecord | null)[]> {
    const out: (ChunkRecord | null)[] = [];
    for (let i = 0; i < refs.length; i += READ_PAGE) {
      const { chunks } = await this.#store.getMany(userId, refs.slice(i, i + READ_PAGE));
      out.push(...chunks);
    }
    return out;
  }

  async #getItems(ops: readonly GetOperation[]): Promise<(Item | null)[]> {
    const scans = new Map<string, Promise<Map<string, ListedEntry[]>>>();
    const found = await Promise.all(
      ops.map(async (op) => {
        const scope = scopeOf(op.namespace);
        if (scope === null) return null;
        const id = scope.userId + '\0' + scope.sessionId;
        let scan = scans.get(id);
        if (scan === undefined) scans.set(id, (scan = this.#scanSession(scope)));
        const entry = (await scan).get(keyMarker(op.key))?.[0];
        return entry === undefined ? null : { userId: scope.userId, entry };
      }),
    );
    const byUser = new Map<string, number[]>();
    found.forEach((f, i) => {
      if (f === null) return;
      const list = byUser.get(f.userId);
      if (list === undefined) byUser.set(f.userId, [i]);
      else list.push(i);
    });
    const items: (Item | null)[] = ops.map(() => null);
    for (const [userId, idx] of byUser) {
      const records = await this.#read(userId, idx.map((i) => found[i]!.entry));
      idx.forEach((i, k) => {
        const r = records[k];
        if (r !== null && r !== undefined) items[i] = itemOf(r, [...ops[i]!.namespace]);
      });
    }
    return items;
  }

  /** Store namespaces (as engine scopes) whose first label is `first` (any user when undefined). */
  async *#namespaces(first: string | undefined): AsyncGenerator<EngineScope & { namespace: string[] }> {
    let users: string[];
    if (first === undefined) users = await this.#store.users();
    else {
      const userId = escapeIdPart(first);
      users = fitsEngineId(userId) ? [userId] : [];
    }
    for (const userId of users) {
      for (const sessionId of await this.#store.sessions(userId)) {
        const namespace = namespaceOf(userId, sessionId);
        if (namespace !== null) yield { userId, sessionId, namespace };
      }
    }
  }

  async #search(op: SearchOperation): Promise<SearchItem[]> {
    const prefix = checkNamespace(op.namespacePrefix, 'namespacePrefix', true);
    const filter = checkFilter(op.filter);
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 0) throw invalidArgument('search limit must be a non-negative integer');
    if (!Number.isInteger(offset) || offset < 0) throw invalidArgument('search offset must be a non-negative integer');
    const query = op.query === undefined || op.query === null || op.query === '' ? undefined : op.query;
    if (query !== undefined && (typeof query !== 'string' || !query.isWellFormed())) throw invalidArgument('search query must be a well-formed string');

    let listed: Listed[] = [];
    for await (const ns of this.#namespaces(prefix[0])) {
      if (!hasPrefix(ns.namespace, prefix, false)) continue;
      for (const versions of (await this.#scanSession(ns)).values()) listed.push({ namespace: ns.namespace, userId: ns.userId, entry: versions[0]! });
    }
    listed.sort((a, b) => newestFirst(a.entry, b.entry));

    const vectorQuery = query !== undefined && this.#index !== undefined;
    const bodies = new Map<Listed, ChunkRecord>();
    if (filter !== undefined) {
      // Pushed down to the directory entries' attributes: only the bodies of items that may match are read.
      const pre = pushdownFilter(filter);
      if (pre !== null) listed = listed.filter((l) => l.entry.entry.attributes?.[FORMAT_ATTRIBUTE] !== '2' || pre.matches(l.entry.entry, l.entry.entry.attributes));
    }
    if (filter !== undefined || vectorQuery) {
      await this.#readInto(listed, bodies);
      listed = listed.filter((l) => bodies.has(l));
      if (filter !== undefined) listed = listed.filter((l) => matchesFilter(itemOf(bodies.get(l)!, l.namespace).value, filter));
    }

    let ranked: { l: Listed; score: number | undefined }[];
    if (query === undefined) ranked = listed.map((l) => ({ l, score: undefined }));
    else if (vectorQuery) ranked = await this.#vectorRank(listed, bodies, query);
    else ranked = lexicalRank(listed, query);

    const page = ranked.slice(offset, offset + limit);
    await this.#readInto(page.map((p) => p.l).filter((l) => !bodies.has(l)), bodies);
    const out: SearchItem[] = [];
    for (const { l, score } of page) {
      const body = bodies.get(l);
      if (body === undefined) continue; // deleted between the scan and the read
      const item: SearchItem = itemOf(body, l.namespace);
      if (score !== undefined) item.score = score;
      out.push(item);
    }
    return out;
  }

  async #readInto(listed: readonly Listed[], into: Map<Listed, ChunkRecord>): Promise<void> {
    const byUser = new Map<string, Listed[]>();
    for (const l of listed) {
      const list = byUser.get(l.userId);
      if (list === undefined) byUser.set(l.userId, [l]);
      else list.push(l);
    }
    for (const [userId, ls] of byUser) {
      const records = await this.#read(userId, ls.map((l) => l.entry));
      ls.forEach((l, k) => {
        const r = records[k];
        if (r !== null && r !== undefined) into.set(l, r);
      });
    }
  }

  /** InMemoryStore's vector ranking: an item scores its best vector; items without vectors follow, unscored. */
  async #vectorRank(listed: readonly Listed[], bodies: ReadonlyMap<Listed, ChunkRecord>, query: string): Promise<{ l: Listed; score: number | undefined }[]> {
    const q = await this.#index!.embeddings.embedQuery(query);
    const scored: { l: Listed; score: number }[] = [];
    const unscored: { l: Listed; score: undefined }[] = [];
    for (const l of listed) {
      const body = bodies.get(l)!;
      const vectors = decodeVectors(body.payload, `store item ${body.sessionId}/${body.chunkId}`);
      if (vectors.length === 0) unscored.push({ l, score: undefined });
      else scored.push({ l, score: Math.max(...vectors.map((v) => cosine(q, v))) });
    }
    scored.sort((a, b) => b.score - a.score);
    return [...scored, ...unscored];
  }

  async #listNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const conditions = op.matchConditions ?? [];
    if (!Array.isArray(conditions)) throw invalidArgument('matchConditions must be an array');
    for (const c of conditions) {
      if (c === null || typeof c !== 'object' || (c.matchType !== 'prefix' && c.matchType !== 'suffix') || !Array.isArray(c.path)) {
        throw invalidArgument("each match condition needs matchType 'prefix' or 'suffix' and a path");
      }
    }
    const maxDepth = op.maxDepth;
    if (maxDepth !== undefined && (!Number.isInteger(maxDepth) || maxDepth < 1)) throw invalidArgument('maxDepth must be a positive integer');
    const limit = op.limit ?? 100;
    const offset = op.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) throw invalidArgument('limit and offset must be non-negative integers');

    // A prefix condition with a concrete first label confines the walk to one engine user.
    const first = conditions.find((c) => c.matchType === 'prefix' && c.path.length > 0 && c.path[0] !== '*')?.path[0];
    const seen = new Map<string, string[]>();
    for await (const ns of this.#namespaces(first)) {
      const ok = conditions.every((c) => (c.matchType === 'prefix' ? hasPrefix(ns.namespace, c.path, true) : hasSuffix(ns.namespace, c.path)));
      if (!ok || !(await this.#hasItems(ns))) continue;
      const shown = maxDepth === undefined ? ns.namespace : ns.namespace.slice(0, maxDepth);
      seen.set(JSON.stringify(shown), shown);
    }
    return [...seen.values()].sort(compareNamespaces).slice(offset, offset + limit);
  }

  /** True when the namespace holds a live item; stops at the first one. */
  async #hasItems(scope: EngineScope): Promise<boolean> {
    for await (const e of this.#store.list(scope.userId, { sessionId: scope.sessionId })) {
      if (e.entry.kind === 'note' && isMarkerOf(e.entry.keywords[0], KEY_TAG)) return true;
    }
    return false;
  }

  // ---- writes --------------------------------------------------------------------------------------------------

  async #applyPuts(ops: readonly PutOperation[]): Promise<void> {
    // Last write per (namespace, key) wins, as in InMemoryStore.
    const latest = new Map<string, PutOperation>();
    for (const op of ops) {
      const id = JSON.stringify([op.namespace, op.key]);
      latest.delete(id);
      latest.set(id, op);
    }
    const prepared = await this.#prepare([...latest.values()]);
    const byUser = new Map<string, Prepared[]>();
    for (const p of prepared) {
      const list = byUser.get(p.scope.userId);
      if (list === undefined) byUser.set(p.scope.userId, [p]);
      else list.push(p);
    }
    await Promise.all(
      [...byUser].map(([userId, items]) => this.#queue.run(userId, () => retryOnConflict(() => this.#writeUser(userId, items)))),
    );
  }

  /** Validates values and computes contents (and embeddings, in one call) before any lock is taken. */
  async #prepare(ops: readonly PutOperation[]): Promise<Prepared[]> {
    const out = ops.map((op): Prepared & { texts: string[]; embed: boolean } => {
      const scope = writableScope(op.namespace);
      if (op.value === null) return { scope, key: op.key, content: null, texts: [], embed: false };
      const text = valueText(op.value);
      if (op.index !== undefined && op.index !== false && !Array.isArray(op.index)) throw invalidArgument('put index must be false or an array of field paths');
      const fields = op.index === false ? [] : (op.index ?? this.#fields);
      const texts = fields.flatMap((f) => textsAtPath(op.value, f));
      return { scope, key: op.key, content: { text } as ChunkContent, texts, embed: this.#index !== undefined && texts.length > 0 };
    });
    const toEmbed = [...new Set(out.filter((o) => o.embed).flatMap((o) => o.texts))];
    const vectors = new Map<string, number[]>();
    if (toEmbed.length > 0) {
      const got = await this.#index!.embeddings.embedDocuments(toEmbed);
      if (!Array.isArray(got) || got.length !== toEmbed.length) throw new AkashicError('AKASHIC_MODEL', `embeddings returned ${String(got?.length)} vectors for ${toEmbed.length} texts`);
      toEmbed.forEach((t, i) => vectors.set(t, got[i]!));
    }
    return out.map((o) => ({
      scope: o.scope,
      key: o.key,
      content: o.content === null ? null : itemContent(o.key, o.content.text, o.texts, this.#keywordLimit, o.embed ? o.texts.map((t) => vectors.get(t)!) : null),
    }));
  }

  /** One atomic engine write for one user's puts and deletes; scans each touched namespace once. */
  async #writeUser(userId: string, items: readonly Prepared[]): Promise<void> {
    const scans = new Map<string, Map<string, ListedEntry[]>>();
    for (const p of items) {
      if (!scans.has(p.scope.sessionId)) scans.set(p.scope.sessionId, await this.#scanSession(p.scope));
    }
    const ops: WriteOp[] = [];
    for (const p of items) {
      const [current, ...stale] = scans.get(p.scope.sessionId)!.get(keyMarker(p.key)) ?? [];
      const sessionId = p.scope.sessionId;
      for (const e of stale) ops.push({ op: 'delete', sessionId, chunkId: e.chunkId, expectVersion: e.entry.version });
      if (p.content === null) {
        if (current !== undefined) ops.push({ op: 'delete', sessionId, chunkId: current.chunkId, expectVersion: current.entry.version });
      } else if (current !== undefined) {
        ops.push({ op: 'update', sessionId, chunkId: current.chunkId, expectVersion: current.entry.version, ...p.content });
      } else {
        ops.push({ op: 'put', sessionId, ...p.content });
      }
    }
    if (ops.length > 0) await this.#store.write(userId, ops);
  }
}

interface Prepared {
  readonly scope: EngineScope;
  readonly key: string;
  /** Null: delete. */
  readonly content: ChunkContent | null;
}

/** BM25 of the query against each item's stored keywords; every item stays, matches first. */
function lexicalRank(listed: readonly Listed[], query: string): { l: Listed; score: number }[] {
  const queryTerms = [...new Set(termsOf(query))];
  const documents = listed.map((l) => termsOf(l.entry.entry.keywords.filter((k) => !isMarker(k)).join('\n')));
  const scores = bm25Scores(documents, queryTerms);
  return listed.map((l, i) => ({ l, score: scores[i] ?? 0, i })).sort((a, b) => b.score - a.score || a.i - b.i).map(({ l, score }) => ({ l, score }));
}

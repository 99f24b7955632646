/**
 * LangGraph.js `BaseCheckpointSaver` over the Akashic engine (record layout: saver-records.ts).
 *
 * Every call scans the directory of one thread (O(records of the thread), metadata only: directory entries carry the
 * marker keywords) and then reads exactly the bodies it needs with at most two `getMany`s: the checkpoint with its
 * pending writes, then the channel blobs its `channel_versions` name. Mutations of one thread are serialized by this
 * instance and made atomic by the engine (one `write` each, with `expectVersion` on every rewrite, retried from the
 * scan on a lost compare-and-swap), so two savers over one engine never lose each other's writes.
 */
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
  type WritesSortKey,
} from '@langchain/langgraph-checkpoint';
import { isDeepStrictEqual } from 'node:util';
import type { StoreSurface as Engine } from '../../protocol/surfaces.js';
import type { WriteOp } from '../../api/requests.js';
import { corruption, invalidArgument } from '../../errors.js';
import type { ChunkRecord } from '../../record/chunk-record.js';
import { checkId } from '../../api/ids.js';
import type { ListedEntry } from '../../api/results.js';
import { retryOnConflict } from '../shared/conflict-retry.js';
import { KeyedQueue } from '../../util/keyed-queue.js';
import { isMarkerOf, markerKeyword, markerValue } from '../shared/marker-keywords.js';
import {
  ATTR,
  DEFAULT_SAVER_USER,
  TAG,
  checkCheckpointId,
  checkNs,
  checkThreadId,
  decodeContainer,
  encodeContainer,
  threadOfSession,
  threadSession,
  type Section,
} from './saver-records.js';
import { keysOf, rejectUnknownKeys } from '../../api/option-keys.js';

export interface AkashicSaverOptions {
  /** An open engine. The saver never closes it. */
  readonly store: Engine;
  /** Engine user holding every checkpoint of this saver. Default `langgraph.checkpoints`. */
  readonly userId?: string;
  /** Serializer of checkpoints, metadata and channel values. Default: LangGraph's JsonPlusSerializer. */
  readonly serde?: SerializerProtocol;
}

/** One thread's records as its directory shows them. */
interface ThreadScan {
  /** ns marker → checkpoint id → entry. */
  readonly checkpoints: Map<string, Map<string, ListedEntry>>;
  /** blob marker + ns marker + version marker → entry. */
  readonly blobs: Map<string, ListedEntry>;
  /** writes marker + ns marker → entries (one per task). */
  readonly writes: Map<string, ListedEntry[]>;
  readonly all: ListedEntry[];
}

const SEP = '\0';
const m = markerKeyword;
const blobKey = (ns: string, channel: string, version: unknown): string => m(TAG.blob, channel) + SEP + m(TAG.ns, ns) + SEP + m(TAG.version, JSON.stringify(version));
const writesKey = (ns: string, checkpointId: string): string => m(TAG.writes, checkpointId) + SEP + m(TAG.ns, ns);

/** Newer record version first; ids are ULIDs, so later writers win ties. */
const newer = (a: ListedEntry, b: ListedEntry): boolean => a.entry.updatedAt > b.entry.updatedAt || (a.entry.updatedAt === b.entry.updatedAt && a.chunkId > b.chunkId);

const SAVER_KEYS = keysOf<AkashicSaverOptions>()('store', 'userId', 'serde');

/**
 * A LangGraph checkpointer persisted in Akashic. Passes `@langchain/langgraph-checkpoint-validation` in full,
 * including the channel-delta case the in-memory saver skips.
 *
 * @example
 *   const engine = await AkashicStore.open({ path: './memory' });            // from 'akashic'
 *   const graph = workflow.compile({ checkpointer: new AkashicSaver({ store: engine }) });
 *   await graph.invoke(input, { configurable: { thread_id: 't1' } });
 */
export class AkashicSaver extends BaseCheckpointSaver {
  readonly #store: Engine;
  readonly #user: string;
  readonly #queue = new KeyedQueue();

  /** @throws AkashicError AKASHIC_INVALID_ARGUMENT naming a bad option. */
  constructor(options: AkashicSaverOptions) {
    if (options === null || typeof options !== 'object') throw invalidArgument('options must be an object');
    rejectUnknownKeys(options, SAVER_KEYS, 'AkashicSaver options');
    super(options.serde);
    if (options.store === null || typeof options.store !== 'object' || typeof options.store.write !== 'function') throw invalidArgument("AkashicSaver: option store must be an open AkashicStore engine from 'akashic'");
    this.#store = options.store;
    this.#user = checkId(options.userId ?? DEFAULT_SAVER_USER, 'option userId');
  }

  /** The checkpoint `config` names (its `checkpoint_id`, else the thread's greatest id in `checkpoint_ns`), or undefined. */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const raw = config.configurable?.['thread_id'] as unknown;
    if (raw === undefined || raw === null) return undefined;
    const threadId = checkThreadId(raw);
    const ns = checkNs(config.configurable?.['checkpoint_ns']);
    const wanted = getCheckpointId(config);
    const session = threadSession(threadId);
    const scan = await this.#scan(session);
    const ids = scan.checkpoints.get(m(TAG.ns, ns));
    if (ids === undefined) return undefined;
    let id: string | undefined = wanted === undefined || wanted === '' ? undefined : wanted;
    if (id === undefined) for (const k of ids.keys()) if (id === undefined || k > id) id = k;
    const entry = id === undefined ? undefined : ids.get(id);
    if (id === undefined || entry === undefined) return undefined;
    return this.#tuple(raw, session, scan, ns, id, entry);
  }

  /**
   * Checkpoints of one thread (all threads without `thread_id`), newest id first within a thread; `before`, `limit`
   * and a metadata `filter` (deep equality per key) as in the base contract.
   */
  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let limit = options.limit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw invalidArgument('list limit must be a non-negative integer');
    if (filter !== undefined && (filter === null || typeof filter !== 'object')) throw invalidArgument('list filter must be an object');
    const rawThread = config.configurable?.['thread_id'] as unknown;
    const nsWanted = config.configurable?.['checkpoint_ns'] === undefined ? undefined : checkNs(config.configurable['checkpoint_ns']);
    const idWanted = config.configurable?.['checkpoint_id'] as string | undefined;
    const beforeId = before?.configurable?.['checkpoint_id'] as string | undefined;

    const threads: { raw: unknown; session: string }[] =
      rawThread === undefined || rawThread === null ? await this.#threads() : [{ raw: rawThread, session: threadSession(checkThreadId(rawThread)) }];
    for (const thread of threads) {
      const scan = await this.#scan(thread.session);
      const candidates: { ns: string | null; nsMarker: string; id: string; entry: ListedEntry }[] = [];
      for (const [nsMarker, ids] of scan.checkpoints) {
        const readableNs = markerValue(nsMarker, TAG.ns);
        if (nsWanted !== undefined && nsMarker !== m(TAG.ns, nsWanted)) continue;
        for (const [id, entry] of ids) {
          if (idWanted !== undefined && idWanted !== '' && id !== idWanted) continue;
          if (beforeId !== undefined && id >= beforeId) continue;
          candidates.push({ ns: nsWanted ?? readableNs, nsMarker, id, entry });
        }
      }
      candidates.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : a.nsMarker < b.nsMarker ? -1 : 1));
      for (const c of candidates) {
        if (limit !== undefined && limit <= 0) return;
        const ns = c.ns ?? (await this.#exactNs(c.entry));
        const tuple = await this.#tuple(thread.raw, thread.session, scan, ns, c.id, c.entry);
        if (tuple === undefined) continue;
        if (filter !== undefined && !Object.entries(filter).every(([k, v]) => isDeepStrictEqual((tuple.metadata as Record<string, unknown> | undefined)?.[k], v))) continue;
        if (limit !== undefined) limit -= 1;
        yield tuple;
      }
    }
  }

  /** Stores a checkpoint and the blobs of the channels in `newVersions`; the config's `checkpoint_id` is its parent. */
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const raw = config.configurable?.['thread_id'] as unknown;
    if (raw === undefined || raw === null) throw invalidArgument('cannot put a checkpoint: config.configurable.thread_id is missing');
    const threadId = checkThreadId(raw);
    const ns = checkNs(config.configurable?.['checkpoint_ns']);
    const parent = config.configurable?.['checkpoint_id'] as unknown;
    const id = checkCheckpointId(checkpoint?.id, 'checkpoint.id');
    const copy = copyCheckpoint(checkpoint);
    const values = copy.channel_values as Record<string, unknown>;
    const [cpType, cpBytes] = await this.serde.dumpsTyped({ ...copy, channel_values: {} });
    const [mdType, mdBytes] = await this.serde.dumpsTyped(metadata);
    const blobs = await Promise.all(
      Object.entries(newVersions ?? {}).map(async ([channel, version]) => {
        const empty = !Object.hasOwn(values, channel);
        const sections: Section[] = empty ? [] : [await this.#dump(values[channel])];
        return { channel, version, payload: encodeContainer({ empty }, sections) };
      }),
    );
    const attributes: Record<string, string> = { [ATTR.type]: 'checkpoint', [ATTR.thread]: threadId, [ATTR.ns]: ns, [ATTR.id]: id };
    if (typeof parent === 'string' && parent !== '') attributes[ATTR.parent] = checkCheckpointId(parent, 'parent checkpoint_id');
    const content = {
      kind: 'note' as const,
      text: `checkpoint ${id}`,
      keywords: [m(TAG.checkpoint, id), m(TAG.ns, ns)],
      attributes,
      payload: encodeContainer(null, [
        { type: cpType, bytes: cpBytes },
        { type: mdType, bytes: mdBytes },
      ]),
    };
    const session = threadSession(threadId);
    await this.#mutate(session, async (scan) => {
      const ops: WriteOp[] = [];
      const existing = scan.checkpoints.get(m(TAG.ns, ns))?.get(id);
      if (existing === undefined) ops.push({ op: 'put', sessionId: session, ...content });
      else ops.push({ op: 'update', sessionId: session, chunkId: existing.chunkId, expectVersion: existing.entry.version, ...content });
      for (const b of blobs) {
        // A (namespace, channel, version) blob is immutable: the first write stays (Postgres: ON CONFLICT DO NOTHING).
        if (scan.blobs.has(blobKey(ns, b.channel, b.version))) continue;
        ops.push({
          op: 'put',
          sessionId: session,
          kind: 'note',
          text: `blob ${b.channel}@${String(b.version)}`,
          keywords: [m(TAG.blob, b.channel), m(TAG.ns, ns), m(TAG.version, JSON.stringify(b.version))],
          attributes: { [ATTR.type]: 'blob', [ATTR.thread]: threadId, [ATTR.ns]: ns },
          payload: b.payload,
        });
      }
      return ops;
    });
    return { configurable: { thread_id: raw, checkpoint_ns: ns, checkpoint_id: id } };
  }

  /** Stores a task's pending writes against the checkpoint `config` names; requires `thread_id` and `checkpoint_id`. */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const raw = config.configurable?.['thread_id'] as unknown;
    if (raw === undefined || raw === null) throw invalidArgument('cannot put writes: config.configurable.thread_id is missing');
    const threadId = checkThreadId(raw);
    const ns = checkNs(config.configurable?.['checkpoint_ns']);
    const cp = config.configurable?.['checkpoint_id'] as unknown;
    if (cp === undefined || cp === null || cp === '') throw invalidArgument('cannot put writes: config.configurable.checkpoint_id is missing');
    const id = checkCheckpointId(cp, 'checkpoint_id');
    if (typeof taskId !== 'string' || !taskId.isWellFormed()) throw invalidArgument('taskId must be a string');
    if (!Array.isArray(writes)) throw invalidArgument('writes must be an array');
    const fresh = await Promise.all(
      writes.map(async ([channel, value], i) => ({ idx: WRITES_IDX_MAP[channel] ?? i, channel, section: await this.#dump(value) })),
    );
    const session = threadSession(threadId);
    const task = m(TAG.task, taskId);
    await this.#mutate(session, async (scan) => {
      const current = (scan.writes.get(writesKey(ns, id)) ?? []).find((e) => e.entry.keywords[2] === task);
      const merged = new Map<number, { channel: string; section: Section }>();
      if (current !== undefined) {
        const record = await this.#readOne(session, current);
        if (record !== null) for (const w of decodeWrites(record)) merged.set(w.idx, w);
      }
      for (const w of fresh) {
        // Regular writes keep the first value stored for (task, idx); special channels (negative idx) are replaced.
        if (w.idx >= 0 && merged.has(w.idx)) continue;
        merged.set(w.idx, w);
      }
      const list = [...merged].sort((a, b) => a[0] - b[0]);
      const content = {
        kind: 'note' as const,
        text: `writes ${taskId}`,
        keywords: [m(TAG.writes, id), m(TAG.ns, ns), task],
        attributes: { [ATTR.type]: 'writes', [ATTR.thread]: threadId, [ATTR.ns]: ns, [ATTR.id]: id, [ATTR.task]: taskId, [ATTR.path]: taskPath ?? '' },
        payload: encodeContainer(
          list.map(([idx, w]) => [idx, w.channel]),
          list.map(([, w]) => w.section),
        ),
      };
      if (current === undefined) return [{ op: 'put', sessionId: session, ...content }];
      return [{ op: 'update', sessionId: session, chunkId: current.chunkId, expectVersion: current.entry.version, ...content }];
    });
  }

  /** Deletes every record of the thread in one atomic write (the engine's GC reclaims the space). */
  async deleteThread(threadId: string): Promise<void> {
    const session = threadSession(checkThreadId(threadId));
    await this.#mutate(session, async (scan) =>
      scan.all.map((e): WriteOp => ({ op: 'delete', sessionId: session, chunkId: e.chunkId, expectVersion: e.entry.version })),
    );
  }

  // ---- internals -----------------------------------------------------------------------------------------------

  async #dump(value: unknown): Promise<Section> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    return { type, bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes };
  }

  /** Scan, build the ops, write them atomically; serialized per thread and retried from the scan on a lost CAS. */
  #mutate(session: string, build: (scan: ThreadScan) => Promise<WriteOp[]>): Promise<void> {
    return this.#queue.run(session, () =>
      retryOnConflict(async () => {
        const ops = await build(await this.#scan(session));
        if (ops.length > 0) await this.#store.write(this.#user, ops);
      }),
    );
  }

  async #scan(session: string): Promise<ThreadScan> {
    const scan: ThreadScan = { checkpoints: new Map(), blobs: new Map(), writes: new Map(), all: [] };
    for await (const e of this.#store.list(this.#user, { sessionId: session })) {
      scan.all.push(e);
      const [k0, k1, k2] = e.entry.keywords;
      if (k0 === undefined || k1 === undefined) continue;
      const cpId = markerValue(k0, TAG.checkpoint);
      if (cpId !== null) {
        let ids = scan.checkpoints.get(k1);
        if (ids === undefined) scan.checkpoints.set(k1, (ids = new Map()));
        const prev = ids.get(cpId);
        if (prev === undefined || newer(e, prev)) ids.set(cpId, e);
      } else if (markerValue(k0, TAG.writes) !== null) {
        const key = k0 + SEP + k1;
        const list = scan.writes.get(key);
        if (list === undefined) scan.writes.set(key, [e]);
        else list.push(e);
      } else if (isMarkerOf(k0, TAG.blob) && k2 !== undefined) {
        const key = k0 + SEP + k1 + SEP + k2;
        const prev = scan.blobs.get(key);
        if (prev === undefined || newer(prev, e)) scan.blobs.set(key, e); // the first blob written stays
      }
    }
    return scan;
  }

  /** Every thread with records: readable sessions decode; hashed ones name their thread in an attribute. */
  async #threads(): Promise<{ raw: unknown; session: string }[]> {
    const out: { raw: unknown; session: string }[] = [];
    for (const session of await this.#store.sessions(this.#user)) {
      let thread = threadOfSession(session);
      if (thread === null) {
        for await (const e of this.#store.list(this.#user, { sessionId: session })) {
          thread = (await this.#readOne(session, e))?.attributes[ATTR.thread] ?? null;
          break;
        }
      }
      if (thread !== null) out.push({ raw: thread, session });
    }
    return out;
  }

  async #exactNs(entry: ListedEntry): Promise<string> {
    const r = await this.#readOne(entry.sessionId, entry);
    return r?.attributes[ATTR.ns] ?? '';
  }

  async #readOne(session: string, ref: { readonly chunkId: string }): Promise<ChunkRecord | null> {
    return this.#store.get(this.#user, session, ref.chunkId);
  }

  async #tuple(rawThread: unknown, session: string, scan: ThreadScan, ns: string, id: string, entry: ListedEntry): Promise<CheckpointTuple | undefined> {
    const writeEntries = scan.writes.get(writesKey(ns, id)) ?? [];
    const first = await this.#store.getMany(this.#user, [entry, ...writeEntries]);
    const record = first.chunks[0];
    if (record === null || record === undefined) return undefined; // deleted since the scan
    const what = `checkpoint ${session}/${record.chunkId}`;
    const { sections } = decodeContainer(record.payload, what);
    const [cpSection, mdSection] = sections;
    if (cpSection === undefined || mdSection === undefined) throw corruption(`${what}: expected two payload sections`);
    const checkpoint = (await this.serde.loadsTyped(cpSection.type, cpSection.bytes)) as Checkpoint;
    const metadata = (await this.serde.loadsTyped(mdSection.type, mdSection.bytes)) as CheckpointMetadata;
    const parentId = record.attributes[ATTR.parent];

    const versions = Object.entries(checkpoint.channel_versions ?? {});
    const blobEntries = versions.map(([channel, version]) => scan.blobs.get(blobKey(ns, channel, version)));
    const migrate = checkpoint.v < 4 && parentId !== undefined;
    const parentWrites = migrate ? (scan.writes.get(writesKey(ns, parentId)) ?? []) : [];
    const wanted = [...blobEntries.filter((e): e is ListedEntry => e !== undefined), ...parentWrites];
    const second = wanted.length === 0 ? [] : (await this.#store.getMany(this.#user, wanted)).chunks;
    const byChunk = new Map<string, ChunkRecord>();
    for (const c of second) if (c !== null) byChunk.set(c.chunkId, c);

    const channelValues: Record<string, unknown> = {};
    for (let i = 0; i < versions.length; i++) {
      const blob = blobEntries[i] === undefined ? undefined : byChunk.get(blobEntries[i]!.chunkId);
      if (blob === undefined) continue;
      const { meta, sections: s } = decodeContainer(blob.payload, `blob ${session}/${blob.chunkId}`);
      if ((meta as { empty?: boolean } | null)?.empty === true || s[0] === undefined) continue;
      channelValues[versions[i]![0]] = await this.serde.loadsTyped(s[0].type, s[0].bytes);
    }
    checkpoint.channel_values = channelValues;
    if (migrate) {
      const records = parentWrites.map((e) => byChunk.get(e.chunkId)).filter((r): r is ChunkRecord => r !== undefined);
      const sends = (await this.#pendingWrites(records)).filter((w) => w[1] === TASKS).map((w) => w[2]);
      checkpoint.channel_values[TASKS] = sends;
      const existing = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions[TASKS] = existing.length > 0 ? maxChannelVersion(...existing) : this.getNextVersion(undefined);
    }

    const writeRecords = first.chunks.slice(1).filter((r): r is ChunkRecord => r !== null);
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: rawThread, checkpoint_ns: ns, checkpoint_id: id } },
      checkpoint,
      metadata,
      pendingWrites: await this.#pendingWrites(writeRecords),
    };
    if (parentId !== undefined) tuple.parentConfig = { configurable: { thread_id: rawThread, checkpoint_ns: ns, checkpoint_id: parentId } };
    return tuple;
  }

  /** Pending writes of some writes records, in `writesSortKey` order (task path, task id, idx). */
  async #pendingWrites(records: readonly ChunkRecord[]): Promise<CheckpointPendingWrite[]> {
    const keyed: { key: WritesSortKey; taskId: string; channel: string; section: Section }[] = [];
    for (const r of records) {
      const taskId = r.attributes[ATTR.task] ?? '';
      const path = r.attributes[ATTR.path] ?? '';
      for (const w of decodeWrites(r)) keyed.push({ key: writesSortKey(path, taskId, w.idx), taskId, channel: w.channel, section: w.section });
    }
    keyed.sort((a, b) => compareWritesSortKeys(a.key, b.key));
    return Promise.all(keyed.map(async (w): Promise<CheckpointPendingWrite> => [w.taskId, w.channel, await this.serde.loadsTyped(w.section.type, w.section.bytes)]));
  }
}

function decodeWrites(record: ChunkRecord): { idx: number; channel: string; section: Section }[] {
  const what = `writes ${record.sessionId}/${record.chunkId}`;
  const { meta, sections } = decodeContainer(record.payload, what);
  if (!Array.isArray(meta) || meta.length !== sections.length) throw corruption(`${what}: header does not match its sections`);
  return (meta as [number, string][]).map(([idx, channel], i) => ({ idx, channel, section: sections[i]! }));
}

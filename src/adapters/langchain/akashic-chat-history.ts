/**
 * LangChain.js chat message history over the engine's turns.
 *
 * The transcript must come back message for message (tool calls, ids, additional kwargs included), which
 * MemAttention cannot promise: compaction rewrites turns into memory text. So each message is stored verbatim as a
 * `turn` chunk of the user, in a transcript session of its own:
 *
 *   user = userId, session = "lc.history." + sessionId (both as given: valid engine ids, the ones AkashicMemory uses)
 *   chunk: kind `turn`, text = the message's text, attributes { lc.type, lc.format: "1" },
 *          payload = LangChain's StoredMessage as UTF-8 JSON, no keywords.
 *
 * Chunk ids are ULIDs in insertion order, so the directory order of the session is the conversation order. With
 * `memory`, human and AI messages are also appended to the conversation session `sessionId` as MemAttention turns
 * whose turn ids are the transcript chunk ids: the chunk gate and compaction run as usual and a compacted memory's
 * provenance points back at the exact messages. Session-scoped recall never sees the transcript (another session);
 * user-scoped recall lists its chunks as candidates, but they carry no keywords, so the lexical SELECT never picks
 * them (they do take places in the recency window of candidates: see docs/adapters.md).
 */
import { BaseListChatMessageHistory } from '@langchain/core/chat_history';
import { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages, type BaseMessage, type StoredMessage } from '@langchain/core/messages';
import type { StoreSurface as Engine } from '../../protocol/surfaces.js';
import type { WriteOp } from '../../api/requests.js';
import { corruption, invalidArgument } from '../../errors.js';
import type { TurnInput } from '../../memattention/index.js';
import type { MemorySurface } from '../../protocol/surfaces.js';
import type { ChunkRef } from '../../api/chunk-input.js';
import { checkId } from '../../api/ids.js';
import { fitsEngineId } from '../shared/id-escaping.js';
import { keysOf, rejectUnknownKeys } from '../../api/option-keys.js';

export const HISTORY_SESSION_PREFIX = 'lc.history.';
const TYPE_ATTRIBUTE = 'lc.type';
/** Chunks per engine write or read of the transcript. */
const PAGE = 1000;

export interface AkashicChatMessageHistoryOptions {
  /** An open engine. Never closed by the history. */
  readonly store: Engine;
  readonly userId: string;
  readonly sessionId: string;
  /** When given, human and AI messages also become MemAttention turns of (userId, sessionId). */
  readonly memory?: MemorySurface;
}

const ROLES: Readonly<Record<string, string>> = { human: 'user', ai: 'assistant' };

function textOf(m: BaseMessage): string {
  if (typeof m.content === 'string') return m.content;
  return m.content
    .map((p) => (typeof p === 'string' ? p : p.type === 'text' && typeof p['text'] === 'string' ? p['text'] : ''))
    .filter((t) => t !== '')
    .join('\n');
}

const CHAT_HISTORY_KEYS = keysOf<AkashicChatMessageHistoryOptions>()('store', 'userId', 'sessionId', 'memory');

/**
 * A `BaseListChatMessageHistory` persisted in Akashic. Export name: `AkashicChatMessageHistory` from
 * `akashic/langchain`.
 *
 * @example
 *   const engine = await AkashicStore.open({ path: './memory' });   // from 'akashic'
 *   const history = new AkashicChatMessageHistory({ store: engine, userId: 'alice', sessionId: 's1' });
 *   await history.addMessages([new HumanMessage('hi'), new AIMessage('hello!')]);
 *   const messages = await history.getMessages();
 */

export class AkashicChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ['langchain', 'stores', 'message', 'akashic'];

  readonly #store: Engine;
  readonly #user: string;
  readonly #session: string;
  readonly #conversation: string;
  readonly #memory: MemorySurface | undefined;

  /** @throws AkashicError AKASHIC_INVALID_ARGUMENT naming a bad option. */
  constructor(options: AkashicChatMessageHistoryOptions) {
    super();
    if (options === null || typeof options !== 'object') throw invalidArgument('options must be an object');
    rejectUnknownKeys(options, CHAT_HISTORY_KEYS, 'AkashicChatMessageHistory options');
    const { store, userId, sessionId, memory } = options;
    if (store === null || typeof store !== 'object' || typeof store.write !== 'function') throw invalidArgument("AkashicChatMessageHistory: option store must be an open AkashicStore engine from 'akashic'");
    this.#user = checkId(userId, 'option userId');
    this.#conversation = checkId(sessionId, 'option sessionId');
    this.#session = HISTORY_SESSION_PREFIX + this.#conversation;
    if (!fitsEngineId(this.#session)) throw invalidArgument(`option sessionId is too long: the transcript session ${HISTORY_SESSION_PREFIX}<sessionId> must fit in 256 bytes`);
    if (memory !== undefined && (memory === null || typeof memory.completeRequest !== 'function')) throw invalidArgument('option memory must be an AkashicMemory');
    this.#store = store;
    this.#memory = memory;
  }

  /** The transcript, oldest first. */
  async getMessages(): Promise<BaseMessage[]> {
    const refs: ChunkRef[] = [];
    for await (const e of this.#store.list(this.#user, { sessionId: this.#session })) refs.push(e);
    const stored: StoredMessage[] = [];
    for (let i = 0; i < refs.length; i += PAGE) {
      const { chunks } = await this.#store.getMany(this.#user, refs.slice(i, i + PAGE));
      for (const c of chunks) {
        if (c === null) continue; // cleared since the listing
        if (c.payload === null) throw corruption(`chat message ${c.sessionId}/${c.chunkId} has no payload`);
        try {
          stored.push(JSON.parse(Buffer.from(c.payload).toString('utf8')) as StoredMessage);
        } catch (err) {
          throw corruption(`chat message ${c.sessionId}/${c.chunkId} does not hold JSON`, err);
        }
      }
    }
    return mapStoredMessagesToChatMessages(stored);
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /** Appends messages in one atomic write (all or none), then hands human and AI messages to the memory. */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    if (!Array.isArray(messages)) throw invalidArgument('messages must be an array');
    if (messages.length === 0) return;
    const stored = mapChatMessagesToStoredMessages(messages);
    const ops: WriteOp[] = messages.map((m, i) => ({
      op: 'put',
      sessionId: this.#session,
      kind: 'turn',
      text: textOf(m),
      attributes: { [TYPE_ATTRIBUTE]: stored[i]!.type, 'lc.format': '1' },
      payload: Buffer.from(JSON.stringify(stored[i]), 'utf8'),
    }));
    const written = await this.#store.write(this.#user, ops);
    if (this.#memory === undefined) return;
    const turns: TurnInput[] = [];
    messages.forEach((m, i) => {
      const role = ROLES[m.getType()];
      const text = textOf(m);
      if (role !== undefined && text !== '') turns.push({ role, text, turnId: written[i]!.chunkId });
    });
    if (turns.length > 0) await this.#memory.completeRequest({ user: this.#user, session: this.#conversation, turns });
  }

  /**
   * Deletes the transcript (atomically when it holds at most 1000 messages). Memories already compacted from it stay:
   * they are the agent's memory, not the transcript.
   */
  override async clear(): Promise<void> {
    const ops: WriteOp[] = [];
    for await (const e of this.#store.list(this.#user, { sessionId: this.#session })) {
      ops.push({ op: 'delete', sessionId: this.#session, chunkId: e.chunkId, expectVersion: e.entry.version });
    }
    for (let i = 0; i < ops.length; i += PAGE) await this.#store.write(this.#user, ops.slice(i, i + PAGE));
  }
}

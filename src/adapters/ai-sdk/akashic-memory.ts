/**
 * AI SDK (`ai` 6) memory middleware over MemAttention: before a call, the memory recalled for the request's
 * (user, session) is prepended as a system message; after it, the user's prompt and the model's text answer are
 * written back as one request's turns (`AkashicMemory.completeRequest`), which feeds the chunk gate and compaction.
 * No call waits for a compaction: write-back resolves once the turns are durable (the memory's default background
 * write-back), and the compaction of a user's earlier sessions on a session change runs in the background.
 *
 * The (user, session) travels per call in `providerOptions.akashic`; a call without it passes through untouched.
 * Types come from `ai` itself (its `LanguageModelMiddleware` is `LanguageModelV3Middleware`), so the adapter needs no
 * direct dependency on `@ai-sdk/provider`.
 */
import type { LanguageModelMiddleware } from 'ai';
import { invalidArgument } from '../../errors.js';
import { DEFAULT_MEMORY_BUDGET_TOKENS, type MemoryScope, type TurnInput } from '../../memattention/index.js';
import type { MemorySurface } from '../../protocol/surfaces.js';
import { compileFilter, type ChunkFilter } from '../../api/chunk-filter.js';
import { checkId } from '../../api/ids.js';
import { compileScope } from '../../api/scope-filter.js';
import { keysOf, rejectUnknownKeys } from '../../api/option-keys.js';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** What a call passes in `providerOptions.akashic`. */
export interface AkashicProviderOptions {
  readonly userId: string;
  readonly sessionId: string;
  /** false: inject nothing (no recall). Default true. */
  readonly enableRetrieval?: boolean;
  /** false: write nothing back. Default true. */
  readonly enableWriteback?: boolean;
  /** Token budget of the injected memory; default the memory's `memoryBudgetTokens`. */
  readonly memoryBudgetTokens?: number;
  /** The agent making the call: the turns written back (and the chunks compacted from them) carry it. */
  readonly agentId?: string;
  /** The run the call belongs to: the turns written back carry it. */
  readonly runId?: string;
  /**
   * Narrows what the call recalls (`AkashicMemory.recall`'s options of the same names): agent and run scopes (an
   * id, or several: a shared scope such as a team's memory) and a filter on attributes and creation time. Default:
   * all of the user's memory.
   */
  readonly recall?: { readonly agentId?: string | readonly string[]; readonly runId?: string | readonly string[]; readonly filter?: ChunkFilter };
}

export interface AkashicMemoryOptions {
  /** The MemAttention layer to recall from and write to. The middleware never closes it. */
  readonly memory: MemorySurface;
  /** First line of the injected system message. Default: `Memory of earlier conversations with this user:`. */
  readonly header?: string;
  /**
   * Receives write-back failures. Without it a failed write-back rejects `generateText` and errors the stream of
   * `streamText` (at its end), so a lost memory is never silent.
   */
  readonly onWritebackError?: (err: unknown) => void;
  /**
   * Whose memory a call recalls: `'user'` (default) searches every conversation of the user, `'session'` only the
   * call's own session. A chat app's next conversation is a new session, so session scope would find nothing.
   */
  readonly recallScope?: MemoryScope;
  /**
   * When a user's call arrives for a session other than that user's previous one, compact the pending (not yet
   * compacted) turns of the user's other sessions, in the background: the call never waits for it. Until that
   * compaction has committed, the previous session's pending turns are added to the injected memory (the newest
   * that fit its budget), so the new conversation recalls them at once. Default true. Without it, a conversation
   * shorter than the chunk gate (`chunkGateTokens`, 1,024 tokens by default) is only recalled after
   * `memory.endSession`, `endSessionAfterIdleMs` or the memory's `idleCompactMs`.
   */
  readonly compactOnSessionChange?: boolean;
  /**
   * End a (user, session) this many ms after its last call: its pending turns are compacted in the background
   * (`memory.endSession`; a failure goes to `onWritebackError`). 0 (default): never.
   */
  readonly endSessionAfterIdleMs?: number;
}


export const DEFAULT_MEMORY_HEADER = 'Memory of earlier conversations with this user:';

/** How many users' last sessions the middleware remembers (older users just compact again on their next call). */
const LAST_SESSION_USERS = 10_000;

const MIDDLEWARE_KEYS = keysOf<AkashicMemoryOptions>()('memory', 'header', 'onWritebackError', 'recallScope', 'compactOnSessionChange', 'endSessionAfterIdleMs');
const PROVIDER_KEYS = keysOf<AkashicProviderOptions>()('userId', 'sessionId', 'enableRetrieval', 'enableWriteback', 'memoryBudgetTokens', 'agentId', 'runId', 'recall');
const PROVIDER_RECALL_KEYS = keysOf<NonNullable<AkashicProviderOptions['recall']>>()('agentId', 'runId', 'filter');

/** Reads and checks `providerOptions.akashic`; null when the call carries none. */
function callOptions(params: CallOptions): AkashicProviderOptions | null {
  const raw = params.providerOptions?.['akashic'] as Record<string, unknown> | undefined;
  if (raw === undefined) return null;
  if (raw === null || typeof raw !== 'object') throw invalidArgument('providerOptions.akashic must be an object');
  rejectUnknownKeys(raw, PROVIDER_KEYS, 'providerOptions.akashic');
  const { userId, sessionId, enableRetrieval, enableWriteback, memoryBudgetTokens, agentId, runId, recall } = raw;
  if (typeof userId !== 'string' || typeof sessionId !== 'string') throw invalidArgument('providerOptions.akashic needs string userId and sessionId');
  for (const [name, v] of [['enableRetrieval', enableRetrieval], ['enableWriteback', enableWriteback]] as const) {
    if (v !== undefined && typeof v !== 'boolean') throw invalidArgument(`providerOptions.akashic.${name} must be a boolean`);
  }
  if (memoryBudgetTokens !== undefined && (typeof memoryBudgetTokens !== 'number' || !Number.isSafeInteger(memoryBudgetTokens) || memoryBudgetTokens < 0)) {
    throw invalidArgument('providerOptions.akashic.memoryBudgetTokens must be a non-negative integer');
  }
  // Checked before the model runs, so a bad id never costs a model call whose write-back would then fail.
  if (agentId !== undefined) checkId(agentId, 'providerOptions.akashic.agentId');
  if (runId !== undefined) checkId(runId, 'providerOptions.akashic.runId');
  if (recall !== undefined) {
    if (recall === null || typeof recall !== 'object' || Array.isArray(recall)) throw invalidArgument('providerOptions.akashic.recall must be an object');
    const r = recall as Record<string, unknown>;
    rejectUnknownKeys(r, PROVIDER_RECALL_KEYS, 'providerOptions.akashic.recall');
    compileScope(r, 'providerOptions.akashic.recall');
    if (r['filter'] !== undefined) compileFilter(r['filter'], 'providerOptions.akashic.recall.filter');
  }
  return raw as unknown as AkashicProviderOptions;
}

function userText(message: Prompt[number] | undefined): string {
  if (message?.role !== 'user') return '';
  return message.content
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n');
}

/** Text of the last user message: the recall query. */
function lastUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) if (prompt[i]!.role === 'user') return userText(prompt[i]);
  return '';
}

/**
 * Creates the middleware. Use it with `wrapLanguageModel({ model, middleware: akashicMemory({ memory }) })` and pass
 * `providerOptions: { akashic: { userId, sessionId } }` on each call.
 *
 * Write-back records the prompt's final user message only when the call answers it (the prompt ends with it), so
 * the follow-up steps of a tool loop add their answers without repeating the question.
 *
 * @example
 *   const memory = new AkashicMemory(await AkashicStore.open({ path: './memory' }));
 *   const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: akashicMemory({ memory }) });
 *   const { text } = await generateText({ model, prompt: 'Where do I live?', providerOptions: { akashic: { userId: 'alice', sessionId: 's1' } } });
 */
export function akashicMemory(options: AkashicMemoryOptions): LanguageModelMiddleware {
  if (options === null || typeof options !== 'object') throw invalidArgument('options must be an object');
  rejectUnknownKeys(options, MIDDLEWARE_KEYS, 'akashicMemory options');
  const { memory, header = DEFAULT_MEMORY_HEADER, onWritebackError, recallScope = 'user', compactOnSessionChange = true, endSessionAfterIdleMs = 0 } = options;
  if (memory === null || typeof memory !== 'object' || typeof memory.recall !== 'function' || typeof memory.completeRequest !== 'function') {
    throw invalidArgument('akashicMemory: option memory must be an AkashicMemory');
  }
  if (typeof header !== 'string') throw invalidArgument('option header must be a string');
  if (onWritebackError !== undefined && typeof onWritebackError !== 'function') throw invalidArgument('option onWritebackError must be a function');
  if (recallScope !== 'user' && recallScope !== 'session') throw invalidArgument("option recallScope must be 'user' or 'session'");
  if (typeof compactOnSessionChange !== 'boolean') throw invalidArgument('option compactOnSessionChange must be a boolean');
  if (typeof endSessionAfterIdleMs !== 'number' || !Number.isSafeInteger(endSessionAfterIdleMs) || endSessionAfterIdleMs < 0) {
    throw invalidArgument('option endSessionAfterIdleMs must be a non-negative integer of ms');
  }

  /** Background work has no caller: its failure goes to onWritebackError (dropped without one, the turns stay pending). */
  const background = (work: Promise<unknown>): void => {
    work.catch((err: unknown) => onWritebackError?.(err));
  };

  // Idle timers per (user, session): each call re-arms its own.
  const idle = new Map<string, NodeJS.Timeout>();
  function armIdle(o: AkashicProviderOptions): void {
    if (endSessionAfterIdleMs === 0) return;
    const key = JSON.stringify([o.userId, o.sessionId]);
    clearTimeout(idle.get(key));
    const timer = setTimeout(() => {
      idle.delete(key);
      background(memory.endSession({ user: o.userId, session: o.sessionId }));
    }, endSessionAfterIdleMs);
    timer.unref();
    idle.set(key, timer);
  }

  // Per user, the previous session while its pending turns may not be compacted yet (after a session change).
  const previousPending = new Map<string, string>();
  /** The previous session's still-pending turns, newest that fit `budget` tokens, as memory lines. */
  async function pendingOfPrevious(o: AkashicProviderOptions, budget: number): Promise<string> {
    const previous = previousPending.get(o.userId);
    if (previous === undefined) return '';
    const turns = await memory.activeTurns({ user: o.userId, session: previous });
    if (turns.length === 0) {
      previousPending.delete(o.userId);
      return '';
    }
    const kept: string[] = [];
    let used = 0;
    for (let i = turns.length - 1; i >= 0; i--) {
      const t = turns[i]!;
      if (used + t.tokenCount > budget) break;
      used += t.tokenCount;
      kept.unshift(`${t.role}: ${t.text}`);
    }
    return kept.join('\n');
  }

  // The session each user last called with (most recent users last; bounded).
  const lastSession = new Map<string, string>();
  async function onSession(o: AkashicProviderOptions): Promise<void> {
    if (!compactOnSessionChange) return;
    const previous = lastSession.get(o.userId);
    lastSession.delete(o.userId);
    lastSession.set(o.userId, o.sessionId);
    if (lastSession.size > LAST_SESSION_USERS) lastSession.delete(lastSession.keys().next().value!);
    if (previous === o.sessionId) return;
    if (previous !== undefined) previousPending.set(o.userId, previous);
    else previousPending.delete(o.userId);
    // Never waited for: the earlier turns are durable, and stay pending (and injected) until it commits.
    background(memory.endOtherSessions({ user: o.userId, session: o.sessionId }));
  }

  /**
   * Hands the request's turns to the memory. With the memory's default background write-back this resolves once
   * they are durable (no compaction is waited for).
   */
  async function writeBack(o: AkashicProviderOptions, prompt: Prompt, answer: string): Promise<void> {
    armIdle(o);
    const turns: TurnInput[] = [];
    const last = prompt.at(-1);
    const asked = last?.role === 'user' ? userText(last) : '';
    if (asked !== '') turns.push({ role: 'user', text: asked });
    if (answer !== '') turns.push({ role: 'assistant', text: answer });
    if (turns.length === 0) return;
    try {
      await memory.completeRequest({
        user: o.userId,
        session: o.sessionId,
        turns,
        ...(o.agentId === undefined ? {} : { agentId: o.agentId }),
        ...(o.runId === undefined ? {} : { runId: o.runId }),
      });
    } catch (err) {
      if (onWritebackError === undefined) throw err;
      onWritebackError(err);
    }
  }

  return {
    specificationVersion: 'v3',

    async transformParams({ params }) {
      const o = callOptions(params);
      if (o === null) return params;
      if (o.enableWriteback !== false) await onSession(o);
      if (o.enableRetrieval === false) return params;
      const query = lastUserText(params.prompt);
      if (query === '') return params;
      const recalled = await memory.recall({
        user: o.userId,
        session: o.sessionId,
        query,
        scope: recallScope,
        ...(o.memoryBudgetTokens === undefined ? {} : { memoryBudgetTokens: o.memoryBudgetTokens }),
        ...(o.recall?.agentId === undefined ? {} : { agentId: o.recall.agentId }),
        ...(o.recall?.runId === undefined ? {} : { runId: o.recall.runId }),
        ...(o.recall?.filter === undefined ? {} : { filter: o.recall.filter }),
      });
      const budget = o.memoryBudgetTokens ?? DEFAULT_MEMORY_BUDGET_TOKENS;
      const pending = compactOnSessionChange ? await pendingOfPrevious(o, Math.max(0, budget - recalled.tokenCount)) : '';
      const text = [recalled.text, pending].filter((t) => t !== '').join('\n\n');
      if (text === '') return params;
      return { ...params, prompt: [{ role: 'system', content: `${header}\n\n${text}` }, ...params.prompt] };
    },

    async wrapGenerate({ doGenerate, params }): Promise<GenerateResult> {
      const o = callOptions(params);
      const result = await doGenerate();
      if (o !== null && o.enableWriteback !== false) {
        const answer = result.content
          .filter((c) => c.type === 'text')
          .map((c) => (c as { text: string }).text)
          .join('');
        await writeBack(o, params.prompt, answer);
      }
      return result;
    },

    async wrapStream({ doStream, params }): Promise<StreamResult> {
      const o = callOptions(params);
      const result = await doStream();
      if (o === null || o.enableWriteback === false) return result;
      let answer = '';
      let failed = false;
      const collect = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') answer += part.delta;
          else if (part.type === 'error') failed = true;
          controller.enqueue(part);
        },
        // Runs once the model's stream ended normally (not when the consumer cancels): the answer is complete.
        async flush() {
          if (!failed) await writeBack(o, params.prompt, answer);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(collect) };
    },
  };
}

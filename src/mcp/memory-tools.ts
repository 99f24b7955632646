/**
 * The memory as Model Context Protocol tools: remember, recall, forget and history, one library call each. The
 * same server definition serves stdio (`akashic mcp`) and streamable HTTP (`/mcp` of `akashic serve`); the
 * tenant decides which users a caller may name, as it does for the REST routes.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AkashicStore } from '../engine/akashic-store.js';
import { AkashicError } from '../errors.js';
import type { AkashicMemory, RecallResult } from '../memattention/memory.js';
import type { ChunkVersion } from '../index.js';
import { API_VERSION } from '../protocol/routes.js';

/** Which users a caller may name (the service's tenant; an in-process caller allows every user). */
export interface ToolTenant {
  allows(userId: string): boolean;
}

export interface MemoryToolDeps {
  readonly store: AkashicStore;
  readonly memory: AkashicMemory;
  readonly tenant: ToolTenant;
  /** Sees each library result (metrics). */
  readonly observe?: (result: unknown) => void;
  /** Wraps each library call (the service tracks calls for shutdown and applies its timeout). */
  readonly call?: <T>(p: Promise<T>) => Promise<T>;
}

const user = z.string().describe('The end user whose memory this is (a stable id such as an account id). Use the same id every time for the same person.');
const session = z.string().describe('The conversation this belongs to (a stable id per conversation or thread).');

const INSTRUCTIONS =
  'Long-term memory for conversations. Call `recall` at the start of a turn with what the user asked, and put the ' +
  'returned text in your context. Call `remember` with the turns of each exchange worth keeping. Use `forget` only ' +
  'when the user asks to delete something, and `history` to see how a remembered fact changed over time.';

/** An MCP server with the memory tools over `deps`. Connect it to a transport. */
export function createMemoryMcpServer(deps: MemoryToolDeps): McpServer {
  const server = new McpServer({ name: 'akashic', version: API_VERSION }, { instructions: INSTRUCTIONS });
  const call = deps.call ?? (<T>(p: Promise<T>): Promise<T> => p);
  const checkUser = (u: string): void => {
    if (!deps.tenant.allows(u)) throw new AkashicError('AKASHIC_FORBIDDEN', `this key is not allowed user ${JSON.stringify(u)}`);
  };
  const run = async (u: string, fn: () => Promise<unknown>, show: (r: never) => string): Promise<CallToolResult> => {
    try {
      checkUser(u);
      const result = await call(fn());
      deps.observe?.(result);
      return { content: [{ type: 'text', text: show(result as never) }] };
    } catch (err) {
      const code = err instanceof AkashicError ? err.code : 'AKASHIC_IO';
      const message = err instanceof Error ? err.message : String(err);
      return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
    }
  };

  server.registerTool(
    'remember',
    {
      title: 'Remember conversation turns',
      description:
        'Store turns of a conversation in long-term memory. Pass the turns of one exchange (for example the user ' +
        'message and your reply) in order. Turns are kept verbatim at once and condensed into memory chunks as they ' +
        'accumulate; set endSession to true when the conversation is over so everything pending is condensed and ' +
        'can be recalled from other conversations. Returns the ids of the stored turns.',
      inputSchema: z.strictObject({
        user,
        session,
        turns: z
          .array(z.strictObject({ role: z.string().describe("Who said it: 'user' or 'assistant' (or a tool name)."), text: z.string().describe('What was said, verbatim.') }))
          .min(1)
          .describe('The turns to store, oldest first.'),
        endSession: z.boolean().optional().describe('True when the conversation has ended: condense what is pending now.'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    (a) =>
      run(
        a.user,
        async () => {
          const appended = await deps.memory.completeRequest({ user: a.user, session: a.session, turns: a.turns });
          const ended = a.endSession === true ? await deps.memory.endSession({ user: a.user, session: a.session }) : null;
          return { ...appended, ...(ended === null ? {} : { compacted: ended.compacted }) };
        },
        (r: { turnIds: readonly string[] }) => `Stored ${r.turnIds.length} turn(s)${a.endSession === true ? ' and condensed the session' : ''}.`,
      ),
  );

  server.registerTool(
    'recall',
    {
      title: 'Recall memories',
      description:
        "Retrieve what is remembered about the user that is relevant to a query (usually the user's latest " +
        'message). Returns dated memory text to place in your context, followed by the recent turns of this ' +
        'session that are not condensed yet, and the ids of the chunks it came from (for `history` and `forget`). ' +
        "Scope 'user' searches all of the user's conversations; 'session' only this one.",
      inputSchema: z.strictObject({
        user,
        session,
        query: z.string().describe('What to remember things about, in natural language.'),
        scope: z.enum(['session', 'user']).optional().describe("'user' (default here): every conversation of the user; 'session': this conversation only."),
        budgetTokens: z.number().int().min(0).max(100_000).optional().describe('Most tokens of memory text to return (default 1536).'),
      }),
      annotations: { readOnlyHint: true },
    },
    (a) =>
      run(
        a.user,
        () =>
          deps.memory.recall({
            user: a.user,
            session: a.session,
            query: a.query,
            scope: a.scope ?? 'user',
            ...(a.budgetTokens === undefined ? {} : { memoryBudgetTokens: a.budgetTokens }),
          }),
        showRecall,
      ),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget memories',
      description:
        'Permanently delete memory. With chunkId (from `recall`), delete that one memory chunk of the session. ' +
        'Without chunkId, erase the whole session, or with no session either, everything remembered about the ' +
        'user. Erasure cannot be undone: use it only when the user asks for it.',
      inputSchema: z.strictObject({
        user,
        session: session.optional(),
        chunkId: z.string().optional().describe('One chunk to delete (needs session).'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    (a) =>
      run(
        a.user,
        async () => {
          if (a.chunkId !== undefined) {
            if (a.session === undefined) throw new AkashicError('AKASHIC_INVALID_ARGUMENT', 'deleting a chunk needs its session');
            const [r] = await deps.store.write(a.user, [{ op: 'delete', sessionId: a.session, chunkId: a.chunkId }]);
            return { deleted: r };
          }
          return { purged: await deps.memory.purge(a.session === undefined ? { user: a.user } : { user: a.user, session: a.session }) };
        },
        (r: { deleted?: unknown; purged?: { chunks: number; sessionId: string | null } }) =>
          r.purged === undefined ? `Deleted chunk ${a.chunkId}.` : `Erased ${r.purged.sessionId === null ? 'the user' : 'the session'}: ${r.purged.chunks} chunk(s).`,
      ),
  );

  server.registerTool(
    'history',
    {
      title: 'History of a memory',
      description:
        'Show how one memory chunk changed: every kept version, newest first, with when it was current and what ' +
        'replaced it. Use the session and chunk ids that `recall` returns.',
      inputSchema: z.strictObject({ user, session, chunkId: z.string().describe('The chunk id, from recall.') }),
      annotations: { readOnlyHint: true },
    },
    (a) => run(a.user, () => deps.memory.history({ user: a.user, session: a.session, chunkId: a.chunkId }), showHistory),
  );
  return server;
}

function showRecall(r: RecallResult): string {
  const parts: string[] = [];
  parts.push(r.text === '' ? 'No stored memory matches.' : r.text);
  if (r.activeTurns.length > 0) parts.push('Recent turns of the current session:\n' + r.activeTurns.map((t) => `${t.role}: ${t.text}`).join('\n'));
  if (r.chunks.length > 0) parts.push('Chunks: ' + r.chunks.map((c) => `${c.sessionId}/${c.chunkId}`).join(', '));
  return parts.join('\n\n');
}

function showHistory(versions: readonly ChunkVersion[]): string {
  if (versions.length === 0) return 'No versions of that chunk are kept.';
  return versions
    .map((v) => {
      const until = v.validUntil === null ? 'current' : `until ${new Date(v.validUntil).toISOString()} (${v.cause ?? 'ended'}${v.supersededBy === null ? '' : ` by ${v.supersededBy.sessionId}/${v.supersededBy.chunkId}`})`;
      return `v${v.version} from ${new Date(v.validFrom).toISOString()} ${until}:\n${v.record.text}`;
    })
    .join('\n\n');
}

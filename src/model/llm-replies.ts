/**
 * What an LLM must answer for each MemAttention call, and how much of a wrong answer Akashic repairs.
 *
 * Each reply is parsed as JSON, checked against a zod schema, then checked for meaning against the request. The
 * rule for meaning: repair what is unambiguous and harmless (drop an unknown id from a ranking, add a forgotten id to
 * a partition as a singleton), reject what would change stored data on a guess (an update naming a chunk that was
 * not offered). A rejected reply throws {@link MalformedReplyError}, which the client treats as retryable.
 *
 * @internal
 */
import type * as z from 'zod';
import { lazily, zod } from '../util/lazy-zod.js';
import type { JointCompactResult } from './memory-model.js';

/** The reply could not be used: not JSON, wrong shape, or referring to ids it was not given. */
export class MalformedReplyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MalformedReplyError';
  }
}

/** The schema of one method's reply, built on first use (zod loads only when a model is first asked). */
export type ReplySchema<T> = () => z.ZodType<T>;
/** The reply type a ReplySchema checks for. */
export type ReplyOf<S> = S extends ReplySchema<infer T> ? T : never;

function replySchema<S extends z.ZodType>(build: (zed: typeof z.z) => S): ReplySchema<z.output<S>> {
  // A schema S is a ZodType of its own output; TypeScript cannot see that for a generic S, only for concrete ones.
  return lazily(() => build(zod())) as unknown as ReplySchema<z.output<S>>;
}

export const compressReply = replySchema((z) => z.object({ text: z.string() }));
export const metaReply = replySchema((z) => z.object({ keywords: z.array(z.string()) }));
export const selectReply = replySchema((z) => z.object({ ids: z.array(z.string()) }));
export const jointCompactReply = replySchema((z) =>
  z.object({
    text: z.string(),
    updates: z.array(z.object({ id: z.string(), text: z.string() })),
    deletions: z.array(z.string()),
  }),
);
export const groupsReply = replySchema((z) => z.object({ groups: z.array(z.array(z.string())) }));

/** Parses `content` as JSON and validates it against `schema`. */
export function parseReply<T>(content: string | null | undefined, replySchema: ReplySchema<T>): T {
  const schema = replySchema();
  if (typeof content !== 'string' || content.trim().length === 0) {
    throw new MalformedReplyError('reply has no content');
  }
  let json: unknown;
  try {
    json = JSON.parse(stripCodeFence(content));
  } catch (err) {
    throw new MalformedReplyError('reply is not valid JSON', { cause: err });
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    throw new MalformedReplyError(`reply does not match the schema: ${zod().prettifyError(result.error)}`, {
      cause: result.error,
    });
  }
  return result.data;
}

/** Some OpenAI-compatible servers ignore `response_format` and wrap JSON in a Markdown fence; accept that much. */
function stripCodeFence(content: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/u.exec(content);
  return fenced?.[1] ?? content;
}

/** Keywords contract: trimmed, lower-cased, non-empty, no duplicates, order kept. */
export function normalizeKeywords(keywords: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of keywords) {
    const keyword = raw.trim().toLowerCase();
    if (keyword.length === 0 || seen.has(keyword)) continue;
    seen.add(keyword);
    out.push(keyword);
  }
  return out;
}

/** SELECT: unknown and repeated ids are dropped (a ranking stays meaningful without them), then cut to `topP`. */
export function repairSelection(ids: readonly string[], known: ReadonlySet<string>, topP: number): string[] {
  const out: string[] = [];
  for (const id of ids) {
    if (out.length >= topP) break;
    if (known.has(id) && !out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * JOINT-COMPACT: an update or deletion of a chunk that was not offered, or a chunk both updated and deleted, or
 * updated twice, means the model lost track; applying any of it could destroy unrelated memory, so reject.
 */
export function checkJointCompact(
  reply: ReplyOf<typeof jointCompactReply>,
  related: ReadonlySet<string>,
): JointCompactResult {
  const updated = new Set<string>();
  for (const update of reply.updates) {
    if (!related.has(update.id)) throw new MalformedReplyError(`update names unknown chunk ${JSON.stringify(update.id)}`);
    if (updated.has(update.id)) throw new MalformedReplyError(`chunk ${JSON.stringify(update.id)} updated twice`);
    updated.add(update.id);
  }
  const deletions = [...new Set(reply.deletions)];
  for (const id of deletions) {
    if (!related.has(id)) throw new MalformedReplyError(`deletion names unknown chunk ${JSON.stringify(id)}`);
    if (updated.has(id)) throw new MalformedReplyError(`chunk ${JSON.stringify(id)} both updated and deleted`);
  }
  return {
    text: reply.text,
    updates: reply.updates.map((update) => ({ id: update.id, text: update.text })),
    deletions,
  };
}

/**
 * COLOCATE: unknown ids are dropped, an id already placed in an earlier group is dropped from later ones, and groups
 * left with fewer than two members are dropped (a group of one co-locates nothing).
 */
export function repairColocation(groups: readonly (readonly string[])[], known: ReadonlySet<string>): string[][] {
  const placed = new Set<string>();
  const out: string[][] = [];
  for (const group of groups) {
    const members = takeUnplaced(group, known, placed);
    if (members.length >= 2) out.push(members);
  }
  return out;
}

/**
 * GROUP: the result must partition the input. Unknown and already-placed ids are dropped, empty groups removed, and
 * every input id the model forgot is appended as its own singleton group (in input order), which is the
 * conservative choice: a singleton never moves a chunk next to something unrelated.
 */
export function repairPartition(groups: readonly (readonly string[])[], ids: readonly string[]): string[][] {
  const known = new Set(ids);
  const placed = new Set<string>();
  const out: string[][] = [];
  for (const group of groups) {
    const members = takeUnplaced(group, known, placed);
    if (members.length > 0) out.push(members);
  }
  for (const id of ids) if (!placed.has(id)) out.push([id]);
  return out;
}

/** The ids of `group` that are known and not yet placed, in order; marks them placed. */
function takeUnplaced(group: readonly string[], known: ReadonlySet<string>, placed: Set<string>): string[] {
  const members: string[] = [];
  for (const id of group) {
    if (!known.has(id) || placed.has(id)) continue;
    placed.add(id);
    members.push(id);
  }
  return members;
}

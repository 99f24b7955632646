/**
 * The prompts Akashic sends to an LLM for each MemAttention call (the Akashic paper §4.1, Algorithms 1 and 2). Each system
 * prompt states the task and the exact JSON object expected; the user message carries the inputs as JSON so that
 * ids and texts reach the model unambiguously. Prompt wording is not a stored format and may change freely.
 *
 * @internal
 */
import type { ChunkBodyView, ChunkMetaView, CoAccessView, ModelTurn } from './memory-model.js';

/** One request: a system and a user message. */
export interface Prompt {
  readonly system: string;
  readonly user: string;
}

const JSON_ONLY = 'Reply with one JSON object and nothing else.';

const isoDate = (ms: number): string => (Number.isFinite(ms) ? new Date(ms).toISOString() : 'unknown');

export function compressPrompt(turns: readonly ModelTurn[]): Prompt {
  return {
    system: [
      'You maintain the long-term memory of an AI agent. Rewrite one chunk of conversation into compact memory text.',
      'Keep every fact, name, number, date, decision, preference, instruction, code identifier and open question;',
      'drop greetings, filler and repetition. Write dated, self-contained statements in the language of the input.',
      `${JSON_ONLY} Shape: {"text": string}.`,
    ].join(' '),
    user: JSON.stringify({
      turns: turns.map((turn) => ({ role: turn.role, at: isoDate(turn.at), text: turn.text })),
    }),
  };
}

export function metaPrompt(text: string): Prompt {
  return {
    system: [
      'Extract the keywords that best identify what this memory text is about, for later retrieval:',
      'names, entities, topics, places, dates, identifiers. At most 64, most important first, lower-case, no duplicates.',
      `${JSON_ONLY} Shape: {"keywords": string[]}.`,
    ].join(' '),
    user: JSON.stringify({ text }),
  };
}

export function selectPrompt(
  query: { readonly text: string; readonly keywords: readonly string[] },
  candidates: readonly ChunkMetaView[],
  topP: number,
): Prompt {
  return {
    system: [
      `Select the at most ${topP} memory chunks whose keywords are most relevant to the query, most relevant first.`,
      'Judge semantic relevance, not only shared words. Use only ids from the candidate list;',
      'return fewer (or none) when fewer are relevant.',
      `${JSON_ONLY} Shape: {"ids": string[]}.`,
    ].join(' '),
    user: JSON.stringify({
      query: { text: query.text, keywords: query.keywords },
      topP,
      candidates: candidates.map((c) => ({ id: c.id, created: isoDate(c.createdAt), keywords: c.keywords })),
    }),
  };
}

export function jointCompactPrompt(
  fresh: { readonly text: string; readonly keywords: readonly string[] },
  related: readonly ChunkBodyView[],
): Prompt {
  return {
    system: [
      'You reconcile a new memory chunk with related older chunks of the same person\'s conversations.',
      'Return the refined text of the new chunk (keep all of its facts; you may add context from older chunks).',
      'Work statement by statement. An older statement is stale only when a statement of the new chunk gives the',
      'same fact about the same person a new value ("I started at Globex" after "I work at Acme"; "home is Seattle',
      'now" after "I live in Boston"). Then rewrite that older chunk without the stale statement, word for word',
      'otherwise (an update), or delete the chunk if nothing else in it remains.',
      'Never retire anything for: a fact about someone else ("my brother plays tennis on Fridays" says nothing about',
      'the speaker), an addition ("my daughter also started violin", "I also work at a cafe"), a plan, wish or',
      'question ("I might move to Denver"), something about the past ("I used to live in Rome"), or an unrelated',
      'sentence. Leave unaffected chunks out of both lists.',
      'Only ids of the related chunks given may appear; a chunk may be updated or deleted, not both.',
      'For every updated or deleted chunk, give in "reasons" one line: the stale statement, the new one, and the fact.',
      `${JSON_ONLY} Shape: {"text": string, "updates": [{"id": string, "text": string}], "deletions": string[],`,
      '"reasons": {"<id>": string}}.',
    ].join(' '),
    user: JSON.stringify({
      fresh: { text: fresh.text, keywords: fresh.keywords },
      related: related.map((c) => ({ id: c.id, created: isoDate(c.createdAt), keywords: c.keywords, text: c.text })),
    }),
  };
}

function coAccessJson(coAccess: CoAccessView): object {
  return {
    accesses: Object.fromEntries(coAccess.accesses),
    pairs: [...coAccess.pairs].map(([key, count]) => {
      const [a, b] = key.split('\u0000');
      return { a, b, count };
    }),
  };
}

export function colocatePrompt(chunks: readonly ChunkMetaView[], coAccess: CoAccessView, tauAssoc: number): Prompt {
  return {
    system: [
      'These memory chunks were retrieved together by one request. Group the ones likely to be retrieved together',
      'again, so they can be stored side by side. Use their keywords and the co-access statistics',
      '(accesses: how often each chunk was retrieved; pairs: how often two were retrieved together).',
      `Return a group only if your association strength for it is at least ${tauAssoc} on a 0..1 scale.`,
      'Groups have at least two ids, each id in at most one group, only ids given.',
      `${JSON_ONLY} Shape: {"groups": string[][]}.`,
    ].join(' '),
    user: JSON.stringify({
      tauAssoc,
      chunks: chunks.map((c) => ({ id: c.id, keywords: c.keywords })),
      coAccess: coAccessJson(coAccess),
    }),
  };
}

export function groupPrompt(chunks: readonly ChunkMetaView[], coAccess: CoAccessView): Prompt {
  return {
    system: [
      'Partition these memory chunks into affinity groups: chunks about the same topic or usually retrieved together',
      'share a group. Use their keywords and the co-access statistics. Every id must appear in exactly one group;',
      'a chunk with no affinity is a group of its own.',
      `${JSON_ONLY} Shape: {"groups": string[][]}.`,
    ].join(' '),
    user: JSON.stringify({
      chunks: chunks.map((c) => ({ id: c.id, created: isoDate(c.createdAt), keywords: c.keywords })),
      coAccess: coAccessJson(coAccess),
    }),
  };
}

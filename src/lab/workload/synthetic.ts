/**
 * A deterministic generator of LoCoMo-shaped conversations, for users without the LoCoMo files and for runs far
 * larger than LoCoMo's ten conversations.
 *
 * Each user is a long-term chat between two friends over many sessions. A user has a handful of recurring topics
 * (home, work, a pet, hiking, ...); each session covers two or three of them. Facts about a topic are stated in one
 * session and mentioned again in later, distant ones; states get replaced ("moved to X", later "moved to Y") and
 * collections grow. Questions are built from the stated facts, so their evidence is exact.
 */
import { invalidArgument } from '../../errors.js';
import type { Conversation, Session, Turn } from './conversation.js';
import { createPrng, deriveSeed, type Prng } from './prng.js';
import { createNameForge, type NameForge } from './synthetic-entities.js';
import {
  ACKS,
  CLOSERS,
  GREETING_REPLIES,
  LISTENER_ASIDES,
  OPENERS,
  OWNER_ASIDES,
  SMALL_TALK,
  TRANSITIONS,
} from './synthetic-phrases.js';
import { buildQuestions, fill, type StatedFact } from './synthetic-questions.js';
import { MAX_STATE_VALUES, TOPICS, type TopicSpec } from './synthetic-topics.js';
import {
  ASSISTANT_CLOSERS,
  ASSISTANT_GREETINGS,
  ASSISTANT_NAME,
  ASSISTANT_OPENERS,
  ASSISTANT_SIGNOFFS,
  CONFIRMATIONS,
  DIARY_CLOSERS,
  DIARY_MUSINGS,
  DIARY_NAME,
  DIARY_OPENERS,
  GROUP_CHIME_INS,
  GROUP_CLOSERS,
  GROUP_GREETINGS,
  GROUP_MAX_MEMBERS,
  GROUP_MIN_MEMBERS,
  GROUP_OPENERS,
  REQUESTS,
  SYNTHETIC_STYLES,
  toolOutput,
  type SyntheticStyle,
} from './synthetic-styles.js';

/** Options of {@link generateSynthetic} and {@link iterateSynthetic}; every field is optional. */
export interface SyntheticOptions {
  /** Number of conversations, one per user. Integer >= 1. Default 4. */
  users?: number;
  /** Sessions in each conversation. Integer >= 1. Default 20. */
  sessionsPerUser?: number;
  /**
   * Turns in each session, including a greeting and a goodbye. Integer >= 4. Default 24, which gives about 600
   * tokens per session, LoCoMo's average.
   */
  turnsPerSession?: number;
  /** Questions per conversation (fewer if a very short conversation states too few facts). Integer >= 0. Default 40. */
  questionsPerUser?: number;
  /** Any safe integer; the same seed and options give the same conversations on every machine. Default 1. */
  seed?: number;
  /**
   * How unevenly a user's topics come up: topic `i` of the user (in a random order) is chosen with weight
   * `1 / (i + 1) ** topicSkew`. 0 (default) = every topic equally often; 1 = a Zipf law, where a person's two or three
   * main threads (a job, a child, a project) fill most sessions and the rest come up now and then. A number >= 0.
   */
  topicSkew?: number;
  /**
   * Chance that a session opens on the topic the previous session ended with (a follow-up: "how did the interview
   * go?"), as consecutive sessions of real long-term chats pick up where they left off. 0 (default) = sessions choose
   * their topics independently. A number in [0, 1].
   */
  followUpChance?: number;
  /**
   * Who speaks and how: `'chat'` (default) two friends catching up; `'assistant'` a person working with a
   * tool-using assistant whose replies are confirmations and tool outputs; `'diary'` one person's journal, one
   * entry of a few long paragraphs per session; `'group'` three to five friends in one group chat, where threads
   * interleave, a kind of topic may belong to two members, and questions also ask who said or did something. The
   * facts and questions are built the same way in every style.
   */
  style?: SyntheticStyle;
}

/** {@link SyntheticOptions} with the defaults filled in. */
export type ResolvedSyntheticOptions = Readonly<Required<SyntheticOptions>>;

/** The defaults of {@link SyntheticOptions}. */
export const SYNTHETIC_DEFAULTS: ResolvedSyntheticOptions = Object.freeze({
  users: 4,
  sessionsPerUser: 20,
  turnsPerSession: 24,
  questionsPerUser: 40,
  seed: 1,
  topicSkew: 0,
  followUpChance: 0,
  style: 'chat',
});

/** Turns are 10–40 words, LoCoMo's 5th to 95th percentile band (7 and 47) narrowed a little. */
const MIN_WORDS = 10;
const MAX_WORDS = 40;
/** Exponent on the uniform draw of a turn's target length; larger means more short turns. Tuned so that the
 * default session comes out near LoCoMo's ~600 tokens. */
const TARGET_SKEW = 3;
const DAY_MS = 86_400_000;
/** Synthetic time starts somewhere in 2022, as LoCoMo's conversations do (2022–2023). */
const EPOCH = Date.UTC(2022, 0, 1);

/**
 * Fills in defaults and checks every option.
 *
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the option, for a value that is not an integer in range.
 */
export function resolveSyntheticOptions(options: SyntheticOptions = {}): ResolvedSyntheticOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('synthetic options must be an object');
  }
  const resolved = { ...SYNTHETIC_DEFAULTS };
  const bounds = {
    users: 1,
    sessionsPerUser: 1,
    turnsPerSession: 4,
    questionsPerUser: 0,
    seed: Number.MIN_SAFE_INTEGER,
  } as const;
  for (const key of Object.keys(bounds) as (keyof typeof bounds)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < bounds[key]) {
      throw invalidArgument(`synthetic option ${key} must be an integer >= ${bounds[key]}, got ${String(value)}`);
    }
    resolved[key] = value;
  }
  const ranges = { topicSkew: [0, 8], followUpChance: [0, 1] } as const;
  for (const key of Object.keys(ranges) as (keyof typeof ranges)[]) {
    const value = options[key];
    if (value === undefined) continue;
    const [lo, hi] = ranges[key];
    if (typeof value !== 'number' || !(value >= lo && value <= hi)) {
      throw invalidArgument(`synthetic option ${key} must be a number in [${lo}, ${hi}], got ${String(value)}`);
    }
    resolved[key] = value;
  }
  if (options.style !== undefined) {
    if (!(SYNTHETIC_STYLES as readonly unknown[]).includes(options.style)) {
      throw invalidArgument(`synthetic option style must be one of ${SYNTHETIC_STYLES.join(', ')}, got ${String(options.style)}`);
    }
    resolved.style = options.style;
  }
  return Object.freeze(resolved);
}

/**
 * Generates all conversations at once. For large runs prefer {@link iterateSynthetic}, which holds one
 * conversation at a time.
 *
 * @example
 * ```ts
 * const conversations = generateSynthetic({ users: 2, seed: 7 });
 * conversations[0]?.sessions.length; // 20
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` for a bad option, see {@link resolveSyntheticOptions}.
 */
export function generateSynthetic(options: SyntheticOptions = {}): Conversation[] {
  return [...iterateSynthetic(options)];
}

/**
 * Yields the conversations of {@link generateSynthetic} one by one, generating each on demand. Options are checked
 * when this is called, not at the first `next()`.
 *
 * @example
 * ```ts
 * for (const conversation of iterateSynthetic({ users: 1000, seed: 3 })) {
 *   await ingest(conversation); // only this conversation is in memory
 * }
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` for a bad option.
 */
export function iterateSynthetic(options: SyntheticOptions = {}): Generator<Conversation, void, undefined> {
  const resolved = resolveSyntheticOptions(options);
  return iterate(resolved);
}

function* iterate(options: ResolvedSyntheticOptions): Generator<Conversation, void, undefined> {
  for (let user = 0; user < options.users; user++) yield buildConversation(options, user);
}

/**
 * Generates the conversation of one user without generating the others: user `i` is the same here as the `i`-th
 * of {@link generateSynthetic} with the same options, because each user draws from its own seeded stream.
 *
 * @param userIndex 0-based; may be `>= options.users` (the count only bounds the other functions).
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` for a bad option or a negative or fractional index.
 */
export function syntheticConversation(userIndex: number, options: SyntheticOptions = {}): Conversation {
  if (!Number.isSafeInteger(userIndex) || userIndex < 0) {
    throw invalidArgument(`synthetic user index must be an integer >= 0, got ${String(userIndex)}`);
  }
  return buildConversation(resolveSyntheticOptions(options), userIndex);
}

/** A topic of one conversation: whose it is (an index into the speakers) and what has been stated so far. */
interface TopicState {
  spec: TopicSpec;
  owner: number;
  facts: StatedFact[];
}

/** What one session's construction reads and appends to. */
interface SessionContext {
  rng: Prng;
  forge: NameForge;
  speakers: readonly string[];
  index: number;
  startedAt: number;
  turns: Turn[];
  at: number;
  /** Sentences already said in the current chat; a person does not repeat a remark within one chat. */
  used: Set<string>;
}

function buildConversation(options: ResolvedSyntheticOptions, user: number): Conversation {
  const rng = createPrng(deriveSeed(options.seed, user));
  const forge = createNameForge(rng);
  const first = forge.person();
  const speakers: [string, string, ...string[]] =
    options.style === 'assistant'
      ? [first, ASSISTANT_NAME]
      : options.style === 'diary'
        ? [first, DIARY_NAME]
        : options.style === 'group'
          ? groupMembers(rng, forge, first)
          : [first, forge.person()];
  // In the one-voice styles every fact is the person's own.
  const ownerOf = (): 0 | 1 => (options.style !== 'chat' ? 0 : rng.chance(0.5) ? 0 : 1);
  // Longer conversations get more topics, so a topic still recurs every few sessions instead of every one.
  const topicCount = Math.min(TOPICS.length, 4 + Math.ceil(options.sessionsPerUser / 10));
  const specs = rng.shuffle(TOPICS).slice(0, topicCount);
  const topics: TopicState[] =
    options.style === 'group' ? groupTopics(rng, specs, speakers.length) : specs.map((spec) => ({ spec, owner: ownerOf(), facts: [] }));

  const sessions: Session[] = [];
  let day = EPOCH + rng.int(0, 364) * DAY_MS;
  let lastAt = 0;
  const weights = topics.map((_, i) => 1 / (i + 1) ** options.topicSkew);
  let previous: TopicState | undefined;
  for (let index = 1; index <= options.sessionsPerUser; index++) {
    const startedAt = Math.max(day + rng.int(8 * 60, 21 * 60) * 60_000, lastAt + 3_600_000);
    const count =
      options.style === 'diary'
        ? diaryTopicCount(rng, options.turnsPerSession)
        : options.style === 'group'
          ? groupTopicCount(rng, options.turnsPerSession)
          : sessionTopicCount(rng, options.turnsPerSession);
    const chosen = chooseTopics(rng, topics, weights, count, options, previous);
    previous = chosen[chosen.length - 1];
    const build =
      options.style === 'assistant'
        ? buildAssistantSession
        : options.style === 'diary'
          ? buildDiarySession
          : options.style === 'group'
            ? buildGroupSession
            : buildSession;
    const session = build(rng, forge, speakers, chosen, index, startedAt, options.turnsPerSession);
    sessions.push(session);
    lastAt = session.turns[session.turns.length - 1]?.at ?? startedAt;
    day += rng.int(2, 21) * DAY_MS;
  }

  const records = topics.map((t) => ({ spec: t.spec, ownerName: speakers[t.owner] ?? '', facts: t.facts }));
  const questions = buildQuestions(rng, records, options.questionsPerUser, { who: options.style === 'group' });
  return { id: `synthetic-${options.seed}-${user}`, speakers, sessions, questions };
}

/** Topics of one session: two or three in a long session, two in a medium one, one in a short one. */
function sessionTopicCount(rng: Prng, turnCount: number): number {
  return turnCount >= 14 ? rng.int(2, 3) : turnCount >= 8 ? 2 : 1;
}

/**
 * The topics a session covers, in order. With the default options every topic is equally likely and sessions are
 * independent (the generator's original behaviour, draw for draw); with `followUpChance` the session may open on
 * the topic the previous one ended with, and with `topicSkew` the rest are drawn by the user's topic weights.
 */
function chooseTopics(
  rng: Prng,
  topics: readonly TopicState[],
  weights: readonly number[],
  count: number,
  options: ResolvedSyntheticOptions,
  previous: TopicState | undefined,
): TopicState[] {
  if (options.topicSkew === 0 && options.followUpChance === 0) return rng.shuffle(topics).slice(0, count);
  const chosen: TopicState[] = [];
  if (previous !== undefined && options.followUpChance > 0 && rng.chance(options.followUpChance)) chosen.push(previous);
  while (chosen.length < Math.min(count, topics.length)) {
    let total = 0;
    for (let i = 0; i < topics.length; i++) if (!chosen.includes(topics[i]!)) total += weights[i]!;
    let x = rng.next() * total;
    let pick = topics.find((t) => !chosen.includes(t))!;
    for (let i = 0; i < topics.length; i++) {
      if (chosen.includes(topics[i]!)) continue;
      x -= weights[i]!;
      if (x < 0) {
        pick = topics[i]!;
        break;
      }
    }
    chosen.push(pick);
  }
  return chosen;
}

function buildSession(
  rng: Prng,
  forge: NameForge,
  speakers: readonly string[],
  chosen: readonly TopicState[],
  index: number,
  startedAt: number,
  turnCount: number,
): Session {
  const ctx: SessionContext = { rng, forge, speakers, index, startedAt, turns: [], at: startedAt, used: new Set() };
  const lengths = splitEvenly(rng, turnCount - 2, chosen.length);
  const starter: 0 | 1 = rng.chance(0.5) ? 0 : 1;
  const speakerOf = (i: number): 0 | 1 => ((starter + i) % 2 === 0 ? 0 : 1);

  const opener = fill(rng.pick(OPENERS), { other: speakers[1 - starter] ?? '' });
  push(ctx, starter, compose(ctx, [], opener, SMALL_TALK, SMALL_TALK));
  let i = 1;
  chosen.forEach((topic, block) => {
    let lastValue: string | undefined;
    let ownerTurns = 0;
    for (let j = 0; j < (lengths[block] ?? 0); j++, i++) {
      const speaker = speakerOf(i);
      const prefix: string[] = [];
      if (i === 1) {
        prefix.push(fill(rng.pick(GREETING_REPLIES), { other: speakers[1 - speaker] ?? '' }));
      } else if (j === 0 && block > 0 && speaker === topic.owner && rng.chance(0.7)) {
        prefix.push(rng.pick(TRANSITIONS));
      }
      if (speaker === topic.owner) {
        const said = ownerSentence(ctx, topic, ownerTurns++);
        lastValue = said.value;
        push(ctx, speaker, compose(ctx, prefix, said.text, topic.spec.chatter, OWNER_ASIDES));
      } else {
        const text =
          ownerTurns === 0 ? freshPick(ctx, topic.spec.prompts) : otherSentence(ctx, topic, lastValue);
        if (prefix.length === 0 && ownerTurns > 0 && rng.chance(0.4)) prefix.push(freshPick(ctx, ACKS));
        lastValue = undefined;
        push(ctx, speaker, compose(ctx, prefix, text, topic.spec.replies, LISTENER_ASIDES));
      }
    }
  });
  const closer = speakerOf(i);
  const goodbye = fill(rng.pick(CLOSERS), { other: speakers[1 - closer] ?? '' });
  push(ctx, closer, compose(ctx, [], goodbye, SMALL_TALK, SMALL_TALK));
  return { id: `session_${index}`, index, startedAt, turns: ctx.turns };
}

/**
 * A session with a tool-using assistant: the person opens, then for each topic alternates a request (with what they
 * say about the topic) and the assistant's confirmation and tool output, and closes. `turnCount` counts both sides.
 */
function buildAssistantSession(
  rng: Prng,
  forge: NameForge,
  speakers: readonly string[],
  chosen: readonly TopicState[],
  index: number,
  startedAt: number,
  turnCount: number,
): Session {
  const ctx: SessionContext = { rng, forge, speakers, index, startedAt, turns: [], at: startedAt, used: new Set() };
  push(ctx, 0, freshPick(ctx, ASSISTANT_OPENERS));
  push(ctx, 1, freshPick(ctx, ASSISTANT_GREETINGS));
  const pairs = splitEvenly(rng, Math.max(chosen.length, Math.floor((turnCount - 4) / 2)), chosen.length);
  chosen.forEach((topic, block) => {
    for (let j = 0; j < (pairs[block] ?? 0); j++) {
      const said = ownerSentence(ctx, topic, j);
      const parts = rng.chance(0.5) ? [freshPick(ctx, REQUESTS), said.text] : [said.text, freshPick(ctx, REQUESTS)];
      if (rng.chance(0.4)) parts.push(pickUnused(ctx, topic.spec.chatter));
      push(ctx, 0, parts.join(' '));
      push(ctx, 1, `${rng.pick(CONFIRMATIONS)}\n${toolOutput(rng, [...topic.spec.chatter, ...topic.spec.replies])}`);
    }
  });
  push(ctx, 0, freshPick(ctx, ASSISTANT_CLOSERS));
  push(ctx, 1, freshPick(ctx, ASSISTANT_SIGNOFFS));
  return { id: `session_${index}`, index, startedAt, turns: ctx.turns };
}

/** Words of a journal paragraph: longer than a chat turn, as entries are. */
const PARAGRAPH_MIN_WORDS = 80;
const PARAGRAPH_MAX_WORDS = 160;

/**
 * Topics (paragraphs) of a journal entry: three to five at the default session length, so an entry is about as
 * long as a chat session (LoCoMo's ~600 tokens); fewer in shorter sessions.
 */
function diaryTopicCount(rng: Prng, turnCount: number): number {
  return turnCount >= 14 ? rng.int(3, 5) : turnCount >= 8 ? 2 : 1;
}

/**
 * A journal entry: one paragraph (one turn) per topic, each holding what the person says about it in two
 * consecutive "beats" and musings around them; the entry's opening and closing lines join the first and last
 * paragraphs. `turnCount` sets the length of the paragraphs, not their number.
 */
function buildDiarySession(
  rng: Prng,
  forge: NameForge,
  speakers: readonly string[],
  chosen: readonly TopicState[],
  index: number,
  startedAt: number,
  turnCount: number,
): Session {
  const ctx: SessionContext = { rng, forge, speakers, index, startedAt, turns: [], at: startedAt, used: new Set() };
  const scale = Math.min(1, turnCount / SYNTHETIC_DEFAULTS.turnsPerSession);
  chosen.forEach((topic, block) => {
    const parts: string[] = [];
    if (block === 0) parts.push(freshPick(ctx, DIARY_OPENERS));
    const target = Math.round((PARAGRAPH_MIN_WORDS + rng.int(0, PARAGRAPH_MAX_WORDS - PARAGRAPH_MIN_WORDS)) * scale);
    for (let beat = 0; beat < 2; beat++) {
      parts.push(ownerSentence(ctx, topic, beat).text);
      for (let tries = 0; wordCount(parts.join(' ')) < (target * (beat + 1)) / 2 && tries < 6; tries++) {
        const pool = rng.chance(0.75) ? topic.spec.chatter : rng.chance(0.5) ? DIARY_MUSINGS : OWNER_ASIDES;
        const sentence = pickUnused(ctx, pool);
        if (parts.includes(sentence)) continue;
        ctx.used.add(sentence);
        parts.push(sentence);
      }
    }
    if (block === chosen.length - 1) parts.push(freshPick(ctx, DIARY_CLOSERS));
    push(ctx, 0, parts.join(' '));
  });
  return { id: `session_${index}`, index, startedAt, turns: ctx.turns };
}

/** The members of a group chat: the conversation's first speaker and two to four friends. */
function groupMembers(rng: Prng, forge: NameForge, first: string): [string, string, ...string[]] {
  const count = rng.int(GROUP_MIN_MEMBERS, GROUP_MAX_MEMBERS);
  const members: [string, string, ...string[]] = [first, forge.person()];
  while (members.length < count) members.push(forge.person());
  return members;
}

/** Kinds of topic that two members of a group share (each with their own facts), when there are enough topics. */
const GROUP_SHARED_TOPICS = 2;

/**
 * The topics of a group: every member owns at least one when there are enough topics (dealt in a shuffled order
 * of the members), and {@link GROUP_SHARED_TOPICS} kinds of topic belong to a second member too, so that a
 * question must name its person ("Which trail did Mira hike?" when two of them hike).
 */
function groupTopics(rng: Prng, specs: readonly TopicSpec[], members: number): TopicState[] {
  const order = rng.shuffle(Array.from({ length: members }, (_, i) => i));
  const topics: TopicState[] = specs.map((spec, i) => ({ spec, owner: order[i % members] ?? 0, facts: [] }));
  for (const twin of rng.shuffle(topics).slice(0, Math.min(GROUP_SHARED_TOPICS, topics.length))) {
    const owner = (twin.owner + rng.int(1, members - 1)) % members;
    topics.push({ spec: twin.spec, owner, facts: [] });
  }
  return topics;
}

/** Threads of a group session: three in a long session, two in a medium one, one in a short one. */
function groupTopicCount(rng: Prng, turnCount: number): number {
  return turnCount >= 14 ? rng.int(2, 3) : turnCount >= 8 ? 2 : 1;
}

/** Chance that the next turn stays in the thread of the previous one; otherwise another open thread cuts in. */
const GROUP_STAY_CHANCE = 0.6;

/** One topic's thread within a group session. */
interface GroupThread {
  topic: TopicState;
  /** Turns the thread still has. */
  left: number;
  /** Turns of the thread so far; the owner speaks when `spoken + start` is even. */
  spoken: number;
  /** 1 when another member opens the thread by asking the owner about the topic. */
  start: 0 | 1;
  ownerTurns: number;
  lastValue: string | undefined;
}

/**
 * A session of a group chat: one member opens, another greets them, then the session's threads (one per topic)
 * interleave, each alternating its owner's turns (the news, mentions, small talk) with a reaction or question from
 * another member, who often addresses the owner by name; a member closes. `turnCount` counts every turn.
 */
function buildGroupSession(
  rng: Prng,
  forge: NameForge,
  speakers: readonly string[],
  chosen: readonly TopicState[],
  index: number,
  startedAt: number,
  turnCount: number,
): Session {
  const ctx: SessionContext = { rng, forge, speakers, index, startedAt, turns: [], at: startedAt, used: new Set() };
  const members = speakers.length;
  const someoneBut = (who: number): number => (who + rng.int(1, members - 1)) % members;
  const opener = rng.int(0, members - 1);
  push(ctx, opener, compose(ctx, [], freshPick(ctx, GROUP_OPENERS), SMALL_TALK, SMALL_TALK));
  const lengths = splitEvenly(rng, turnCount - 2, chosen.length);
  const threads: GroupThread[] = chosen.map((topic, k) => ({
    topic,
    left: lengths[k] ?? 0,
    start: (lengths[k] ?? 0) > 1 && rng.chance(0.3) ? 1 : 0,
    spoken: 0,
    ownerTurns: 0,
    lastValue: undefined,
  }));
  let current: GroupThread | undefined;
  let previousSpeaker = opener;
  for (let turn = 0; threads.some((t) => t.left > 0); turn++) {
    const open = threads.filter((t) => t.left > 0);
    const switched = current === undefined || current.left === 0 || !rng.chance(GROUP_STAY_CHANCE);
    const thread: GroupThread = switched ? rng.pick(open) : current!;
    const joined = switched && current !== undefined && current !== thread && thread.spoken > 0;
    current = thread;
    const { topic } = thread;
    const owner = topic.owner;
    const ownersTurn = (thread.spoken + thread.start) % 2 === 0;
    const prefix: string[] = [];
    let speaker: number;
    let text: string;
    if (ownersTurn) {
      speaker = owner;
      const said = ownerSentence(ctx, topic, thread.ownerTurns++);
      thread.lastValue = said.value;
      if (turn === 0 && speaker !== opener) prefix.push(fill(rng.pick(GROUP_GREETINGS), { other: speakers[opener] ?? '' }));
      else if (thread.spoken === 0 && turn > 0 && rng.chance(0.5)) prefix.push(rng.pick(TRANSITIONS));
      text = compose(ctx, prefix, said.text, topic.spec.chatter, OWNER_ASIDES);
    } else {
      // Whoever spoke last in another thread is not the one to answer here; anyone but the owner may.
      speaker = someoneBut(owner);
      if (speaker === previousSpeaker && members > 2) speaker = someoneBut(owner);
      const said = thread.ownerTurns === 0 ? freshPick(ctx, topic.spec.prompts) : otherSentence(ctx, topic, thread.lastValue);
      if (joined) prefix.push(freshPick(ctx, GROUP_CHIME_INS));
      // In a group, a reply says whom it is for.
      if (joined || thread.ownerTurns === 0 || rng.chance(0.5)) prefix.push(`@${speakers[owner] ?? ''}`);
      else if (thread.ownerTurns > 0 && rng.chance(0.4)) prefix.push(freshPick(ctx, ACKS));
      thread.lastValue = undefined;
      text = compose(ctx, prefix, said, topic.spec.replies, LISTENER_ASIDES);
    }
    push(ctx, speaker, text);
    previousSpeaker = speaker;
    thread.spoken++;
    thread.left--;
  }
  const closer = someoneBut(previousSpeaker);
  push(ctx, closer, compose(ctx, [], freshPick(ctx, GROUP_CLOSERS), SMALL_TALK, SMALL_TALK));
  return { id: `session_${index}`, index, startedAt, turns: ctx.turns };
}

/**
 * What the topic's owner says in their `nth` turn of a block. The first turn carries the block's news (a new or
 * changed fact, or a callback to an old one); a collection may get a second item; later turns are mostly small talk.
 */
function ownerSentence(ctx: SessionContext, topic: TopicState, nth: number): { text: string; value?: string } {
  const { rng } = ctx;
  const { spec, facts } = topic;
  const last = facts[facts.length - 1];
  if (last === undefined) {
    return stateFact(ctx, topic, freshPick(ctx, spec.intro));
  }
  if (nth === 0) {
    if (spec.shape === 'state' && facts.length < MAX_STATE_VALUES && rng.chance(0.3)) {
      return stateFact(ctx, topic, freshPick(ctx, spec.change));
    }
    if (spec.shape === 'collection' && rng.chance(0.55)) return stateFact(ctx, topic, freshPick(ctx, spec.change));
    if (rng.chance(0.7)) return mention(ctx, topic);
  } else if (nth === 1 && spec.shape === 'collection' && rng.chance(0.25)) {
    return stateFact(ctx, topic, freshPick(ctx, spec.change));
  } else if (rng.chance(0.25)) {
    return mention(ctx, topic);
  }
  return { text: freshPick(ctx, spec.chatter) };
}

/** States a new fact in the turn about to be pushed, and records it for questions. */
function stateFact(ctx: SessionContext, topic: TopicState, template: string): { text: string; value: string } {
  const { rng, forge } = ctx;
  const value = topic.spec.value(forge, rng);
  // Distinct details keep detail-keyed questions ("which trail did X hike with Rosa?") unambiguous; after a few
  // tries a repeat is accepted and the question builder skips the ambiguous ones.
  let detail = topic.spec.detail(forge, rng, value);
  for (let tries = 0; tries < 5 && topic.facts.some((f) => f.detail === detail); tries++) {
    detail = topic.spec.detail(forge, rng, value);
  }
  const prev = topic.facts[topic.facts.length - 1]?.value ?? '';
  topic.facts.push({ value, detail, turnId: nextTurnId(ctx), sessionStartedAt: ctx.startedAt });
  return { text: fill(template, { v: value, d: detail, prev }), value };
}

/** The owner brings up a fact stated in an earlier turn or session. Requires a stated fact. */
function mention(ctx: SessionContext, topic: TopicState): { text: string; value: string } {
  const value = talkedAbout(ctx.rng, topic);
  return { text: fill(freshPick(ctx, topic.spec.mention), { v: value }), value };
}

function otherSentence(ctx: SessionContext, topic: TopicState, lastValue: string | undefined): string {
  const { rng } = ctx;
  if (lastValue !== undefined && rng.chance(0.5)) return fill(freshPick(ctx, topic.spec.ask), { v: lastValue });
  if (topic.facts.length > 0 && rng.chance(0.15)) {
    return fill(freshPick(ctx, topic.spec.ask), { v: talkedAbout(rng, topic) });
  }
  return freshPick(ctx, topic.spec.replies);
}

/** A state is talked about as it is now; any item of a collection may come up again. Requires a stated fact. */
function talkedAbout(rng: Prng, topic: TopicState): string {
  const fact = topic.spec.shape === 'collection' ? rng.pick(topic.facts) : topic.facts[topic.facts.length - 1];
  return fact?.value ?? '';
}

/**
 * Builds a turn of a random length in [MIN_WORDS, MAX_WORDS] (skewed short, as in LoCoMo) by appending sentences
 * not yet said in the current chat after the required ones, two from the topic's pool for every one from `asides`.
 */
function compose(
  ctx: SessionContext,
  prefix: readonly string[],
  core: string,
  pool: readonly string[],
  asides: readonly string[],
): string {
  const { rng } = ctx;
  const target = MIN_WORDS + Math.floor(rng.next() ** TARGET_SKEW * (MAX_WORDS - MIN_WORDS + 1));
  const parts = [...prefix, core];
  let words = parts.reduce((sum, p) => sum + wordCount(p), 0);
  for (let tries = 0; words < target && tries < 6; tries++) {
    const sentence = pickUnused(ctx, rng.chance(2 / 3) ? pool : asides);
    const w = wordCount(sentence);
    if (parts.includes(sentence) || (words + w > MAX_WORDS && words >= MIN_WORDS)) continue;
    ctx.used.add(sentence);
    parts.push(sentence);
    words += w;
  }
  return parts.join(' ');
}

/** Picks a sentence not yet said in the current chat and marks it said. Requires a non-empty pool. */
function freshPick(ctx: SessionContext, pool: readonly string[]): string {
  const sentence = pickUnused(ctx, pool);
  ctx.used.add(sentence);
  return sentence;
}

/** A sentence not yet said in the current chat, or any once all were. Requires a non-empty pool. */
function pickUnused(ctx: SessionContext, pool: readonly string[]): string {
  const unused = pool.filter((s) => !ctx.used.has(s));
  return ctx.rng.pick(unused.length > 0 ? unused : pool);
}

function wordCount(text: string): number {
  let n = 0;
  for (const w of text.split(' ')) if (w.length > 0) n++;
  return n;
}

function nextTurnId(ctx: SessionContext): string {
  return `D${ctx.index}:${ctx.turns.length + 1}`;
}

/** Appends a turn of `ctx.speakers[speaker]`. Requires a valid speaker index. */
function push(ctx: SessionContext, speaker: number, text: string): void {
  ctx.turns.push({ turnId: nextTurnId(ctx), speaker: ctx.speakers[speaker] ?? '', text, at: ctx.at });
  // Replies come 15–90 s apart; only the order matters to the engine, but plausible gaps make demos readable.
  ctx.at += ctx.rng.int(15, 90) * 1000;
}

/** Splits `total` turns into `parts` blocks whose sizes differ by at most one, the larger ones placed at random. */
function splitEvenly(rng: Prng, total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const extra = total - base * parts;
  return rng.shuffle(Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0)));
}

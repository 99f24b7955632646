/**
 * The shapes a synthetic conversation can take besides the default chat between two friends. The facts, their
 * values and the questions are the same machinery in every style; what changes is who speaks, how long a turn is
 * and what surrounds a fact:
 *
 * - `assistant`: a person works with a tool-using assistant. The person asks for things (a reminder, a search, a
 *   draft) and mentions their life on the way; the assistant answers with short confirmations and tool outputs
 *   (bracketed tool names, key=value fields, quoted queries) that reuse the topic's vocabulary without stating a
 *   fact. Every fact belongs to the person.
 * - `diary`: one person writes a journal, one entry per session, a few long paragraphs, each about one topic, facts
 *   and musings mixed in the same paragraph. There is no second voice to ask or react.
 *
 * All text was written for Akashic.
 * @internal
 */
import type { Prng } from './prng.js';

/** The styles of {@link SyntheticOptions.style}. */
export const SYNTHETIC_STYLES = ['chat', 'assistant', 'diary'] as const;
export type SyntheticStyle = (typeof SYNTHETIC_STYLES)[number];

/** The assistant's name in the `assistant` style; the person is the conversation's first speaker. */
export const ASSISTANT_NAME = 'Assistant';
/** The journal's name in the `diary` style: the second speaker, who never speaks. */
export const DIARY_NAME = 'Journal';

/** What a person asks a tool-using assistant for; topic-free, so never evidence. */
export const REQUESTS: readonly string[] = [
  'Can you set a reminder for tomorrow at nine?',
  'Please add this to my notes.',
  'Could you look something up for me?',
  'Check my calendar for the rest of the week, please.',
  'Draft a short message I can send later.',
  'Remind me about this on Friday.',
  'Can you find a few options and keep them short?',
  'Put a note in my to-do list.',
  'Summarize what I told you in one line, please.',
  'Search for something related and show me the top result.',
];

/** The assistant's confirmations before a tool output. */
export const CONFIRMATIONS: readonly string[] = [
  'Done.',
  'Sure, here is what I found.',
  'Okay, I have saved it.',
  'Got it. Here is the result.',
  'All set.',
  'I ran the lookup.',
];

/** Tools the assistant calls; the output line is `[name] field=value ...`. */
export const TOOLS: readonly string[] = ['search', 'notes.add', 'calendar.find', 'reminders.create', 'messages.draft'];

/** The person opening and closing a work session with the assistant. */
export const ASSISTANT_OPENERS: readonly string[] = [
  'Morning. I have a few errands for you today.',
  'Hi, quick session before my next meeting.',
  'Hello again, I need some help getting organised.',
  'Evening. Let us go through a couple of things.',
];
export const ASSISTANT_GREETINGS: readonly string[] = [
  'Hello! What can I do for you?',
  'Hi. Ready when you are.',
  'Good to see you. What is on the list today?',
];
export const ASSISTANT_CLOSERS: readonly string[] = [
  'Thanks, that is everything for now.',
  'Perfect, that will do. Bye!',
  'Great, I will check back later.',
];
export const ASSISTANT_SIGNOFFS: readonly string[] = ['You are welcome. Have a good day!', 'Anytime. Talk later.', 'Noted. See you next time.'];

/** How a journal entry opens and closes; topic-free. */
export const DIARY_OPENERS: readonly string[] = [
  'Late evening, finally some quiet.',
  'Writing this on the train home.',
  'Rainy morning, coffee in hand.',
  'Could not sleep, so here I am with the notebook.',
  'Sunday afternoon, the flat smells of toast.',
  'Short entry today, I am tired.',
];
export const DIARY_CLOSERS: readonly string[] = [
  'That is enough for tonight.',
  'More tomorrow, hopefully.',
  'Lights out now.',
  'I will write again when something happens.',
];
/** Reflections mixed into a journal's paragraphs. */
export const DIARY_MUSINGS: readonly string[] = [
  'I keep meaning to write more often than this.',
  'Funny how small things stick in my head.',
  'Note to self: stop overthinking.',
  'I wonder what I will make of this page in a year.',
  'Today felt longer than it was.',
  'I should call home more.',
  'Some weeks just blur together.',
  'Writing it down makes it feel more real somehow.',
];

/**
 * A tool output line in the topic's vocabulary: a quoted query of a few words of one of the topic's small-talk
 * sentences and, for a search, the first words of another. It names no fact's value.
 */
export function toolOutput(rng: Prng, vocabulary: readonly string[]): string {
  const tool = rng.pick(TOOLS);
  const words = (s: string, n: number): string =>
    s
      .replace(/[^\p{L}\p{N}' ]/gu, '')
      .split(' ')
      .filter((w) => w.length > 3)
      .slice(0, n)
      .join(' ')
      .toLowerCase();
  const query = words(rng.pick(vocabulary), 4);
  const id = rng.int(1000, 9999);
  switch (tool) {
    case 'search':
      return `[search] query="${query}" results=${rng.int(2, 9)} top="${words(rng.pick(vocabulary), 6)}"`;
    case 'calendar.find':
      return `[calendar.find] query="${query}" events=${rng.int(0, 3)} next=${rng.pick(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])} ${rng.int(8, 19)}:00`;
    default:
      return `[${tool}] id=${id} status=ok text="${query}"`;
  }
}

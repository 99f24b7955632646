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
 * - `group`: three to five friends in one group chat. Every topic belongs to one member, and a kind of topic may
 *   belong to two (two of them hike, each on their own trails); the threads of a session interleave, the others
 *   react and ask, often addressing the owner by name, and questions ask who said or did what.
 *
 * All text was written for Akashic.
 * @internal
 */
import type { Prng } from './prng.js';

/** The styles of {@link SyntheticOptions.style}. */
export const SYNTHETIC_STYLES = ['chat', 'assistant', 'diary', 'group'] as const;
export type SyntheticStyle = (typeof SYNTHETIC_STYLES)[number];

/** The assistant's name in the `assistant` style; the person is the conversation's first speaker. */
export const ASSISTANT_NAME = 'Assistant';
/** The journal's name in the `diary` style: the second speaker, who never speaks. */
export const DIARY_NAME = 'Journal';

/** Members of a `group` chat: at least, at most. */
export const GROUP_MIN_MEMBERS = 3;
export const GROUP_MAX_MEMBERS = 5;

/** How a member opens a group chat's session; topic-free. */
export const GROUP_OPENERS: readonly string[] = [
  'Morning, everyone! Who is around today?',
  'Hey all, this chat has been way too quiet lately.',
  'Evening, crew! I need a distraction, tell me your news.',
  'Hi everybody! Quick check-in before the week gets busy.',
  'Okay team, roll call. How is everyone doing?',
  'Hello, lovely people. It has been ages since we all talked.',
];

/** The first reply to the opener; `{other}` is the opener's name. */
export const GROUP_GREETINGS: readonly string[] = [
  'Hey {other}! I am here, just got home.',
  'Present! Hi {other}, hi all.',
  'Oh good, I was hoping someone would start the chat.',
  'Hi {other}! Perfect timing, I was bored.',
];

/** How a member leaves the session; topic-free. */
export const GROUP_CLOSERS: readonly string[] = [
  'Right, I have to go. Love you all, talk soon!',
  'Signing off for tonight, this was fun.',
  'I am falling asleep, so good night, everyone!',
  'Back to work for me. Catch you all later.',
  'That is my cue to leave. Same time next week?',
];

/** What a member says when joining a thread started by someone else. */
export const GROUP_CHIME_INS: readonly string[] = [
  'Wait, back up a second.',
  'Sorry, just catching up on the messages.',
  'Jumping in here.',
  'Ooh, I missed this part.',
  'Hold on, I want to hear more.',
];

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

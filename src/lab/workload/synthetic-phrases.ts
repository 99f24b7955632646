/**
 * Conversational glue for synthetic sessions: greetings, goodbyes, short reactions and topic changes. None of it
 * states a fact, so none of it is ever question evidence. `{other}` is the name of the person addressed.
 *
 * @internal
 */

export const OPENERS: readonly string[] = [
  "Hey {other}! It's been a while, how have you been?",
  'Hi {other}, long time no chat! I have so much to tell you.',
  'Good morning {other}! Do you have a minute to catch up today?',
  "Hey {other}, I was just thinking about you. How's life treating you?",
  "{other}! I finally have a free evening, so let's catch up.",
  'Hi {other}! Sorry I went quiet for a bit, the last few weeks were a blur.',
];

export const GREETING_REPLIES: readonly string[] = [
  'Hi {other}! So good to hear from you.',
  "Hey! I've been meaning to message you.",
  'Oh hi {other}! Perfect timing, I just made some tea.',
  "{other}! I'm doing alright, thanks for asking.",
];

export const CLOSERS: readonly string[] = [
  'I have to run, but this was so nice. Talk soon, {other}!',
  "It's getting late and I should sleep. Let's catch up again soon!",
  'Thanks for listening, {other}, it really helped. Take care of yourself!',
  "Okay, dinner is ready, so I'll go. Bye for now!",
  'This was exactly the chat I needed. Speak soon, {other}!',
];

/** Short reactions that may open a reply. */
export const ACKS: readonly string[] = [
  'Oh wow!',
  'No way!',
  "That's amazing.",
  'Ha, I love that.',
  "Aw, that's sweet.",
  'Good for you!',
  'Oh nice.',
  'I hear you.',
  'Wait, really?',
  "That's so exciting!",
];

/** Said by the owner of a new topic before its first sentence, so topic changes read naturally. */
export const TRANSITIONS: readonly string[] = [
  'Oh, there is something else I wanted to tell you.',
  'Anyway, enough about that.',
  'Speaking of news, I have some too.',
  'Changing the subject for a second.',
  'Oh, before I forget!',
];

/** Topic-free remarks that pad greetings and goodbyes to a natural length. */
export const SMALL_TALK: readonly string[] = [
  'The weather has been all over the place this week.',
  'I finally caught up on sleep after a very long week.',
  'My phone died twice today, so sorry if I was slow to reply.',
  "I've been drinking way too much coffee lately.",
  'The days are getting noticeably longer, which helps my mood.',
  'I had the strangest dream last night, but I only remember bits of it.',
];

/** The topic owner's topic-free asides, mixed with the topic's own small talk. */
export const OWNER_ASIDES: readonly string[] = [
  "It's been a lot lately, but mostly in a good way.",
  'I keep telling myself to slow down and enjoy it.',
  "Honestly, I didn't expect it to matter this much to me.",
  "I'll tell you more once I know how it turns out.",
  'It felt good to do something just for me for once.',
  'I was nervous at first, but I am glad I went for it.',
  'Some days I feel like I have no idea what I am doing.',
  'I told my mom about it and she laughed for a solid minute.',
  'I wrote it all down in my journal so I would not forget.',
  'Little things like that make the week feel lighter.',
];

/** The listener's topic-free reactions, mixed with the topic's own replies. */
export const LISTENER_ASIDES: readonly string[] = [
  'Tell me more, I want all the details.',
  'How did that make you feel?',
  'That is such a you thing to do, honestly.',
  'You always find the bright side, I admire that.',
  "I'm really happy for you.",
  'That must have been a lot to take in.',
  'Keep me posted on how it goes!',
  'Ha, that made me laugh out loud.',
  'I totally get that, I felt the same way last year.',
  'You deserve some good news after the month you had.',
  'I wish I had half your energy.',
  'Sounds like you handled it really well.',
];

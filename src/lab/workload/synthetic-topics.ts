/**
 * The recurring topics of synthetic conversations. Each topic owns one kind of fact and the sentences that state,
 * update and mention it, plus small talk written in the topic's own vocabulary (switchbacks and trailheads for
 * hiking, radiators and landlords for home) so that a query about a topic lexically matches many turns of that
 * topic but only the evidence turns hold the answer. All text was written for Akashic.
 *
 * Template placeholders: `{v}` the fact's value, `{d}` its detail, `{prev}` the value it replaces, `{o}` the
 * owner's name (questions only), `{k}` a count (questions only). Turn text is first person and never names the
 * speaker, as in LoCoMo, where the speaker is a field of the turn.
 *
 * @internal
 */
import { DETAILS, VALUES, type DetailMaker, type ValueMaker } from './synthetic-entities.js';

/**
 * How a topic's fact evolves over the conversation:
 * - `state`: one current value that later sessions may replace (moved to X, then to Y); at most
 *   {@link MAX_STATE_VALUES} values.
 * - `constant`: one value introduced once and only mentioned afterwards (a pet's name).
 * - `collection`: a growing list of items, each with its own detail (trails hiked, each with a companion).
 */
export type FactShape = 'state' | 'constant' | 'collection';

/** People rarely move or change jobs more often than this in a year or two of chats. */
export const MAX_STATE_VALUES = 4;

/** A single-hop question about one fact; `answer` says which part of the fact answers it. */
export interface SingleQuestion {
  text: string;
  answer: 'value' | 'detail';
  /** Asks about the state's latest value ("where does X live now?"), so only that fact can be its evidence. */
  current?: true;
}

export interface TopicQuestions {
  single: readonly SingleQuestion[];
  /** "When did ...": answered by the date of the session that stated the fact. */
  temporal: string;
  /**
   * "Who ...": answered by the owner's name (asked only in a group chat, where more than one person could have
   * said it). Names the fact's value, never the owner.
   */
  who: string;
  /** All values or items (state and collection, 2–4 of them). */
  list?: string;
  /** The first `{k}` items of a collection. */
  first?: string;
  /** The `{k}` most recent items of a collection. */
  latest?: string;
  /** The state value before `{v}` (needs the turn that set it and the turn that replaced it). */
  before?: string;
}

export interface TopicSpec {
  /** Short label, used in debugging output only. */
  name: string;
  shape: FactShape;
  value: ValueMaker;
  detail: DetailMaker;
  /** The owner states the first fact. */
  intro: readonly string[];
  /** The owner replaces a state (`{prev}` → `{v}`) or adds an item to a collection. */
  change: readonly string[];
  /** The owner refers to a known value again, without its detail. */
  mention: readonly string[];
  /** The other speaker asks about a known value. */
  ask: readonly string[];
  /** The other speaker brings the topic up before its owner has said anything about it in the session. */
  prompts: readonly string[];
  /** The owner's small talk on the topic; states no fact. */
  chatter: readonly string[];
  /** The other speaker's reactions; states no fact. */
  replies: readonly string[];
  questions: TopicQuestions;
}

export const TOPICS: readonly TopicSpec[] = [
  {
    name: 'home',
    shape: 'state',
    value: VALUES.town,
    detail: DETAILS.housing,
    intro: [
      'Big news: I just signed the lease on {d} in {v}! The commute is longer, but the neighbourhood feels right.',
      'I finally found a place! It is {d} in {v}, and I moved my things in this weekend.',
    ],
    change: [
      'Guess what, I moved out of {prev}! I am now renting {d} in {v}, and there are boxes everywhere.',
      'So I packed up everything and left {prev}. My new home is {d} in {v}, and I love it already.',
    ],
    mention: [
      '{v} has a farmers market every Saturday now, and I keep buying far too many plums.',
      'The landlord in {v} finally fixed the radiator, so my place is warm again.',
      'Walking around {v} in the evening has become my favourite way to unwind.',
    ],
    ask: [
      'How are you settling into {v}? Have you met the neighbours yet?',
      'Is {v} still as noisy at night as you said?',
    ],
    prompts: ["How's the living situation these days?", 'Are you still happy with where you are living?'],
    chatter: [
      'I spent the whole weekend assembling a bookshelf and I still have three screws left over.',
      "My neighbour's dog barks at the mail carrier every single morning at seven.",
      "I've been hunting for a decent rug for the hallway, the floorboards are freezing.",
      "The kitchen is tiny, so I've learned to cook with one pan and a cutting board.",
      'I repainted the bedroom a pale green and it feels so much calmer now.',
      "The rent went up again this year, so I'm trying to be careful with money.",
      "There's a little laundromat around the corner where I read while the dryer spins.",
      'I hung string lights on the balcony and now I sit out there every night.',
    ],
    replies: [
      'Moving is exhausting, I remember living out of boxes for weeks.',
      'You should throw a housewarming party once the furniture is sorted.',
      "A good neighbourhood makes such a difference, I'm glad you found one.",
      "Send me pictures of the place when it's all set up!",
      'Honestly, a cozy apartment beats a big empty one any day.',
    ],
    questions: {
      single: [
        { text: 'Where does {o} live now?', answer: 'value', current: true },
        { text: 'What kind of place did {o} rent in {v}?', answer: 'detail' },
      ],
      temporal: 'When did {o} move to {v}?',
      who: 'Who moved to {v}?',
      list: 'Which towns has {o} lived in?',
      before: 'Where did {o} live before moving to {v}?',
    },
  },
  {
    name: 'work',
    shape: 'state',
    value: VALUES.company,
    detail: DETAILS.role,
    intro: [
      "I got the job! I'm starting at {v} as a {d} next Monday.",
      "I accepted an offer from {v}, so I'll be working as a {d} on their new team.",
    ],
    change: [
      "I handed in my notice at {prev}. Starting next week I'm a {d} at {v}!",
      'Big change: I left {prev} and joined {v} as a {d}. The team seems really friendly.',
    ],
    mention: [
      'Things at {v} are hectic, we have a huge client deadline at the end of the month.',
      'My manager at {v} actually thanked me in the all-hands meeting today.',
      'The office at {v} finally got a decent coffee machine, and morale is way up.',
    ],
    ask: ['How are things going at {v}? Still long hours?', 'Are the people at {v} treating you well?'],
    prompts: ["How's work treating you lately?", 'Anything new on the job front?'],
    chatter: [
      'Our standup meetings keep running forty minutes, which kind of defeats the point.',
      'I stayed late finishing a quarterly report that nobody will probably read.',
      "I'm trying to stop checking work email after dinner, and it has been hard.",
      "We had a team lunch today and I finally learned everyone's names.",
      "My performance review is coming up, so I've been writing down my wins.",
      'A client called me three times yesterday about the same spreadsheet.',
      "I've been mentoring a new hire and it reminds me how much I've learned.",
    ],
    replies: [
      'Work stress is no joke, make sure you take your breaks.',
      "It sounds like they're lucky to have you on that team.",
      "Deadlines always pile up at the same time, don't they?",
      'Maybe ask your manager about working from home a couple of days a week.',
      'Proud of you, that takes a lot of effort.',
    ],
    questions: {
      single: [
        { text: 'Where does {o} work now?', answer: 'value', current: true },
        { text: 'What role did {o} take at {v}?', answer: 'detail' },
      ],
      temporal: 'When did {o} start working at {v}?',
      who: 'Who started working at {v}?',
      list: 'Which companies has {o} worked for?',
      before: 'Where did {o} work before joining {v}?',
    },
  },
  {
    name: 'pet',
    shape: 'constant',
    value: VALUES.petName,
    detail: DETAILS.species,
    intro: [
      'I adopted a {d} from the shelter today! Meet {v}, who has already stolen one of my slippers.',
      'We have a new family member: a {d} called {v}. I picked {v} up from a rescue this morning.',
    ],
    change: [],
    mention: [
      '{v} learned to open the kitchen cupboard, so nothing is safe anymore.',
      'I took {v} to the vet for a check-up and everything looked healthy.',
      '{v} fell asleep on my laptop keyboard while I was trying to work.',
      'I bought {v} a ridiculous little raincoat and I regret nothing.',
    ],
    ask: ['How is {v} doing? Still causing chaos?', 'Give {v} a scratch behind the ears from me!'],
    prompts: ['Any news on the animal front?', 'How are things with the critters in your life?'],
    chatter: [
      "Pet food prices have gone up so much, I've started buying in bulk.",
      "I've been reading about training with treats and short sessions instead of scolding.",
      'The vet said regular walks and a consistent feeding schedule make a big difference.',
      'I vacuum every day now and there is still fur on everything I own.',
      'I found a pet sitter in the building for when I travel, which is a relief.',
      "There's a pet-friendly cafe nearby that hands out free biscuits.",
    ],
    replies: [
      'Pets make a home feel so much warmer.',
      'I love how every animal has its own weird personality.',
      'Please send more photos, they make my day.',
      'The first few weeks with a new pet are a lot of work, but worth it.',
    ],
    questions: {
      single: [
        { text: "What is the name of {o}'s {d}?", answer: 'value' },
        { text: "What kind of animal is {v}, {o}'s pet?", answer: 'detail' },
      ],
      temporal: 'When did {o} adopt {v}?',
      who: 'Who adopted a pet named {v}?',
    },
  },
  {
    name: 'band',
    shape: 'constant',
    value: VALUES.band,
    detail: DETAILS.instrument,
    intro: [
      "I joined a band! We're called {v} and I'm playing {d}. Our first rehearsal was tonight.",
      'Some friends asked me to play {d} in their band, {v}, and I said yes on the spot.',
    ],
    change: [],
    mention: [
      "{v} has a gig at a tiny bar downtown next month, and I'm nervous already.",
      "We recorded a rough demo with {v} in the drummer's garage.",
      'Rehearsal with {v} ran until midnight, but we finally nailed the bridge.',
    ],
    ask: ['When is {v} playing next? I want to come.', 'How are rehearsals with {v} going?'],
    prompts: ['Are you still making music these days?', "How's the music going?"],
    chatter: [
      "I've been practicing scales for an hour every night, my neighbours must love me.",
      'We argued about the setlist for ages, everyone wants their song to go first.',
      'I bought new strings and a tuner, and it already sounds brighter.',
      'Writing lyrics is harder than I thought, most of my ideas rhyme with heart.',
      'Our amp kept buzzing, so we spent half the rehearsal swapping cables.',
      "I've been listening to old soul records to learn how they build a groove.",
    ],
    replies: [
      "Live music is the best, I'm so happy you're doing this.",
      'Stage nerves fade once the first song starts, trust me.',
      'Record everything, even the messy rehearsals.',
      "I'd love to hear one of your songs sometime.",
    ],
    questions: {
      single: [
        { text: 'What is the name of the band {o} joined?', answer: 'value' },
        { text: 'What instrument does {o} play in {v}?', answer: 'detail' },
      ],
      temporal: 'When did {o} join the band {v}?',
      who: 'Who joined the band {v}?',
    },
  },
  {
    name: 'cooking',
    shape: 'collection',
    value: VALUES.dish,
    detail: DETAILS.occasion,
    intro: ['I tried cooking {v} {d}, and everyone asked me for the recipe!'],
    change: [
      'Tonight I cooked {v} {d}. It took three hours but it was worth it.',
      'I made {v} for the first time, {d}. The sauce came out perfect.',
      'I tried cooking {v} {d}, and everyone asked me for the recipe!',
    ],
    mention: [
      "I'm still thinking about that {v}, I might make it again this weekend.",
      'My recipe for the {v} is now on a sticky note on the fridge.',
    ],
    ask: ['Will you make the {v} again? It sounded amazing.', 'Did you ever write down the recipe for the {v}?'],
    prompts: ['Have you cooked anything fun lately?', "What's been happening in your kitchen?"],
    chatter: [
      'I finally sharpened my knives and chopping onions is so much faster.',
      "I've been experimenting with smoked paprika in almost everything.",
      'My sourdough starter died again, I think I forgot to feed it.',
      "I bought a cast iron pan and I'm slightly obsessed with it.",
      "I've started meal prepping on Sundays so weeknights are easier.",
      "The spice market near the station sells things I can't even pronounce.",
      'I burned the garlic twice before I learned to add it at the end.',
    ],
    replies: [
      "You're becoming a real chef, I'm impressed.",
      'Save me a plate next time!',
      'Cooking for people is such a lovely way to show you care.',
      'I can barely boil pasta, so this is magic to me.',
    ],
    questions: {
      single: [
        { text: 'What did {o} cook {d}?', answer: 'value' },
        { text: 'What was the occasion when {o} cooked {v}?', answer: 'detail' },
      ],
      temporal: 'When did {o} cook {v}?',
      who: 'Who cooked {v} {d}?',
      list: 'Which dishes has {o} cooked?',
      first: 'Which were the first {k} dishes {o} cooked?',
      latest: 'Which {k} dishes has {o} cooked most recently?',
    },
  },
  {
    name: 'hiking',
    shape: 'collection',
    value: VALUES.trail,
    detail: DETAILS.companion,
    intro: ['I hiked the {v} with {d} today, twelve miles with a brutal climb at the end.'],
    change: [
      'I hiked the {v} with {d} today, twelve miles with a brutal climb at the end.',
      '{d} and I finally did the {v}! We reached the top just before the fog rolled in.',
      'Just got back from the {v}. {d} came along and we saw a family of deer.',
    ],
    mention: [
      'My calves still remember the {v}, that last climb was no joke.',
      'I keep looking at the photos from the {v}, the view from the ridge was unreal.',
    ],
    ask: ['Would you do the {v} again, or was once enough?', 'How long did the {v} take you?'],
    prompts: ['Have you been out on any trails lately?', 'Have you done any hiking recently?'],
    chatter: [
      'I bought proper hiking boots and my blisters are finally healing.',
      "Switchbacks are my nemesis, I'm always out of breath halfway up.",
      'I pack way too many snacks, but trail mix at the summit tastes amazing.',
      'The trailhead parking lot was full by seven, everyone had the same idea.',
      "I've started checking the forecast obsessively before every hike.",
      'My trekking poles saved my knees on the descent.',
    ],
    replies: [
      'Fresh air and a long trail sounds like exactly what you needed.',
      'I should join you on a hike sometime, if you go slow for me.',
      'Be careful out there, the weather in the hills changes fast.',
      'Nothing beats the view after a tough climb.',
    ],
    questions: {
      single: [
        { text: 'Which trail did {o} hike with {d}?', answer: 'value' },
        { text: 'Who did {o} hike the {v} with?', answer: 'detail' },
      ],
      temporal: 'When did {o} hike the {v}?',
      who: 'Who hiked the {v} with {d}?',
      list: 'Which trails has {o} hiked?',
      first: 'Which were the first {k} trails {o} hiked?',
      latest: 'Which {k} trails has {o} hiked most recently?',
    },
  },
  {
    name: 'reading',
    shape: 'collection',
    value: VALUES.book,
    detail: DETAILS.author,
    intro: ['I just finished {v} by {d}, and I stayed up until two reading the last chapters.'],
    change: [
      'I just finished {v} by {d}, and I stayed up until two reading the last chapters.',
      "My book club picked {v} by {d} this month, and I couldn't put it down.",
    ],
    mention: [
      'I keep thinking about the ending of {v}, it was so unexpected.',
      'I lent my copy of {v} to a coworker and I hope I get it back.',
    ],
    ask: ['Would you recommend {v}? I need something new to read.', 'Was {v} as good as the reviews say?'],
    prompts: ['Have you read anything good lately?', "What's on your nightstand these days?"],
    chatter: [
      'The library near me had a used book sale and I came home with a full tote bag.',
      "I've been reading on the bus instead of scrolling, and the commute flies by.",
      'My pile of unread paperbacks is taller than my nightstand at this point.',
      'I started annotating in pencil, it helps me remember what I read.',
      'Audiobooks have saved my long drives, especially with a good narrator.',
    ],
    replies: [
      'I love getting lost in a good story.',
      'Your book recommendations are always spot on.',
      "I need to read more, you're inspiring me.",
      'A good ending can make the whole book.',
    ],
    questions: {
      single: [
        { text: 'Which book by {d} did {o} read?', answer: 'value' },
        { text: 'Who wrote {v}, which {o} read?', answer: 'detail' },
      ],
      temporal: 'When did {o} read {v}?',
      who: 'Who read {v} by {d}?',
      list: 'Which books has {o} read?',
      first: 'Which were the first {k} books {o} read?',
      latest: 'Which {k} books has {o} read most recently?',
    },
  },
  {
    name: 'running',
    shape: 'collection',
    value: VALUES.race,
    detail: DETAILS.finishTime,
    intro: ['I ran the {v} this morning and finished in {d}! My legs are jelly.'],
    change: [
      'I ran the {v} this morning and finished in {d}! My legs are jelly.',
      'I crossed the finish line of the {v} in {d} today, a new personal best.',
    ],
    mention: [
      'I still have my medal from the {v} hanging on the door.',
      'Training for the {v} taught me to pace myself properly.',
    ],
    ask: ['Are you signing up for the {v} again next year?', 'How did you feel after the {v}?'],
    prompts: ["How's the running going?", 'Any races coming up for you?'],
    chatter: [
      'I did interval training at the track, six fast laps with short rests.',
      "My shin splints are back, so I'm icing and stretching every night.",
      'I got new running shoes with way more cushioning.',
      'Early morning runs are hard, but the empty streets are so peaceful.',
      "I've been tracking my splits and my tempo runs are getting faster.",
      'Foam rolling hurts so much, but my legs feel better the next day.',
    ],
    replies: [
      "I can't even run for a bus, so I'm in awe of you.",
      'Remember to rest, recovery matters as much as training.',
      "That's real dedication, getting up early to run.",
      'You must be so fit by now!',
    ],
    questions: {
      single: [{ text: "What was {o}'s finishing time in the {v}?", answer: 'detail' }],
      temporal: 'When did {o} run the {v}?',
      who: 'Who ran the {v}?',
      list: 'Which races has {o} run?',
      first: 'Which were the first {k} races {o} ran?',
      latest: 'Which {k} races has {o} run most recently?',
    },
  },
  {
    name: 'garden',
    shape: 'collection',
    value: VALUES.plant,
    detail: DETAILS.location,
    intro: ['I planted {v} {d} today, fingers crossed the slugs leave them alone.'],
    change: [
      'I planted {v} {d} today, fingers crossed the slugs leave them alone.',
      'This weekend I put in some {v} {d}. My hands are still covered in soil.',
    ],
    mention: [
      'The {v} are finally sprouting, I check on them every morning.',
      'Something has been nibbling the {v}, I suspect the rabbits.',
    ],
    ask: ['How are the {v} coming along?', 'Did the {v} survive that cold snap?'],
    prompts: ["How's the garden doing?", 'Is anything growing in the garden yet?'],
    chatter: [
      'I started a compost bin and it smells better than I expected.',
      'The watering can has become my favourite object in the house.',
      "I'm learning which weeds are actually wildflowers worth keeping.",
      'Mulching the beds took all afternoon, but the soil stays damp now.',
      "Aphids showed up on the roses, so I'm trying a soap spray.",
      'I saved seeds from last season in little paper envelopes.',
    ],
    replies: [
      'Gardening sounds so calming, I love that for you.',
      'Nothing tastes better than something you grew yourself.',
      'Slugs are the worst, good luck.',
      "I kill every plant I touch, so I'm very impressed.",
    ],
    questions: {
      single: [
        { text: 'What did {o} plant {d}?', answer: 'value' },
        { text: 'Where did {o} plant the {v}?', answer: 'detail' },
      ],
      temporal: 'When did {o} plant the {v}?',
      who: 'Who planted the {v} {d}?',
      list: 'Which plants has {o} planted?',
      first: 'Which were the first {k} plants {o} planted?',
      latest: 'Which {k} plants has {o} planted most recently?',
    },
  },
  {
    name: 'travel',
    shape: 'collection',
    value: VALUES.destination,
    detail: DETAILS.highlight,
    intro: ['I just got back from {v}! The best part was {d}.'],
    change: [
      'I just got back from {v}! The best part was {d}.',
      "We spent a long weekend in {v} and I can't stop talking about {d}.",
    ],
    mention: ["I'm still sorting the photos from {v}, there are hundreds.", 'I miss the food in {v} already.'],
    ask: ['Would you go back to {v}?', 'What was the weather like in {v}?'],
    prompts: ['Have you been anywhere interesting lately?', 'Any trips recently?'],
    chatter: [
      "I've gotten really good at packing everything into one carry-on bag.",
      'Our flight was delayed four hours, so I napped on the airport floor.',
      'I always buy a postcard on a trip and mail it to myself.',
      "I'm already browsing cheap flights for the next trip.",
      'Jet lag hit me hard this time, I slept through two alarms.',
    ],
    replies: [
      'That sounds like an incredible trip.',
      "I'm so jealous, I need a vacation.",
      "Travel really clears the head, doesn't it?",
      'Please send me the photos!',
    ],
    questions: {
      single: [
        { text: "What was the best part of {o}'s trip to {v}?", answer: 'detail' },
        { text: 'On which trip did {o} enjoy {d}?', answer: 'value' },
      ],
      temporal: 'When did {o} travel to {v}?',
      who: 'Who traveled to {v}?',
      list: 'Which places has {o} traveled to?',
      first: 'Which were the first {k} places {o} traveled to?',
      latest: 'Which {k} places has {o} traveled to most recently?',
    },
  },
  {
    name: 'family',
    shape: 'constant',
    value: VALUES.person,
    detail: DETAILS.relative,
    intro: [
      'My {d} {v} is coming to stay with me for a week, so I need to clean the guest room.',
      "My {d} {v} visited today, and we talked for hours since we hadn't seen each other in ages.",
    ],
    change: [],
    mention: [
      '{v} called me last night and we talked for two hours.',
      '{v} sent me a care package with homemade cookies.',
    ],
    ask: ['How is {v} doing these days?', 'Say hi to {v} for me!'],
    prompts: ["How's your family doing?", 'Have you seen any of your relatives lately?'],
    chatter: [
      'Family group chats are chaos, someone always replies to the wrong message.',
      "We're planning a big family dinner and nobody agrees on the date.",
      'I found old photo albums from when we were kids, and the haircuts were tragic.',
      'My parents finally learned how to video call, mostly.',
      'Holidays with everyone in one house are loud, but I secretly love it.',
    ],
    replies: [
      "Family time is precious, I'm glad you get to see them.",
      'Your family sounds like so much fun.',
      'I should call my parents more often, honestly.',
      'It is nice when family shows up for you.',
    ],
    questions: {
      single: [
        { text: "What is the name of {o}'s {d}?", answer: 'value' },
        { text: 'How is {v} related to {o}?', answer: 'detail' },
      ],
      temporal: "When did {o}'s {d} {v} visit?",
      who: 'Whose {d} is {v}?',
    },
  },
  {
    name: 'studies',
    shape: 'state',
    value: VALUES.school,
    detail: DETAILS.subject,
    intro: [
      "I enrolled at {v}! I'm starting a part-time course in {d} this autumn.",
      'I got accepted to {v} to study {d}, and classes start next month.',
    ],
    change: [
      'I transferred from {prev} to {v}, their {d} program is much better.',
      'I left {prev} and signed up at {v} for a course in {d} instead.',
    ],
    mention: [
      'The library at {v} is open until midnight, which saves me during exams.',
      'My professor at {v} gives the hardest quizzes I have ever seen.',
    ],
    ask: ['How are your classes at {v} going?', 'Do you like your classmates at {v}?'],
    prompts: ["How's the studying going?", 'What are you learning these days?'],
    chatter: [
      "I pulled an all-nighter for an essay and I'm never doing that again.",
      'Group projects are testing my patience, one guy never replies.',
      'I made color-coded flashcards and they actually help.',
      'Balancing classes with everything else is harder than I expected.',
      'I got an A on my midterm and I may have screamed a little.',
    ],
    replies: [
      'Going back to school takes guts, I admire that.',
      "You're going to do great, you always work so hard.",
      "Don't forget to sleep during exam season!",
      'Learning something new at any age is so cool.',
    ],
    questions: {
      single: [
        { text: 'Where is {o} studying now?', answer: 'value', current: true },
        { text: 'What did {o} study at {v}?', answer: 'detail' },
      ],
      temporal: 'When did {o} enroll at {v}?',
      who: 'Who enrolled at {v}?',
      list: 'Which schools has {o} attended?',
      before: 'Where did {o} study before {v}?',
    },
  },
];

/**
 * Names and things the synthetic conversations talk about. Proper nouns (towns, companies, pets, trails, ...) are
 * made up from syllables so every user gets entities no other user shares: a lexical retriever then has to find
 * the right user's turn, not any turn with a common word. Everything here was written for Akashic.
 *
 * @internal
 */
import type { Prng } from './prng.js';

/** Hands out made-up words, never the same one twice. One forge per conversation. */
export interface NameForge {
  /** A capitalised made-up name such as "Brannel" or "Quorvith". */
  proper(): string;
  /** A lower-case made-up word such as "tessock", used for ingredients and varieties. */
  word(): string;
  /** A person's first name from {@link FIRST_NAMES}, distinct from the ones handed out before while any remain. */
  person(): string;
}

/** First names for speakers, companions and relatives; the only names not invented from syllables. */
export const FIRST_NAMES: readonly string[] = [
  'Amara', 'Bastian', 'Celine', 'Dario', 'Elif', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonah',
  'Kaia', 'Lorenzo', 'Maren', 'Nikhil', 'Odette', 'Pavel', 'Quinn', 'Rosa', 'Soren', 'Talia',
  'Umar', 'Vera', 'Wendell', 'Ximena', 'Yusuf', 'Zara', 'Anouk', 'Bruno', 'Chiara', 'Desmond',
  'Esme', 'Felix', 'Gideon', 'Hana', 'Idris', 'Juno', 'Kenji', 'Leila', 'Milo', 'Nadia',
  'Otto', 'Priya', 'Rafael', 'Saoirse', 'Tobias', 'Uma', 'Viktor', 'Willa', 'Yara', 'Zeke',
  'Abel', 'Bea', 'Cyrus', 'Dalia', 'Emeka', 'Freya', 'Gael', 'Hollis', 'Ingrid', 'Jasper',
  'Keziah', 'Lars', 'Mina', 'Noor', 'Orla', 'Pilar', 'Rohan', 'Sunniva', 'Theo', 'Wren',
];

const ONSETS = ['b', 'br', 'c', 'd', 'dr', 'f', 'g', 'gr', 'h', 'k', 'l', 'm', 'n', 'p', 'pr', 'qu', 'r', 's', 'sh',
  'st', 't', 'th', 'tr', 'v', 'w', 'z'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'au', 'ea', 'ee', 'oa', 'ou'];
const CODAS = ['', '', '', 'l', 'm', 'n', 'r', 'rn', 'rk', 's', 'st', 'nd'];
/** After a coda only a single consonant follows, so names never stack four consonants ("ndstr"). */
const SOFT_ONSETS = ['b', 'd', 'g', 'k', 'l', 'm', 'p', 'w'];
/** Second-syllable rhymes; they start with a vowel so the onset before them always has one. */
const RHYMES = ['a', 'o', 'y', 'en', 'el', 'er', 'in', 'ar', 'is', 'ith', 'ow', 'an', 'on', 'et', 'ick', 'ley', 'wen',
  'ora', 'ette', 'ane'];

/** Creates a forge drawing from `rng`. */
export function createNameForge(rng: Prng): NameForge {
  const used = new Set<string>();
  const people = rng.shuffle(FIRST_NAMES);
  let nextPerson = 0;

  const stem = (): string => {
    const coda = rng.pick(CODAS);
    let onset2 = coda === '' ? rng.pick(ONSETS) : rng.pick(SOFT_ONSETS);
    // A doubled consonant across the join ("Hinddow") reads like a typo.
    if (onset2 === coda.slice(-1)) onset2 = 'v';
    return rng.pick(ONSETS) + rng.pick(VOWELS) + coda + onset2 + rng.pick(RHYMES);
  };
  const fresh = (): string => {
    // The space of stems is in the hundreds of thousands, so a handful of retries practically always succeeds;
    // the longer fallback only keeps the loop bounded for runs with very many entities per user.
    for (let i = 0; i < 20; i++) {
      const s = stem();
      if (!used.has(s)) {
        used.add(s);
        return s;
      }
    }
    for (;;) {
      const s = stem() + rng.pick(SOFT_ONSETS) + rng.pick(RHYMES);
      if (!used.has(s)) {
        used.add(s);
        return s;
      }
    }
  };
  return {
    proper: () => capitalise(fresh()),
    word: fresh,
    person(): string {
      if (nextPerson < people.length) return people[nextPerson++] as string;
      // Once the list is used up, people get surnames so that they stay distinct.
      return `${rng.pick(FIRST_NAMES)} ${capitalise(fresh())}`;
    },
  };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Makes the value of a fact (a town, a pet's name, a trail ...). */
export type ValueMaker = (forge: NameForge, rng: Prng) => string;
/** Makes the detail that goes with a value (a role, a species, a companion ...). */
export type DetailMaker = (forge: NameForge, rng: Prng, value: string) => string;

const fromList =
  (items: readonly string[]): DetailMaker =>
  (_forge, rng) =>
    rng.pick(items);

export const VALUES = {
  town: (f, r) => (r.chance(0.7)
    ? f.proper() + r.pick(['ford', 'by', 'mere', 'wick', 'ton', 'haven', 'field', 'stead', 'moor', 'bridge'])
    : `${f.proper()} ${r.pick(['Bay', 'Falls', 'Springs', 'Hollow', 'Heights', 'Crossing'])}`),
  company: (f, r) =>
    `${f.proper()} ${r.pick(['Analytics', 'Logistics', 'Robotics', 'Studios', 'Health', 'Foods', 'Labs', 'Systems',
      'Outfitters', 'Press', 'Insurance', 'Energy'])}`,
  petName: (f) => f.proper(),
  band: (f, r) => (r.chance(0.6)
    ? `The ${f.proper()} ${r.pick(['Lanterns', 'Owls', 'Static', 'Foxes', 'Choir', 'Engines', 'Tides', 'Comets'])}`
    : `${r.pick(['Velvet', 'Paper', 'Silver', 'Neon', 'Quiet', 'Broken'])} ${f.proper()}`),
  dish: (f, r) => (r.chance(0.5)
    ? `${f.word()} ${r.pick(['stew', 'dumplings', 'flatbread', 'curry', 'risotto', 'noodle soup', 'pie', 'tart',
      'skillet hash', 'fritters', 'casserole', 'dal'])}`
    : `${f.proper()}-style ${r.pick(['meatballs', 'pancakes', 'fish tacos', 'chowder', 'braised lentils', 'bread',
      'goulash', 'dumplings'])}`),
  trail: (f, r) =>
    `${f.proper()} ${r.pick(['Ridge Trail', 'Loop', 'Falls Trail', 'Canyon Path', 'Summit Trail', 'Lakeshore Trail',
      'Gorge Walk', 'Pass'])}`,
  book: (f, r) => {
    const name = f.proper();
    switch (r.int(0, 3)) {
      case 0:
        return `The ${r.pick(['Lanterns', 'Cartographer', 'Orchard', 'Tides', 'Glassmaker', 'Archive'])} of ${name}`;
      case 1:
        return `${name} ${r.pick(['Rising', 'at Dusk', 'in Winter', 'Unbound', 'Remembered', 'After Rain'])}`;
      case 2:
        return `The Last ${r.pick(['Summer', 'Ferry', 'Letter', 'Harvest', 'Signal'])} in ${name}`;
      default:
        return `${name}'s ${r.pick(['Daughter', 'Promise', 'Garden', 'Map', 'Secret', 'Clockwork'])}`;
    }
  },
  race: (f, r) =>
    `${f.proper()} ${r.pick(['Half Marathon', '10K', 'Marathon', 'Trail Race', 'Night Run', 'Harbour 5K'])}`,
  plant: (f, r) =>
    `${f.proper()} ${r.pick(['tomatoes', 'runner beans', 'sunflowers', 'strawberries', 'chili peppers', 'lavender',
      'blueberries', 'squash', 'dahlias', 'kale', 'sweet peas', 'potatoes'])}`,
  destination: (f, r) => (r.chance(0.5)
    ? f.proper()
    : r.pick([`${f.proper()} Island`, `the ${f.proper()} Valley`, `the ${f.proper()} Coast`, `Lake ${f.proper()}`])),
  school: (f, r) =>
    `${f.proper()} ${r.pick(['College', 'Institute', 'Academy', 'Community College', 'School of Design',
      'Polytechnic'])}`,
  person: (f) => f.person(),
} as const satisfies Record<string, ValueMaker>;

export const DETAILS = {
  housing: fromList([
    'a tiny flat above a bakery', 'a narrow townhouse with a red door', 'a basement apartment near the river',
    'a shared house with three roommates', 'a cottage with a leaky roof', 'a loft in an old textile mill',
    'a two-bedroom apartment by the tram stop', 'a houseboat on the canal', 'a studio with a huge skylight',
    'a duplex next to a park',
  ]),
  role: fromList([
    'data analyst', 'project manager', 'graphic designer', 'line cook', 'customer support lead',
    'warehouse supervisor', 'software tester', 'marketing coordinator', 'lab technician', 'sales associate',
    'payroll specialist', 'UX researcher',
  ]),
  species: fromList([
    'ferret', 'beagle puppy', 'tabby cat', 'tortoise', 'cockatiel', 'rescue greyhound', 'border collie',
    'lop-eared rabbit', 'corn snake', 'husky mix', 'guinea pig', 'black kitten',
  ]),
  instrument: fromList([
    'bass guitar', 'drums', 'keyboards', 'trumpet', 'violin', 'lead guitar', 'cello', 'saxophone', 'mandolin',
    'synthesizer', 'banjo', 'accordion',
  ]),
  occasion: fromList([
    'for a neighbourhood potluck', 'for the office bake-off', 'for a family reunion', 'for a housewarming party',
    'for a rainy Sunday lunch', 'for a birthday dinner', 'for a picnic by the lake', 'for a book club meeting',
    'for a holiday party', 'for a game night', 'for a charity bake sale', 'for an anniversary dinner',
  ]),
  companion: (f) => f.person(),
  author: (f) => `${f.person()} ${f.proper()}`,
  finishTime: (_f, r, race) => {
    if (race.endsWith('Half Marathon') || race.endsWith('Trail Race')) return `1 hour ${r.int(35, 59)} minutes`;
    if (race.endsWith('Marathon')) return `${r.int(3, 5)} hours ${r.int(1, 59)} minutes`;
    return `${r.int(21, 58)} minutes`;
  },
  location: fromList([
    'along the back fence', 'in the raised bed by the shed', 'in pots on the balcony', 'next to the pond',
    'under the kitchen window', 'by the garden gate', 'in the greenhouse', 'at the community plot',
    'along the driveway', 'in an old bathtub planter',
  ]),
  highlight: fromList([
    'cave diving', 'kayaking between the sea stacks', 'hiking to a hidden waterfall',
    'tasting cheeses at the night market', 'snorkeling over a coral reef', 'riding a vintage tram',
    'watching the sunrise from the old lighthouse', 'taking a cooking class with a local grandmother',
    'cycling through the vineyards', 'soaking in the hot springs', 'exploring a ruined castle',
    'spotting whales from a fishing boat',
  ]),
  relative: fromList([
    'younger brother', 'older sister', 'cousin', 'aunt', 'uncle', 'grandmother', 'nephew', 'niece', 'stepbrother',
    'godmother',
  ]),
  subject: fromList([
    'marine biology', 'graphic design', 'nursing', 'accounting', 'landscape architecture', 'data science',
    'culinary arts', 'early childhood education', 'mechanical engineering', 'art history', 'translation',
  ]),
} as const satisfies Record<string, DetailMaker>;

/**
 * Seeded scenarios of facts that change, and look-alikes that do not: the workload of `akashic eval updates`.
 *
 * Each scenario is one person's conversation with an assistant over three sessions of ten turns. The first session
 * states a fact (where they work, where they live, what they drive, who their partner is) inside a turn that also
 * says something else; the second is small talk; the third either **updates** the fact (a new value, in one of many
 * phrasings) or says a **control** that must not retire it: the same kind of fact about someone else, an addition,
 * a hedge or plan, a fact about the past, or an unrelated sentence that mentions a place or a company. A question
 * about the fact follows. Phrasings, names, values, fillers and the assistant's replies are drawn from templates by
 * a seeded generator, so a seed gives the same set on every machine and other seeds give sets no rule was tuned on.
 *
 * @internal
 */
import { createPrng, type Prng } from './prng.js';
import { createNameForge, type NameForge } from './synthetic-entities.js';
import { readFile, stat } from 'node:fs/promises';
import { AkashicError, invalidArgument } from '../../errors.js';

/** What the scenario's final session does to the fact. */
export type ScenarioKind = 'update' | 'other-person' | 'addition' | 'hedge' | 'past' | 'unrelated';

export const SCENARIO_KINDS: readonly ScenarioKind[] = ['update', 'other-person', 'addition', 'hedge', 'past', 'unrelated'];

export type ScenarioFact = 'employer' | 'home' | 'car' | 'partner';

export interface ScenarioTurn {
  readonly role: string;
  readonly text: string;
}

export interface UpdateScenario {
  readonly id: string;
  readonly kind: ScenarioKind;
  readonly fact: ScenarioFact;
  /** The person: the speaker of the user's turns. */
  readonly speaker: string;
  /** Three sessions of turns, oldest first. */
  readonly sessions: readonly (readonly ScenarioTurn[])[];
  readonly question: string;
  /** The value stated first. */
  readonly oldValue: string;
  /** The current value after the final session: the new one for an update, the old one for a control. */
  readonly currentValue: string;
}

export interface ScenarioOptions {
  /** Any safe integer. Default 1. */
  readonly seed?: number;
  /**
   * Phrasings to draw from instead of the built-in ones, for some or all facts (`parseScenarioPhrasings`): a set
   * written apart from the rule, to measure it on wording it was not written against. Values, names, fillers and
   * the scenario mix stay the generator's.
   */
  readonly phrasings?: ScenarioPhrasings;
  /** Scenarios of each kind per fact. Default 8 updates and 2 of each control kind. */
  readonly updatesPerFact?: number;
  readonly controlsPerKind?: number;
}

type Fill = (v: string) => string;

/** The lists of one fact's phrasings in a phrasing set (see `parseScenarioPhrasings`). */
export const PHRASING_LISTS = ['stated', 'updated', 'otherPerson', 'addition', 'hedge', 'past', 'unrelated', 'questions'] as const;
export type PhrasingList = (typeof PHRASING_LISTS)[number];

/**
 * Phrasings of some facts, as templates: `{v}` is the value (a company, a town, a car model, a first name), `{who}`
 * a relative or friend (`otherPerson` only: "my {who} …"), `{name}` the person (`questions` only).
 */
export type ScenarioPhrasings = Partial<Readonly<Record<ScenarioFact, Readonly<Record<PhrasingList, readonly string[]>>>>>;

const MAX_TEMPLATES = 1000;
const MAX_TEMPLATE_CHARS = 1000;

/** Which placeholders each list's templates hold: exactly once (1) or at most once (0..1). */
const PLACEHOLDERS: Readonly<Record<PhrasingList, Readonly<Record<string, 'once' | 'optional'>>>> = {
  stated: { '{v}': 'once' },
  updated: { '{v}': 'once' },
  otherPerson: { '{v}': 'once', '{who}': 'optional' },
  addition: { '{v}': 'optional' },
  hedge: { '{v}': 'optional' },
  past: { '{v}': 'optional' },
  unrelated: { '{v}': 'optional' },
  questions: { '{name}': 'once' },
};

/**
 * Checks a phrasing set read from JSON: an object of facts (`employer`, `home`, `car`, `partner`; any subset), each
 * with all eight lists of {@link PHRASING_LISTS}, each a non-empty array (at most 1,000) of templates (strings of at
 * most 1,000 characters holding their placeholders as {@link ScenarioPhrasings} says, no other `{…}`).
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming the first thing wrong.
 */
export function parseScenarioPhrasings(value: unknown): ScenarioPhrasings {
  const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (!isObject(value)) throw invalidArgument('phrasings must be an object of facts');
  const out: Partial<Record<ScenarioFact, Record<PhrasingList, readonly string[]>>> = {};
  for (const [fact, lists] of Object.entries(value)) {
    if (!Object.hasOwn(TEMPLATES, fact)) throw invalidArgument(`phrasings: unknown fact ${JSON.stringify(fact)} (known: ${Object.keys(TEMPLATES).join(', ')})`);
    if (!isObject(lists)) throw invalidArgument(`phrasings.${fact} must be an object of lists`);
    for (const key of Object.keys(lists)) if (!(PHRASING_LISTS as readonly string[]).includes(key)) throw invalidArgument(`phrasings.${fact}: unknown list ${JSON.stringify(key)} (known: ${PHRASING_LISTS.join(', ')})`);
    const checked = {} as Record<PhrasingList, readonly string[]>;
    for (const list of PHRASING_LISTS) {
      const templates = lists[list];
      const where = `phrasings.${fact}.${list}`;
      if (!Array.isArray(templates) || templates.length === 0 || templates.length > MAX_TEMPLATES) throw invalidArgument(`${where} must be an array of 1 to ${MAX_TEMPLATES} templates`);
      checked[list] = templates.map((t: unknown, i) => {
        if (typeof t !== 'string' || t.trim() === '' || t.length > MAX_TEMPLATE_CHARS) throw invalidArgument(`${where}[${i}] must be a non-empty string of at most ${MAX_TEMPLATE_CHARS} characters`);
        const rules = PLACEHOLDERS[list];
        for (const ph of t.match(/\{[^{}]*\}/g) ?? []) if (!Object.hasOwn(rules, ph)) throw invalidArgument(`${where}[${i}]: unknown placeholder ${ph}`);
        for (const [ph, rule] of Object.entries(rules)) {
          const n = t.split(ph).length - 1;
          if (n > 1 || (rule === 'once' && n === 0)) throw invalidArgument(`${where}[${i}] must hold ${ph} ${rule === 'once' ? 'exactly' : 'at most'} once`);
        }
        return t;
      });
    }
    out[fact as ScenarioFact] = checked;
  }
  return out;
}

/** Largest phrasing file read. */
const MAX_PHRASINGS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Reads and checks a phrasing set from a JSON file (`akashic eval updates --phrasings`).
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` when the file cannot be read, is over 4 MiB, is not JSON or is
 *   not a phrasing set (`parseScenarioPhrasings`).
 */
export async function loadScenarioPhrasings(path: string): Promise<ScenarioPhrasings> {
  let text: string;
  try {
    if ((await stat(path)).size > MAX_PHRASINGS_FILE_BYTES) throw invalidArgument(`${path}: phrasing file is over ${MAX_PHRASINGS_FILE_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof AkashicError) throw err;
    throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `${path}: cannot read phrasing file`, { cause: err });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `${path}: not valid JSON`, { cause: err });
  }
  return parseScenarioPhrasings(value);
}

/** A template's placeholders filled (split and joined: a value is never read as a replacement pattern). */
const fill = (template: string, values: Readonly<Record<string, string>>): string =>
  Object.entries(values).reduce((text, [ph, v]) => text.split(ph).join(v), template);

/** A fact's built-in templates with a phrasing set's lists in their place. */
function withPhrasings(t: FactTemplates, p: Readonly<Record<PhrasingList, readonly string[]>> | undefined): FactTemplates {
  if (p === undefined) return t;
  const one = (list: readonly string[]): Fill[] => list.map((x) => (v) => fill(x, { '{v}': v }));
  return {
    value: t.value,
    stated: one(p.stated),
    updated: one(p.updated),
    otherPerson: p.otherPerson.map((x) => (who, v) => fill(x, { '{who}': who, '{v}': v })),
    addition: one(p.addition),
    hedge: one(p.hedge),
    past: one(p.past),
    unrelated: one(p.unrelated),
    questions: p.questions.map((x) => (name) => fill(x, { '{name}': name })),
  };
}

interface FactTemplates {
  /** Values: made-up names or a fixed list. */
  readonly value: (rng: Prng, names: NameForge) => string;
  readonly stated: readonly Fill[];
  readonly updated: readonly Fill[];
  /** The same kind of fact about someone else ({who}: a relative or a friend). */
  readonly otherPerson: readonly ((who: string, v: string) => string)[];
  readonly addition: readonly Fill[];
  readonly hedge: readonly Fill[];
  readonly past: readonly Fill[];
  readonly unrelated: readonly Fill[];
  readonly questions: readonly ((name: string) => string)[];
}

const CARS = ['Honda Civic', 'Toyota Corolla', 'Subaru Outback', 'Ford Focus', 'Tesla Model 3', 'Mazda 3', 'Volvo XC40', 'Kia Niro', 'Jeep Wrangler', 'Volkswagen Golf', 'Nissan Leaf', 'Hyundai Kona'];
const company = (_rng: Prng, names: NameForge): string => names.proper();
const city = (_rng: Prng, names: NameForge): string => names.proper();

const TEMPLATES: Readonly<Record<ScenarioFact, FactTemplates>> = {
  employer: {
    value: company,
    stated: [
      (v) => `I work at ${v} as a data analyst.`,
      (v) => `These days I work for ${v}, mostly on their billing team.`,
      (v) => `My job is at ${v}, in the support department.`,
      (v) => `I've been working at ${v} for three years.`,
      (v) => `I'm employed by ${v} as a designer.`,
    ],
    updated: [
      (v) => `I started at ${v} last week.`,
      (v) => `I just joined ${v} as a senior analyst.`,
      (v) => `Big news: I accepted an offer from ${v}.`,
      (v) => `I left my old job and now I work at ${v}.`,
      (v) => `Got a new job at ${v}!`,
      (v) => `I switched jobs and I'm working for ${v} now.`,
      (v) => `As of Monday I work for ${v}.`,
      (v) => `I was hired by ${v} last month.`,
    ],
    otherPerson: [(who, v) => `My ${who} works at ${v} now.`, (who, v) => `My ${who} just started at ${v}.`, (who, v) => `My ${who} got a job at ${v}.`],
    addition: [(v) => `I also volunteer at ${v} on weekends.`, () => `My daughter also started violin lessons.`, (v) => `I also help out at ${v} on Saturdays.`],
    hedge: [(v) => `I might apply at ${v} next year.`, (v) => `I'm thinking about a job at ${v}.`, (v) => `Maybe I could work at ${v} someday.`],
    past: [(v) => `I used to work at ${v} when I was in college.`, (v) => `Years ago I interned at ${v}.`],
    unrelated: [(v) => `We had lunch near the ${v} offices.`, (v) => `I read an article about ${v} and their new product.`],
    questions: [(n) => `Where does ${n} work now?`, (n) => `Who is ${n}'s employer?`, (n) => `What company does ${n} work for?`],
  },
  home: {
    value: city,
    stated: [
      (v) => `I live in ${v} with my two cats.`,
      (v) => `I've lived in ${v} for five years.`,
      (v) => `My apartment is in ${v}, close to the river.`,
      (v) => `Home is ${v} for me, it's a quiet town.`,
      (v) => `I'm based in ${v} these days.`,
    ],
    updated: [
      (v) => `I moved to ${v} last month.`,
      (v) => `Home is ${v} now.`,
      (v) => `I just relocated to ${v} for good.`,
      (v) => `We finally settled in ${v}.`,
      (v) => `I'm living in ${v} now.`,
      (v) => `Just moved into a flat in ${v}!`,
      (v) => `I packed everything up and moved over to ${v}.`,
    ],
    otherPerson: [(who, v) => `My ${who} lives in ${v}.`, (who, v) => `My ${who} just moved to ${v}.`],
    addition: [(v) => `We also have a small cabin near ${v}.`, () => `My daughter also started violin lessons.`],
    hedge: [(v) => `I might move to ${v} next year.`, (v) => `I'm considering a move to ${v}.`, (v) => `I would love to live in ${v} someday.`],
    past: [(v) => `I used to live in ${v} as a kid.`, (v) => `Back when I was a student I lived in ${v}.`],
    unrelated: [(v) => `I went hiking near ${v} on Saturday.`, (v) => `We watched a documentary about ${v}.`, (v) => `My flight had a stopover in ${v}.`],
    questions: [(n) => `Where does ${n} live now?`, (n) => `What city is ${n}'s home?`, (n) => `Where is ${n} living these days?`],
  },
  car: {
    value: (rng) => rng.pick(CARS),
    stated: [(v) => `I drive a ${v} to work every day.`, (v) => `My car is a ${v}, it's pretty old.`, (v) => `I've been driving a ${v} for years.`],
    updated: [
      (v) => `I bought a ${v} last weekend.`,
      (v) => `Now I drive a ${v}.`,
      (v) => `Got myself a ${v}!`,
      (v) => `I traded in my old car and got a ${v}.`,
      (v) => `My car is a ${v} now.`,
    ],
    otherPerson: [(who, v) => `My ${who} drives a ${v}.`, (who, v) => `My ${who} bought a ${v}.`],
    addition: [() => `I also got a new bike for the summer.`, (v) => `We also rented a ${v} for the road trip.`],
    hedge: [(v) => `I would love to drive a ${v} someday.`, (v) => `I'm thinking about buying a ${v}.`],
    past: [(v) => `I used to drive a ${v} in college.`],
    unrelated: [(v) => `I saw a ${v} parked outside the bakery.`, (v) => `There was an ad for the ${v} on TV.`],
    questions: [(n) => `What car does ${n} drive now?`, (n) => `Which car does ${n} have?`],
  },
  partner: {
    value: (_rng, names) => names.person(),
    stated: [(v) => `My girlfriend is called ${v}.`, (v) => `I'm dating ${v}, we met at a concert.`, (v) => `I've been seeing ${v} for a while.`, (v) => `My partner ${v} loves hiking.`],
    updated: [(v) => `I'm seeing ${v} now.`, (v) => `I started dating ${v} recently.`, (v) => `My new partner is ${v}.`, (v) => `I got engaged to ${v}!`, (v) => `I'm going out with ${v} these days.`],
    otherPerson: [(who, v) => `My ${who} is dating ${v}.`, (who, v) => `My ${who} got engaged to ${v}.`],
    addition: [(v) => `I also have a friend called ${v} from work.`, () => `My daughter also started violin lessons.`],
    hedge: [(v) => `I might ask ${v} out.`, (v) => `I hope ${v} calls me back.`],
    past: [(v) => `I used to date ${v} in high school.`],
    unrelated: [(v) => `I had coffee with ${v} from the book club.`, (v) => `${v} from next door lent me a ladder.`],
    questions: [(n) => `Who is ${n}'s partner now?`, (n) => `Who is ${n} dating?`],
  },
};

const RELATIVES = ['brother', 'sister', 'cousin', 'best friend', 'dad', 'mom', 'roommate', 'neighbour'];
const SMALL_TALK = [
  'The weather has been grey all week.',
  'I finished a long novel about sailors.',
  'We argued for an hour about pizza toppings.',
  'My neighbour keeps practising the trumpet.',
  'I tried a new recipe for lentil soup.',
  'The bus was late again this morning.',
  'I have been sleeping badly lately.',
  'We watched a silly comedy on Friday.',
  'I started doing yoga in the mornings.',
  'The garden finally has tomatoes.',
  'I cleaned out the garage on Sunday.',
  'My cat knocked a glass off the table.',
];
const REPLIES = ['That sounds nice.', 'Oh, how exciting!', 'Thanks for telling me.', 'I see, good to know.', 'Ha, that is funny.', 'Tell me more about it.', 'That must have been tiring.', 'Congratulations!'];
const GREETINGS = ['Hi again!', 'Hello there.', 'Hey, good to see you.'];
const BYES = ['Talk soon!', 'Bye for now.', 'See you next time.'];

function session(rng: Prng, speaker: string, fact: string | null): ScenarioTurn[] {
  const talk = rng.shuffle(SMALL_TALK);
  const turns: ScenarioTurn[] = [{ role: speaker, text: rng.pick(GREETINGS) }, { role: 'assistant', text: 'Hi! How have you been?' }];
  const at = fact === null ? -1 : rng.int(1, 3);
  for (let i = 0; i < 4; i++) {
    // The fact shares its turn with another statement: a chunk holds many statements and only the stale one goes.
    const text = i === at ? (rng.chance(0.5) ? `${talk[i]} ${fact}` : `${fact} ${talk[i]}`) : talk[i]!;
    turns.push({ role: speaker, text }, { role: 'assistant', text: rng.pick(REPLIES) });
  }
  return [...turns.slice(0, 9), { role: speaker, text: rng.pick(BYES) }];
}

/**
 * Generates the scenarios of one seed: per fact, `updatesPerFact` updates and `controlsPerKind` of each control kind.
 *
 * @example
 * ```ts
 * const set = generateUpdateScenarios({ seed: 7 });
 * set.filter((s) => s.kind === 'update').length; // 32
 * ```
 */
export function generateUpdateScenarios(options: ScenarioOptions = {}): UpdateScenario[] {
  const seed = options.seed ?? 1;
  const updates = options.updatesPerFact ?? 8;
  const controls = options.controlsPerKind ?? 2;
  const rng = createPrng(seed);
  const out: UpdateScenario[] = [];
  for (const fact of Object.keys(TEMPLATES) as ScenarioFact[]) {
    const t = withPhrasings(TEMPLATES[fact], options.phrasings?.[fact]);
    const kinds: ScenarioKind[] = [...Array<ScenarioKind>(updates).fill('update'), ...SCENARIO_KINDS.slice(1).flatMap((k) => Array<ScenarioKind>(controls).fill(k))];
    for (const kind of kinds) {
      const names = createNameForge(rng);
      const speaker = names.person();
      const oldValue = t.value(rng, names);
      let other = t.value(rng, names);
      while (other === oldValue) other = t.value(rng, names);
      const third =
        kind === 'update'
          ? rng.pick(t.updated)(other)
          : kind === 'other-person'
            ? rng.pick(t.otherPerson)(rng.pick(RELATIVES), other)
            : kind === 'addition'
              ? rng.pick(t.addition)(other)
              : kind === 'hedge'
                ? rng.pick(t.hedge)(other)
                : kind === 'past'
                  ? rng.pick(t.past)(other)
                  : rng.pick(t.unrelated)(other);
      out.push({
        id: `${seed}-${fact}-${out.length}`,
        kind,
        fact,
        speaker,
        sessions: [session(rng, speaker, rng.pick(t.stated)(oldValue)), session(rng, speaker, null), session(rng, speaker, third)],
        question: rng.pick(t.questions)(speaker),
        oldValue,
        currentValue: kind === 'update' ? other : oldValue,
      });
    }
  }
  return out;
}

/**
 * Reading a statement as a fact, offline: which kind of fact (employer, home, car, partner, school, a favourite),
 * whose it is and its value — the first of `fact-patterns.ts`'s patterns that matches a plain assertion.
 *
 * A statement is read as a fact only when it is plainly asserted: a question, a hedge or plan ("I might move to
 * Denver", "thinking about a job at Initech"), a negation or the past ("I used to live in Rome") in the clause that
 * holds it makes it no fact; a noun phrase ("my wife Priya", "my Kia Niro") is taken as given unless the noun is no
 * longer current or someone else's. A statement that adds rather than replaces ("I also work at a café on weekends")
 * is marked as an addition, and whose fact it is comes from the words nearest its verb.
 * @internal
 */
import { MAKE, PATTERNS, type SlotPattern } from './fact-patterns.js';
import { PatternDispatch } from './pattern-dispatch.js';

/** The kinds of fact the rule knows, each a single-valued attribute of a person. */
export type FactSlot = 'employer' | 'home' | 'car' | 'partner' | 'school' | `favourite ${string}`;

/** One statement read as a fact. */
export interface StatementFact {
  readonly slot: FactSlot;
  /** Whose fact: the speaker ('self'), or the relative or named person the statement is about (lower-case). */
  readonly subject: string;
  /** The value as written (e.g. 'Globex'). */
  readonly value: string;
  /** Whether the statement adds to rather than replaces ("also", "too", "as well", "another"). */
  readonly addition: boolean;
  /**
   * Set when the fact is only implied by a workplace relation ("my manager at Initech thanked me"): it may be retired
   * by a later statement, but never retires one (people speak of a former workplace's people without saying so).
   */
  readonly implied?: true;
}

// Words that end a value ("Globex in Berlin", "Seattle now", "Acme since March").
const VALUE_STOP = new Set(
  (
    'now these this that last since for and but with because as on in at from to after before so which who where when ' +
    'recently today yesterday currently anymore again already finally instead full part there here then since, ' +
    "starting starts started next soon is was are were has have had i i'm i've i'd i'll im my we our you your it its they their he she his her " +
    'me us him them everyone everybody anyone someone'
  ).split(/\s+/),
);
const ARTICLES = new Set(['a', 'an', 'the', 'my', 'our', 'new', 'used']);

/** Words that make a clause a hedge, a plan, a negation or a wish: not a current fact. */
const HEDGE =
  /\b(?:might|maybe|could|would|should|want|wants|wanted|wish|hope|hoping|plan|plans|planning|thinking|considering|consider|if|dream|dreaming|someday|perhaps|probably|not|never|no longer|don't|doesn't|didn't|won't|isn't|wasn't|aren't|can't|cannot|going to|gonna|applied|applying|interview|interviewing|visit|visits|visiting|visited|trip|trips|vacation|holiday|assume|assumes|assumed|assuming|supposedly|looked at|looking at|viewed|viewing|no way|getting back|lost (?:my|his|her|their|the) job|laid off|fired from|i'd|we'd|love to|like to|rumou?r|rumou?red|almost|nearly|offered|turned\s+(?:it\s+|them\s+)?down|declined|walked away|conference|layover|stopover|for the weekend|this weekend)\b/i;
/** Words that put a clause in the past: what was, not what is. */
const PAST =
  /\b(?:used to|previously|formerly|back then|back when|back in (?:the day|college|school|high school|uni|university|my|\d{4})|in the past|years ago|ages ago|long time ago|a while ago|in college|in high school|at uni|as a kid|as a child|as a (?:teen|teenager|student)|spent (?:two|three|a few|several|many|\d+) (?:summers|years|months)|when i was|when we were|when i had|when i lived|when i worked|grew up|growing up|was born|were together|first (?:job|car|apartment|flat|house|girlfriend|boyfriend|love|wife|husband)|(?:was|were)\s+(?:married|engaged|together|dating|seeing|living|working|based|employed)|before the (?:divorce|breakup|split)|before i (?:moved|left|started|switched))\b/i;
/** Simple past of a fact's own verb ("I lived in Rome", "I worked at Acme"): the past, unless in a perfect ("I've lived"). */
const SIMPLE_PAST = /\b(?:lived|worked|resided|dated)\b|\bdrove\s+(?:a|an|the|my)\b/i;
/** Wishes for a time to come, wherever they sit in the clause. */
const SOMEDAY = /\b(?:someday|some day|one day|eventually)\b/i;
/** Words right after the fact's value that undo it ("I live in Lyon no longer"); other hedges count only before it. */
const HEDGE_AFTER = /^\W*(?:\S+\s+)?(?:anymore|any more|no longer)\b/i;
const PERFECT = /\b(?:have|has|'ve|i've|we've|ive)\b/i;
/** Words on a noun that make it no longer current ("my ex Priya", "my old Civic", "sold my Outback"). */
const NOT_CURRENT_NOUN =
  /(?:\b(?:ex|former|old|late|previous|first)\b[\s-]*(?:[\w'-]+[\s,]+){0,2}|\b(?:sold|selling|crashed|totaled|totalled|wrecked|scrapped|traded\s+in|got\s+rid\s+of)\s+(?:my|our)\s+(?:[\w'-]+\s+){0,2})$/i;
/** Modal verbs that are also names or months ("May", "Will"): a hedge only in lower case. */
const LOWER_CASE_HEDGE = /\b(?:may|will|'ll)\b/;
const ADDITION =
  /\b(?:also|too|as well|another|second|additionally|in addition|besides|both|on top of|alongside|on the side|side gig|side job|side hustle|part-time|freelance|consulting|still (?:have|has|live|lives|living|work|works|working|keep|own|drive)|keeping (?:my|our)|weekend place|holiday (?:home|flat|house|place|cottage)|vacation (?:home|place|house|flat)|cabin|beach house|second home|project car|hobby car|two-car|main job|day job|regular job|regular car|usual (?:one|car)|on (?:the )?weekends|on saturdays|on sundays|in the evenings|a few hours|hours a week|not quitting|main (?:home|place|house)|still my|home is still home|still home|for when i'm|daily driver|daily car|everyday car|hasn't changed|same as always|stays the same|still the same|only comes out|just for|only for|for the farm|haven't changed|kept my|toy|weekend car|fun car|summer (?:place|house|home|cottage)|country (?:house|place)|(?:most\s+)?weekends|(?:monday|tuesday|wednesday|thursday|friday)s?\s+(?:to|through|till|until|-)\s+(?:tuesday|wednesday|thursday|friday|saturday|sunday)|weekdays|during the week|split (?:my|our) time|for (?:my|the|our) (?:son|daughter|kids?|teen(?:ager)?s?|family))\b/i;
/** Where a clause ends: punctuation, a dash, or a conjunction that starts another clause. */
const CLAUSE_BREAK = /[,;:()!?]|\.(?=\s)|\s[-—–]\s|[—–]|\b(?:but|so|because|although|though|whereas)\b/gi;

const RELATIONS =
  'brother|sister|mom|mother|mum|dad|father|son|daughter|wife|husband|partner|boyfriend|girlfriend|friend|boss|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|niece|nephew|roommate|neighbour|neighbor|colleague|coworker|kid|kids|child|children|parents|fiance|fiancee|sibling';
/** Capitalised words that open sentences without naming anyone. */
const NOT_NAMES = new Set(
  (
    "i me my we us our you your he she it they his her their she's he's it's they're we're i'm you're " +
    'yesterday today tonight so well now and but also recently ' +
    'finally honestly actually oh wow great yeah yes no ok okay just last this that next since after good news guess ' +
    'anyway btw fun hey hi hello then still sadly luckily happily plus update big anyhow as of in on at for from the ' +
    'a an officially guess what turns out exciting alright right sure thanks thank congrats home work job these ' +
    'those there here lately nowadays currently since when after before from with ever most some every all both ' +
    'each one two little how why where who which mostly besides starting beginning got bought moved started joined'
  ).split(' '),
);
/** Words that may open a statement whose subject is left implicit (the speaker). */
const SELF_FILLER = new Set(
  (
    'just finally recently so well now and then oh yay wow guess what big news update officially today yesterday ' +
    'last week month year this weekend also still already got moved move into to over back a an the new flat ' +
    'apartment house place started joined bought traded in my old car for as of monday tuesday wednesday thursday friday saturday sunday ' +
    'signed finished found rented renting picked up took accepted landed made switched changed quit left upgraded leased purchased having being was sold gone died rid of'
  ).split(' '),
);
/** Someone else named before a fact that is otherwise the speaker's ("my brother's car: …", "he said home is …"). */
const OTHERS_BEFORE = /\b(?:he|she|they|his|her|their)\b|\b(?:my|our)\s+(?:[\w-]+\s+)?[\w-]+'s\b/i;

/** Words that make the nearest subject the speaker, or someone the rule cannot name. */
const SELF_SUBJECT = new Set("i i'm i've i'd i'll im ive we we're we've we'd me my our us myself".split(' '));
const OTHER_SUBJECT = new Set("he she they you he's she's they're you're it's someone everyone people who".split(' '));
const RELATION_WORD = new RegExp(`^(?:${RELATIONS})$`, 'i');
const CALENDAR = new Set(
  'january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday'.split(' '),
);

/**
 * The subject the words before a statement's verb name: 'self', a relation, a name, or null (unknown). The word
 * nearest the verb decides, within the sentence: "Since March I've been working at …" is the speaker's,
 * "my brother broke up with their ex and is seeing …" the brother's, "Ana told me she works at …" unknown.
 */
function subjectOf(prefix: string): string | null {
  // Statements are cut before capitals only: a lower-case sentence after a full stop starts here too. "As someone
  // who works at …" is the speaker.
  const part = (prefix.split(/[.!?]+\s+/).pop() ?? '').replace(/\bas\s+(?:someone|somebody|a\s+person)(?:\s+who)?\b/gi, 'I');
  const tokens = [...part.matchAll(/[\p{L}\p{N}'’]+/gu)].map((m) => m[0].replace(/’/g, "'"));
  for (let i = tokens.length - 1; i >= 0; i--) {
    const word = tokens[i]!;
    const lower = word.toLowerCase();
    const bare = lower.replace(/'s$/, '');
    if (RELATION_WORD.test(bare)) {
      // "my brother", "our older sister's": a relation owned by someone; else a word like "partner" in passing.
      const before = tokens.slice(Math.max(0, i - 2), i).map((w) => w.toLowerCase());
      if (before.some((w) => /^(?:my|our|his|her|their)$/.test(w))) return bare;
    }
    if (SELF_SUBJECT.has(lower)) return 'self';
    if (OTHER_SUBJECT.has(lower)) return null;
    // A capitalised word is a name unless it is a known opener, a month or day, or a sentence-opening -ing form
    // ("Having moved to …").
    const name = /^[\p{Lu}][\p{Ll}]+(?:'s)?$/u.test(word) && !NOT_NAMES.has(bare) && !CALENDAR.has(bare) && !(i === 0 && /ing$/.test(bare));
    if (name && (i > 0 || !SELF_FILLER.has(bare))) return bare;
  }
  // Nothing but filler before the verb ("Started at Globex last week", "Just moved into a flat in Lisbon"), or a
  // clause opening on an adverb or a verb with no subject ("Just signed the lease on a flat in …", "Packed up and
  // moved to …"): the speaker. Any other word ("The office moved to Denver") leaves the subject unknown.
  const words = part.toLowerCase().split(/[^\p{L}']+/u).filter((w) => w !== '');
  if (words.every((w) => SELF_FILLER.has(w))) return 'self';
  const first = words[0] ?? '';
  return ELIDED_OPENERS.has(first) || /^[a-z]{3,}(?:ed|ing)$/.test(first) ? 'self' : null;
}

/** Words that open a statement whose subject is left out ("Just signed …", "Finally got …"). */
const ELIDED_OPENERS = new Set(
  'just finally so recently officially also still currently literally got been honestly tbh anyway btw ok okay yeah well oh ugh lol haha hmm quick update fyi context'.split(' '),
);

/**
 * The value starting at `text[from]`: up to four words, stopped by a stop word or punctuation; a name's (`named`)
 * also by a word that is not capitalised ("my bf Jonah thinks …" → "Jonah").
 */
function valueAt(text: string, from: number, named = false): string | null {
  const words = text.slice(from).split(/\s+/);
  const out: string[] = [];
  for (const raw of words) {
    const w = raw.replace(/^["'“‘(]+/, '');
    let clean = w.replace(/[.,;:!?)"'”’]+$/, '');
    // A possessive ends the value: "Priya's birthday" names Priya.
    const possessive = /['’]s$/.test(clean);
    if (possessive) clean = clean.slice(0, -2);
    const lower = clean.toLowerCase();
    if (out.length === 0 && ARTICLES.has(lower)) continue;
    if (clean === '' || VALUE_STOP.has(lower) || (out.length > 0 && CALENDAR.has(lower))) break;
    if (!/^[\p{L}\p{N}][\p{L}\p{N}&'.-]*$/u.test(clean)) break;
    // A name's words are capitalised ("Globex Labs"); a value that starts as one ends at the first word that is
    // not ("hired by Globex over the summer").
    if ((named || (out.length > 0 && /^[\p{Lu}]/u.test(out[0]!))) && out.length > 0 && !/^[\p{Lu}\p{N}]/u.test(clean)) break;
    out.push(clean);
    if (clean !== w || possessive || out.length === 4) break; // punctuation after the word ends the value
  }
  return out.length === 0 ? null : out.join(' ');
}

/** A car's value at `text[from]`: its make, then the words of its model (capitalised or numbers: "Model 3", "CR-V"). */
function carValueAt(text: string, from: number): string | null {
  const make = new RegExp(`^${MAKE}`, 'i').exec(text.slice(from));
  if (make === null) return valueAt(text, from);
  const out = [make[0]];
  for (const raw of text.slice(from + make[0].length).split(/\s+/).slice(1, 4)) {
    const clean = raw.replace(/[.,;:!?)"'”’]+$/, '').replace(/['’]s$/, '');
    if (!/^[\p{Lu}\p{N}][\p{L}\p{N}-]*$/u.test(clean)) break;
    out.push(clean);
    if (clean !== raw) break;
  }
  return out.join(' ');
}

/** The clause of `s` around [start, end): its text, and whether it is a question (it ends with `?`). */
function clauseAround(s: string, start: number, end: number): { readonly text: string; readonly to: number; readonly question: boolean } {
  let from = 0;
  let to = s.length;
  for (const b of s.matchAll(CLAUSE_BREAK)) {
    if (b.index + b[0].length <= start) from = b.index + b[0].length;
    else if (b.index >= end) {
      to = b.index;
      break;
    }
  }
  const question = to < s.length ? s[to] === '?' : s.trimEnd().endsWith('?');
  return { text: s.slice(from, to), to, question };
}

/** A value written as a name, without the sentence's opening words ("So Priya" → "Priya"). */
function nameValue(v: string): string | null {
  const words = v.split(/\s+/);
  while (words.length > 0 && NOT_NAMES.has(words[0]!.toLowerCase())) words.shift();
  if (words.length === 0 || CALENDAR.has(words[0]!.toLowerCase())) return null;
  return words.join(' ');
}

/**
 * The longest sentence read as a fact: a plain statement of one is far shorter, and a longer run of text (a pasted
 * document, text with no sentence breaks) is not read, so reading stays bounded in time whatever a turn holds.
 */
export const MAX_STATEMENT_CHARS = 600;

const EVERY_PATTERN = new PatternDispatch(PATTERNS);
/** The patterns of each kind of fact, in their order (a favourite's under `'favourite'`). */
const PATTERNS_OF = new Map<SlotPattern['slot'], PatternDispatch>(
  [...new Set(PATTERNS.map((p) => p.slot))].map((slot) => [slot, new PatternDispatch(PATTERNS.filter((p) => p.slot === slot))]),
);

/**
 * Reads one sentence as a fact, or null. `sentence` is one sentence of a turn, without its speaker.
 */
export function factOf(sentence: string): StatementFact | null {
  return readWith(sentence, EVERY_PATTERN);
}

/** The first fact `patterns` read in the sentence (see `factOf`). */
function readWith(sentence: string, patterns: PatternDispatch): StatementFact | null {
  const s = sentence.trim();
  if (s === '' || s.length > MAX_STATEMENT_CHARS) return null;
  for (const p of patterns.candidates(s)) {
    const m = p.re.exec(s);
    if (m === null) continue;
    const backward = m.groups?.['v'] !== undefined;
    let value: string | null;
    let at: number;
    if (backward) {
      at = m.index + m[0].indexOf(m.groups!['v']!);
      const named = nameValue(m.groups!['v']!);
      value = named;
      if (named !== null) at += m.groups!['v']!.length - named.length;
    } else {
      at = m.index + m[0].length;
      value = p.slot === 'car' ? carValueAt(s, at) : valueAt(s, at, p.named);
    }
    if (value === null) continue;
    if (p.named && !/^[\p{Lu}\p{N}]/u.test(value)) continue;
    const start = Math.min(m.index, at);
    const end = Math.max(m.index + m[0].length, at + value.length);
    const clause = clauseAround(s, start, end);
    if (PAST.test(clause.text) || (p.cue !== undefined && !p.cue.test(p.cueIn === 'clause' ? clause.text : s))) continue;
    if (p.mode === 'verb') {
      // A question, a hedge before or at the fact ("if I get the job at Initech"), or a negation after it.
      const upTo = clause.text.slice(0, clause.text.length - (clause.to - end));
      // "I was offered a job at Initech and accepted it": an offer taken is no hedge.
      const hedged = HEDGE.test(/\baccept(?:ed)?\b/i.test(s) ? upTo.replace(/\boffered\b/gi, '') : upTo);
      if (clause.question || hedged || HEDGE_AFTER.test(clause.text.slice(upTo.length)) || LOWER_CASE_HEDGE.test(clause.text) || SOMEDAY.test(clause.text)) continue;
      if (SIMPLE_PAST.test(m[0]) && !PERFECT.test(clause.text)) continue;
    } else if (NOT_CURRENT_NOUN.test(s.slice(0, at)) || (backward && NOT_CURRENT_NOUN.test(s.slice(0, m.index + m[0].length)))) continue;
    // A noun owned by someone else ("their fiancé Kaia", "your Subaru"): not the speaker's, and not someone named.
    if (p.mode === 'noun' && !backward && /\b(?:his|her|their|your)\s+(?:(?:new|current)\s+)?$/i.test(s.slice(0, m.index))) return null;
    // Whose fact: the words before it, with the possessive or pronoun that opens the match ("the back seat of my
    // Kia", "New address: I'm in Lyon now").
    const owner = backward ? (m.groups!['p'] ?? '') : (/^(?:my|our|i'm|i am|im|we're|we are|i've|we've)\b/i.exec(m[0])?.[0] ?? '');
    const subject = subjectOf(`${s.slice(0, start)} ${owner}`) ?? (p.own === true && !OTHERS_BEFORE.test(s.slice(0, start)) ? 'self' : null);
    if (subject === null) return null;
    const slot: FactSlot = p.slot === 'favourite' ? `favourite ${(m[1] ?? '').toLowerCase()}` : p.slot;
    return { slot, subject, value, addition: ADDITION.test(s), ...(p.implied === true ? { implied: true as const } : {}) };
  }
  return null;
}

// A question asks in any tense and about one value or all of them ("Which companies has Gael worked for?").
const QUESTION_SLOTS: readonly (readonly [FactSlot, RegExp])[] = [
  ['employer', /\b(?:work|works|worked|working|jobs?|employers?|company|companies|employed|hired)\b/i],
  ['home', /\b(?:live|lives|lived|living|homes?|city|cities|towns?|based|reside|resides|resided|moved)\b/i],
  ['car', /\b(?:cars?|drive|drives|drove|driving|vehicles?)\b/i],
  ['partner', /\b(?:partner|dating|dated|girlfriend|boyfriend|wife|husband|married|engaged|seeing|fianc[eé]e?)\b/i],
  ['school', /\b(?:study|studies|studied|studying|schools?|university|universities|colleges?|enrolled|attended)\b/i],
];

/**
 * The kind of fact a question asks about ("Where does Bob work now?" → employer), or null. Only questions are read
 * (a `?` or a question word first), so a statement is never taken for one.
 */
export function questionSlot(query: string): FactSlot | null {
  const q = query.trim();
  if (!q.endsWith('?') && !/^(?:who|what|where|which|when|how|does|do|is|did)\b/i.test(q)) return null;
  const fav = /\bfavou?rite\s+([a-z]+)/i.exec(q);
  if (fav !== null) return `favourite ${fav[1]!.toLowerCase()}`;
  for (const [slot, re] of QUESTION_SLOTS) if (re.test(q)) return slot;
  return null;
}

/** Whether a sentence states a fact of `slot` (for anyone, as a statement), read with that kind's patterns only. */
export function statesSlot(sentence: string, slot: FactSlot): boolean {
  // Only that kind's patterns are tried (recall asks this of every sentence it scores): a sentence another kind's
  // pattern reads first still states this fact if one of its own patterns reads it.
  const favourite = slot.startsWith('favourite ');
  const patterns = PATTERNS_OF.get(favourite ? 'favourite' : (slot as SlotPattern['slot']));
  const f = patterns === undefined ? null : readWith(sentence, patterns);
  return f !== null && (f.slot === slot || (favourite && f.slot.startsWith(slot)));
}

/** Whether two values name the same thing (case, articles, a longer form: "Acme" and "Acme Corp"). */
export function sameValue(a: string, b: string): boolean {
  const words = (v: string): string[] => v.toLowerCase().split(/[\s.-]+/).filter((w) => w !== '' && !ARTICLES.has(w));
  const x = words(a);
  const y = words(b);
  if (x.length === 0 || y.length === 0) return false;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.every((w) => long.includes(w));
}

/**
 * Fact updates without an LLM: the embedded model's rule for JOINT-COMPACT's update path. A statement of a new chunk
 * that gives a known kind of fact (employer, home city, car, partner, school, a favourite) about the same subject
 * as a statement of a prior chunk, with another value, retires that prior statement — only that statement: the rest
 * of its chunk is kept. Every decision is explainable: which two statements matched, on which fact, for whom, and
 * with which old and new values.
 *
 * A statement is read as a fact only when it is plainly asserted: questions, hedges and plans ("I might move to
 * Denver", "thinking about a job at Initech"), negations and statements about the past ("I used to live in Rome")
 * are not facts. A statement that adds rather than replaces ("my daughter also started violin", "I also work at a
 * café on weekends") never retires anything, and a fact about another person (a relative, a named person) only ever
 * meets facts about that same person.
 * @internal
 */

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
}

/** A prior statement an update retires, with why. */
export interface RetiredStatement {
  /** The related chunk holding the retired statement. */
  readonly id: string;
  /** The retired statement, as written (with its speaker). */
  readonly statement: string;
  /** The new statement that replaced it (with its speaker). */
  readonly by: string;
  readonly slot: FactSlot;
  /** Speaker and subject, e.g. `Bob (self)` or `Bob (brother)`. */
  readonly subject: string;
  readonly oldValue: string;
  readonly newValue: string;
  /** One line saying what matched and why it was retired. */
  readonly reason: string;
}

interface SlotPattern {
  readonly slot: FactSlot | 'favourite';
  /** Matches up to where the value starts (case-insensitive). */
  readonly re: RegExp;
  /** The value must look like a name (an upper-case first letter or a digit). */
  readonly named: boolean;
}

const P = (slot: SlotPattern['slot'], re: RegExp, named: boolean): SlotPattern => ({ slot, re, named });

// Each pattern ends where the value begins. The value is then read by valueAt.
const PATTERNS: readonly SlotPattern[] = [
  P('employer', /\b(?:work|works|working|worked)\s+(?:now\s+)?(?:at|for)\s+/i, false),
  P('employer', /\b(?:job|position|role|internship)\s+(?:now\s+)?(?:is\s+)?(?:at|with)\s+/i, false),
  P('employer', /\b(?:started|start|starting|began|begun)\s+(?:a\s+|my\s+)?(?:new\s+)?(?:job\s+|position\s+|role\s+|work\s+|internship\s+)?(?:at|with)\s+/i, true),
  P('employer', /\b(?:joined|join)\s+(?!the\s+(?:gym|club|team|choir|band))/i, true),
  P('employer', /\b(?:employed|hired)\s+(?:at|by)\s+/i, false),
  P('employer', /\b(?:employer|company)\s+is\s+(?:now\s+)?/i, true),
  P('employer', /\b(?:got|accepted|took)\s+(?:a|an|the)\s+(?:new\s+)?(?:job|position|offer|role)\s+(?:at|with|from)\s+/i, false),
  P('employer', /\b(?:switched|changed)\s+(?:jobs\s+)?to\s+/i, true),
  // "I'm a data analyst at Globex": the match starts after "I'm", which stays in the words that name the subject.
  P('employer', /(?<=\b(?:i'm|i am)\s+)(?:now\s+)?(?:a|an)\s+(?:[\w-]+\s+){1,3}?(?:at|for)\s+/i, true),
  P('home', /\b(?:live|lives|lived|living|reside|resides|residing)\s+(?:now\s+)?in\s+/i, true),
  P('home', /\b(?:moved|relocated)\s+(?:over\s+|back\s+)?(?:to|into)\s+/i, true),
  P('home', /\bhome\s+(?:town\s+)?is\s+(?:now\s+)?(?:in\s+)?/i, true),
  P('home', /\b(?:based|settled)\s+(?:now\s+)?in\s+/i, true),
  P('home', /\b(?:apartment|flat|house|place)\s+(?:is\s+)?in\s+/i, true),
  P('car', /\b(?:drive|drives|driving)\s+(?:a|an|the|my)\s+/i, false),
  P('car', /\bcar\s+is\s+(?:now\s+)?(?:a|an)\s+/i, false),
  P('car', /\b(?:bought|got|purchased|leased)\s+(?:myself\s+)?(?:a|an)\s+(?:new\s+|used\s+)?(?=(?:[\w-]+\s+)?(?:car|suv|truck|sedan|hatchback|van|pickup)\b)/i, false),
  P('car', /\b(?:[Bb]ought|[Gg]ot|[Pp]urchased|[Ll]eased)\s+(?:myself\s+)?(?:a|an)\s+(?:new\s+|used\s+)?(?=[A-Z])/, true),
  P('partner', /\b(?:dating|seeing|going\s+out\s+with)\s+/i, true),
  P('partner', /\b(?:married|engaged)\s+to\s+/i, true),
  P('partner', /\b(?:girlfriend|boyfriend|partner|wife|husband|fianc[eé]e?)(?:'s\s+name)?\s+(?:is\s+)?(?:now\s+)?(?:called\s+|named\s+)?/i, true),
  P('school', /\b(?:study|studies|studying|enrolled|student)\s+(?:now\s+)?(?:at|in)\s+/i, true),
  P('school', /\b(?:transferred)\s+to\s+/i, true),
  P('favourite', /\bfavou?rite\s+([a-z]+(?:\s+[a-z]+)?)\s+is\s+(?:now\s+)?/i, false),
];

// Words that end a value ("Globex in Berlin", "Seattle now", "Acme since March").
const VALUE_STOP = new Set(
  (
    'now these this that last since for and but with because as on in at from to after before so which who where when ' +
    'recently today yesterday currently anymore again already finally instead full part there here then since, ' +
    'starting next soon is was are were has have had i my we our you your it its they their he she his her'
  ).split(/\s+/),
);
const ARTICLES = new Set(['a', 'an', 'the', 'my', 'our', 'new', 'used']);

/** Words that make a sentence a hedge, a plan, a negation or a statement about the past: not a current fact. */
const NOT_A_FACT =
  /\b(?:might|maybe|could|would|should|want|wants|wanted|wish|hope|hoping|plan|plans|planning|thinking|considering|consider|if|dream|dreaming|someday|perhaps|probably|not|never|no longer|don't|doesn't|didn't|won't|isn't|wasn't|aren't|can't|cannot|used to|previously|formerly|back then|back when|in the past|going to|gonna|applied|applying|interview|interviewing|visit|visiting|visited|trip|vacation|holiday)\b/i;
/** Modal verbs that are also names or months ("May", "Will"): a hedge only in lower case. */
const LOWER_CASE_HEDGE = /\b(?:may|will|'ll)\b/;
const ADDITION = /\b(?:also|too|as well|another|second|additionally|in addition|besides|both)\b/i;

const RELATIONS =
  'brother|sister|mom|mother|mum|dad|father|son|daughter|wife|husband|partner|boyfriend|girlfriend|friend|boss|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|niece|nephew|roommate|neighbour|neighbor|colleague|coworker|kid|kids|child|children|parents|fiance|fiancee|sibling';
const RELATION = new RegExp(`\\b(?:my|our|his|her|their)\\s+(?:(?:older|younger|little|big|best|new|old)\\s+)?(${RELATIONS})\\b`, 'i');
/** Capitalised words that open sentences without naming anyone. */
const NOT_NAMES = new Set(
  (
    'i me my we us our you your he she it they his her their yesterday today tonight so well now and but also recently ' +
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
    'apartment house place started joined bought traded in my old car for as of monday tuesday wednesday thursday friday saturday sunday'
  ).split(' '),
);
const THIRD_PERSON = /\b(?:he|she|they|you|it|his|her|their|your|someone|everyone|people)\b/i;
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|im|me|my|we|we're|we've|our|us)\b/i;

/** The subject a statement's words before its verb name: 'self', a relation, a name, or null (unknown). */
function subjectOf(prefix: string): string | null {
  const rel = RELATION.exec(prefix);
  if (rel !== null) return rel[1]!.toLowerCase();
  for (const m of prefix.matchAll(/\b[A-Z][a-z]+\b/g)) if (!NOT_NAMES.has(m[0].toLowerCase())) return m[0].toLowerCase();
  if (FIRST_PERSON.test(prefix)) return 'self';
  if (THIRD_PERSON.test(prefix)) return null;
  // Nothing but filler before the verb ("Started at Globex last week", "Just moved into a flat in Lisbon"): the
  // speaker. Any other word ("The office moved to Denver") leaves the subject unknown.
  return prefix
    .toLowerCase()
    .split(/[^\p{L}']+/u)
    .every((w) => w === '' || SELF_FILLER.has(w))
    ? 'self'
    : null;
}

/** The value starting at `text[from]`: up to four words, stopped by a stop word or punctuation. */
function valueAt(text: string, from: number): string | null {
  const words = text.slice(from).split(/\s+/);
  const out: string[] = [];
  for (const raw of words) {
    const w = raw.replace(/^["'“‘(]+/, '');
    const clean = w.replace(/[.,;:!?)"'”’]+$/, '');
    const lower = clean.toLowerCase();
    if (out.length === 0 && ARTICLES.has(lower)) continue;
    if (clean === '' || VALUE_STOP.has(lower)) break;
    if (!/^[\p{L}\p{N}][\p{L}\p{N}&'.-]*$/u.test(clean)) break;
    out.push(clean);
    if (clean !== w || out.length === 4) break; // punctuation after the word ends the value
  }
  return out.length === 0 ? null : out.join(' ');
}

/**
 * Reads one sentence as a fact, or null. `sentence` is one sentence of a turn, without its speaker.
 */
export function factOf(sentence: string): StatementFact | null {
  const s = sentence.trim();
  if (s === '' || s.endsWith('?') || NOT_A_FACT.test(s) || LOWER_CASE_HEDGE.test(s)) return null;
  for (const p of PATTERNS) {
    const m = p.re.exec(s);
    if (m === null) continue;
    const from = m.index + m[0].length;
    const value = valueAt(s, from);
    if (value === null) continue;
    if (p.named && !/^[\p{Lu}\p{N}]/u.test(value)) continue;
    const subject = subjectOf(s.slice(0, m.index));
    if (subject === null) return null;
    const slot: FactSlot = p.slot === 'favourite' ? `favourite ${(m[1] ?? '').toLowerCase()}` : p.slot;
    return { slot, subject, value, addition: ADDITION.test(s) };
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

/** Whether a sentence states a fact of `slot` (for anyone, as a statement: `factOf`). */
export function statesSlot(sentence: string, slot: FactSlot): boolean {
  const f = factOf(sentence);
  return f !== null && (f.slot === slot || (slot.startsWith('favourite ') && f.slot.startsWith(slot)));
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

/** One statement of a chunk's text: its line, its speaker and where it sits in the line. */
export interface Statement {
  readonly line: number;
  readonly speaker: string;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

const TURN_LINE = /^([^\s:][^:\n]{0,63}): /u;
const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'“‘(])/gu;

/** The statements (sentences) of a chunk's text written one `role: text` line per turn; other lines are skipped. */
export function statementsOf(text: string): Statement[] {
  const out: Statement[] = [];
  text.split('\n').forEach((lineText, line) => {
    const m = TURN_LINE.exec(lineText);
    if (m === null) return;
    const speaker = m[1]!;
    let from = m[0].length;
    const push = (to: number): void => {
      const part = lineText.slice(from, to);
      if (part.trim() !== '') out.push({ line, speaker, text: part.trim(), start: from, end: to });
    };
    for (const b of lineText.slice(from).matchAll(SENTENCE_END)) {
      const at = m[0].length + b.index;
      push(at);
      from = at + b[0].length;
    }
    push(lineText.length);
  });
  return out;
}

/**
 * The statements of `related` chunks that `freshText`'s statements update: same fact, same speaker and subject,
 * another value, and a new statement that replaces rather than adds. Each prior statement is retired at most once
 * (by the first new statement that updates it).
 */
export function findUpdates(freshText: string, related: readonly { readonly id: string; readonly text: string }[]): RetiredStatement[] {
  const fresh = statementsOf(freshText).flatMap((s) => {
    const f = factOf(s.text);
    return f === null || f.addition ? [] : [{ s, f }];
  });
  if (fresh.length === 0) return [];
  const out: RetiredStatement[] = [];
  for (const r of related) {
    for (const old of statementsOf(r.text)) {
      const o = factOf(old.text);
      if (o === null) continue;
      const hit = fresh.find(({ s, f }) => s.speaker === old.speaker && f.slot === o.slot && f.subject === o.subject && !sameValue(f.value, o.value));
      if (hit === undefined) continue;
      const who = `${old.speaker} (${o.subject === 'self' ? 'self' : o.subject})`;
      out.push({
        id: r.id,
        statement: `${old.speaker}: ${old.text}`,
        by: `${hit.s.speaker}: ${hit.s.text}`,
        slot: o.slot,
        subject: who,
        oldValue: o.value,
        newValue: hit.f.value,
        reason: `${o.slot} of ${who}: "${o.value}" → "${hit.f.value}"`,
      });
    }
  }
  return out;
}

/**
 * `text` with the retired statements removed (each given by its exact text, with its speaker); a turn left with
 * no statement keeps its speaker and ` …`, so the chunk stays one line per turn. Null when nothing but such
 * emptied turns (and a date line) would be left: the chunk is then retired whole.
 */
export function withoutStatements(text: string, retired: readonly string[]): string | null {
  const gone = new Set(retired);
  const lines = text.split('\n');
  const cut = new Map<number, { start: number; end: number }[]>();
  for (const s of statementsOf(text)) {
    if (!gone.has(`${s.speaker}: ${s.text}`)) continue;
    cut.set(s.line, [...(cut.get(s.line) ?? []), { start: s.start, end: s.end }]);
  }
  let kept = 0;
  const out = lines.map((line, i) => {
    const spans = cut.get(i);
    const m = TURN_LINE.exec(line);
    if (spans === undefined) {
      if (m !== null && line.slice(m[0].length).trim() !== '' && line.slice(m[0].length).trim() !== '…') kept++;
      return line;
    }
    let body = '';
    let from = 0;
    for (const sp of spans.sort((a, b) => a.start - b.start)) {
      body += line.slice(from, sp.start);
      from = sp.end;
    }
    body += line.slice(from);
    const prefix = m === null ? '' : m[0];
    const rest = body.slice(prefix.length).replace(/\s+/g, ' ').trim();
    if (rest === '') return `${prefix}…`;
    kept++;
    return prefix + rest;
  });
  return kept === 0 ? null : out.join('\n');
}

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
  /**
   * Set when the fact is only implied by a workplace relation ("my manager at Initech thanked me"): it may be retired
   * by a later statement, but never retires one (people speak of a former workplace's people without saying so).
   */
  readonly implied?: true;
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

/**
 * How a pattern's match asserts its fact. `verb`: the clause says it ("I work at Globex", "we moved to Lisbon"), so
 * a hedge, a plan, a negation, a question or the past anywhere in that clause makes it no fact. `noun`: a noun phrase
 * takes it as given ("my wife Priya", "my Subaru Outback", "my boss at Initech"), whatever the clause does with it
 * ("I'm planning a surprise for my wife Priya") — only the past in its clause, or a word on the noun itself ("my ex",
 * "my old car", "sold my Civic"), makes it no fact.
 */
type Mode = 'verb' | 'noun';

interface SlotPattern {
  readonly slot: FactSlot | 'favourite';
  /**
   * Matches up to where the value starts (case-insensitive); or, for a value written before the words that give its
   * kind ("Globex is where I work", "Priya, my girlfriend"), holds it in the group `v` and the words naming whose
   * fact it is in the group `p`.
   */
  readonly re: RegExp;
  /** The value must look like a name (an upper-case first letter or a digit). */
  readonly named: boolean;
  readonly mode: Mode;
  /** The clause must also hold one of these words (a job, a relationship) for the match to give this fact. */
  readonly cue?: RegExp;
  /** Where the cue must be: anywhere in the sentence (default), or in the fact's own clause. */
  readonly cueIn?: 'clause';
  /** The fact is only implied (`StatementFact.implied`). */
  readonly implied?: true;
  /**
   * The words name the speaker's own fact unless they say whose ("home is Lyon now", "new gf: Lena", "new car!! a
   * Kia Niro"): an unknown subject is the speaker's.
   */
  readonly own?: true;
}

const P = (slot: SlotPattern['slot'], re: RegExp, named: boolean, mode: Mode = 'verb', cue?: RegExp, cueIn?: 'clause'): SlotPattern => ({
  slot,
  re,
  named,
  mode,
  ...(cue === undefined ? {} : { cue }),
  ...(cueIn === undefined ? {} : { cueIn }),
});

/** Makes of car: a named value after one of them is a car ("my Subaru Outback", "a Tesla Model 3"). */
const CAR_MAKES =
  'Toyota|Honda|Ford|Subaru|Tesla|Mazda|Volvo|Kia|Jeep|Volkswagen|VW|Nissan|Hyundai|BMW|Audi|Mercedes(?:-Benz)?|Chevrolet|Chevy|' +
  'Dodge|Ram|GMC|Buick|Cadillac|Lincoln|Chrysler|Lexus|Acura|Infiniti|Genesis|Mitsubishi|Suzuki|Porsche|Fiat|Alfa Romeo|' +
  'Peugeot|Renault|Citro[eë]n|Skoda|Škoda|Seat|Cupra|Opel|Vauxhall|Dacia|Mini|Jaguar|Land Rover|Range Rover|Rivian|' +
  'Polestar|Lucid|BYD|Saab|Smart|Lotus|Maserati|Ferrari|Lamborghini|Bentley|Aston Martin|Rolls-Royce|Scion|Pontiac|Saturn|Plymouth';
const MAKE = `(?:${CAR_MAKES})\\b`;
/** A value written as a name (backward patterns): capitalised words. */
const NAME = String.raw`(?<v>[\p{Lu}\p{N}][\p{L}\p{N}&'.-]*(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}&'.-]*){0,3})`;
const PARTNER_NOUN = String.raw`(?:girlfriend|boyfriend|partner|wife|husband|fianc[eé]e?|spouse|bf|gf|hubby|missus|other half|significant other)`;
const JOB_CUE = /\b(?:pay|salary|payroll|contract|colleagues|job|jobs|employer|employers|company|companies|quit|hired|career|careers|position|role|offer|boss|manager|team|work|working|office|department|firm|notice)\b/i;
const PARTNER_CUE = new RegExp(`\\b(?:${PARTNER_NOUN.slice(3, -1)}|dating|seeing|relationship|together|engaged|married|exclusive|official|broke up|breakup|divorce|dumped|split up|ex|in love)\\b`, 'i');
/** A profile-style label opening a statement or a clause ("job: Initech", "new gf = Lena", "location: Lyon"). */
const LABEL = String.raw`(?:^|(?<=[,.;:(!]\s*))\s*`;
const own = (pattern: SlotPattern): SlotPattern => ({ ...pattern, own: true });

// Each forward pattern ends where the value begins; the value is then read by valueAt (carValueAt for cars).
const PATTERNS: readonly SlotPattern[] = [
  P('employer', /\b(?:work|works|working|worked)\s+(?:now\s+)?(?:(?:nights|days|shifts|weekdays|full[- ]time|part[- ]time|remotely|remote)\s+)?(?:in\s+(?:[\w-]+\s+){1,3}?)?(?:at|for)\s+/i, false),
  P('employer', /\b(?:job|work|position|role|internship)\s+(?:now\s+)?(?:is\s+|'s\s+)?(?:now\s+)?(?:at|with)\s+/i, false),
  P('employer', /\bon\s+the\s+payroll\s+(?:at|of|for)\s+/i, true),
  own(P('employer', /\b(?:first\s+)?pay\s?(?:check|cheque|slip)\s+from\s+/i, true, 'noun')),
  P('employer', /\bsigned\s+(?:my|a|the)\s+(?:new\s+)?(?:contract|offer)\s+(?:with|at)\s+/i, true),
  P('employer', /\b(?:started|start|starting|began|begun)\s+(?:a\s+|my\s+)?(?:new\s+)?(?:job\s+|position\s+|role\s+|work\s+|internship\s+)?(?:at|with)\s+/i, true),
  P('employer', /\b(?:joined|join)\s+(?!the\s+(?:gym|club|team|choir|band))/i, true),
  P('employer', /\b(?:employed|hired|recruited|poached|headhunted|taken\s+on|brought\s+on)\s+(?:at|by)\s+/i, false),
  P('employer', /\b(?:employer|company)\s+is\s+(?:now\s+)?/i, true),
  P('employer', /\b(?:got|landed|accepted|took)\s+(?:a|an|the)\s+(?:new\s+)?(?:job|position|role)\s+(?:at|with)\s+/i, false),
  P('employer', /\b(?:accepted|took)\s+(?:a|an|the)\s+(?:new\s+)?(?:job\s+)?offer\s+(?:at|with|from)\s+/i, false),
  P('employer', /\b(?:switched|changed)\s+(?:jobs\s+)?to\s+(?!(?:a|an|the)\s)/i, true),
  // A named workplace that took the speaker on ("Initech hired me", "Globex took me on as a designer").
  P('employer', new RegExp(String.raw`${NAME}\s+(?:(?:has|just|finally)\s+)?(?:hired|took\s+(?<p>me)\s+on|brought\s+me\s+on|signed\s+me|picked\s+me\s+up|snapped\s+me\s+up)\b`, 'u'), true),
  P('employer', /\b(?:(?:i've|i have|ive|we've)\s+)?been\s+(?:working\s+)?at\s+/i, true, 'verb', JOB_CUE),
  P('employer', /\b(?:been|i'm|i am|im)\s+(?:now\s+)?with\s+/i, true, 'verb', JOB_CUE),
  own(P('employer', /\b(?:first|second|third|fourth|fifth|\d+(?:st|nd|rd|th))\s+(?:day|week|month|shift)\s+(?:at|with)\s+/i, true, 'noun')),
  own(P('employer', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+(?:now|these\s+days|since)\b`, 'u'), true, 'verb', JOB_CUE)),
  P('employer', /\blanded\s+(?:a\s+(?:new\s+)?(?:job|role|position)\s+)?(?:at|with)\s+/i, true),
  P('employer', /\b(?:i|we)\s+(?:do|handle|manage|run|lead|oversee|train)\s+(?:the\s+)?(?:payroll|accounts|accounting|books|bookkeeping|hiring|recruiting|recruitment|marketing|sales|support|customer\s+service|it|logistics|procurement|admin|operations|ops|hr|scheduling|security|deliveries|inventory|reception|training|apprentices|interns)\s+(?:at|for)\s+/i, true),
  P('employer', /\b(?:i|we)\s+(?:handle|manage|run|lead|oversee)\s+(?!(?:my|the|some|a|an|our|errands)\b)(?:[\w-]+\s+){1,3}?(?:at|for)\s+/i, true),
  P('employer', /\b(?:role|position|job)\s+as\s+(?:a|an|the)?\s*(?:[\w-]+\s+){1,4}?(?:at|with|for)\s+/i, true, 'noun'),
  P('employer', /\b(?:as|being)\s+(?:a|an)\s+(?:[\w-]+\s+){1,3}?(?:at|with|for|@)\s+/i, true),
  P('employer', /\b(?:department|team|division|office|branch)\s+of\s+/i, true),
  own(P('employer', /\b(?:my|our)\s+(?:company|employer|firm|workplace)(?:,\s*|\s+)(?=[\p{Lu}])/iu, true, 'noun')),
  own(P('employer', new RegExp(String.raw`${LABEL}(?:new\s+)?(?:work|job|employer|company)(?:\s+(?:update|alert|news))?\s*[:=]\s*(?:now\s+)?`, 'i'), true, 'noun')),
  // "I'm a data analyst at Globex", "I'm an accountant with Initech": the match starts after "I'm", which stays in
  // the words that name the subject.
  P('employer', /(?<=\b(?:i'm|i am|im)(?:,?\s+(?:uh|um|er|like),?)?\s+)(?:now\s+)?(?:officially\s+)?(?:a|an)\s+(?:[\w-]+\s+){1,3}?(?:at|for|with|@)\s+/i, true),
  // A team, a shift or a boss at a named place: where one works ("I'm on the billing team at Initech").
  { ...P('employer', /\b(?:my|our)\s+(?:[\w-]+\s+){0,2}?(?:team|department|crew|shift|shifts|desk|division|branch|office|boss|manager|colleagues|coworkers|co-workers)\s+(?:over\s+)?(?:at|with)\s+/i, true, 'noun'), implied: true },
  P('employer', /\b(?:on|in|run|lead|manage|joined)\s+(?:the|a|an|our)\s+(?:[\w-]+\s+){0,3}?(?:team|department|crew|shift|desk|division|branch|office)\s+(?:over\s+)?(?:at|with)\s+/i, true),
  // "I'm at Globex now" is a job only where the sentence speaks of one ("I switched jobs, I'm at Globex now").
  P('employer', /\b(?:i'm|i am|im)\s+(?:now\s+)?(?:at|with)\s+/i, true, 'verb', JOB_CUE),
  P('employer', new RegExp(String.raw`${NAME},?\s+(?:which|that)(?:\s+is|'s)\s+where\s+(?<p>[Ii])\s+work\b`, 'u'), true),
  P('employer', new RegExp(String.raw`${NAME}\s+is\s+where\s+(?<p>[Ii])\s+(?:work|am)\b`, 'u'), true, 'verb', JOB_CUE),
  P('employer', new RegExp(String.raw`\b(?:a|an)\s+${NAME}\s+(?:employee|staffer|hire)\b`, 'u'), true),
  // "I quit and moved over to Initech": a move in a clause about leaving a job is a new employer.
  P('employer', /\b(?:moved|switched|jumped|jump|move|went)\s+(?:over\s+|across\s+)?to\s+(?!(?:a|an|the)\s)/i, true, 'verb', /\b(?:quit|quitting|job|jobs|employer|company|notice|hired|career)\b|\bjump\b/i, 'clause'),
  // "moved over to" a named place in a sentence about leaving a job: the new employer.
  P('employer', /\b(?:moved|switched)\s+over\s+to\s+(?!(?:a|an|the)\s)/i, true, 'verb', /\b(?:quit|quitting|job|jobs|employer|company|notice|hired|career|firm|boss)\b/i),
  P('car', new RegExp(String.raw`\b(?:i'm|i am|im|we're)\s+(?:now\s+)?(?:driving\s+)?in\s+(?:a|an)\s+(?:(?:new|used)\s+)?(?=${MAKE})`, 'i'), true),
  P('home', /\b(?:live|lives|lived|living|reside|resides|residing)\s+(?:now\s+)?in\s+/i, true),
  P('home', /\b(?:moved|relocated)\s+(?:over\s+|back\s+)?(?:to|into)\s+/i, true),
  P('home', /\b(?:since|after)\s+(?:(?:the|my|our)\s+)?(?:moving|move|relocating|relocation)\s+(?:over\s+|back\s+)?to\s+/i, true),
  P('home', /\b(?:my|our)\s+(?:big\s+)?move\s+to\s+/i, true, 'noun'),
  own(P('home', /\bthe\s+(?:big\s+)?move\s+to\s+/i, true, 'noun')),
  own(P('home', /\bhome\s+(?:town\s+)?(?:for\s+(?:me|us)\s+)?is\s+(?:now\s+)?(?:in\s+)?/i, true)),
  P('home', /\b(?:based|settled|settling|unpacking|unpacked)\s+(?:(?:now|down|the\s+last\s+box(?:es)?|everything)\s+)?(?:in|into)\s+/i, true),
  P('home', /\b(?:moving|moved)\s+house\s+to\s+|\b(?:posted|stationed)\s+to\s+/i, true),
  P('home', /\b(?:relocated|transferred|moved|posted)\s+(?<p>me|us)\s+to\s+/i, true),
  P('home', /\bbought\s+(?:one|a\s+(?:place|house|flat|home|condo))\s+in\s+/i, true),
  P('home', new RegExp(String.raw`\b(?<p>[Ii]|[Ww]e)\s+call\s+${NAME}\s+home\b`, 'u'), true),
  P('home', new RegExp(String.raw`${NAME}(?:'s|\s+is)\s+where\s+(?<p>[Ii]|we)\s+live\b`, 'u'), true),
  P('home', new RegExp(String.raw`\b(?<p>[Ii]'m|[Ww]e're|[Ii] am|[Ww]e are)\s+(?:now\s+|officially\s+)*(?:a\s+|an\s+)?${NAME}\s+(?:local|locals|resident|residents)\b`, 'u'), true),
  own(P('home', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+now\b`, 'u'), true, 'verb', /\b(?:moved|move|moving|city|town|address|live|living|home|relocated)\b/i)),
  P('home', /\b(?:i've|i have|ive|we've|we have)\s+been\s+(?:living\s+)?in\s+(?!(?:a|an|the)\s)(?![^,;.!?]*\b(?:this week|today|tonight|for (?:a|the|two|three|few|couple)|on business|for work|until|till|visiting)\b)/i, true),
  own(P('home', /\baddress\s+is\s+(?:now\s+)?(?:in\s+)?/i, true, 'noun')),
  own(P('home', new RegExp(String.raw`${NAME}\s+is\s+(?:now\s+)?(?:(?:my|our)\s+)?home\b`, 'u'), true)),
  P('home', /\bended\s+up\s+(?:moving\s+to|living\s+in|settling\s+in|in)\s+/i, true),
  P('home', /\b(?:apartment|flat|house|place|condo|studio|bedroom|bed|townhouse|loft|cottage|bungalow|duplex|lease)\s+(?:is\s+)?in\s+/i, true),
  P('home', /\b(?:i'm|i am|im|we're|we are)\s+(?:now\s+|currently\s+)?in\s+(?!(?:a|an)\s)(?![^,;.!?]*\b(?:this week|today|tonight|right now|for (?:a|the|two|three|few|couple)|on business|for work|until|till)\b)/i, true),
  own(P('home', /\bhere\s+in\s+(?![^,;.!?]*\b(?:this week|today|tonight|for (?:a|the|two|three|few|couple)|on business|for work|until|till|visiting)\b)/i, true)),
  P('home', /\bwhere\s+(?:i|we)\s+live\s*,?\s+(?:in\s+)?/i, true),
  P('home', new RegExp(String.raw`\bin\s+${NAME},?\s+where\s+(?<p>[Ii]|we)\s+live\b`, 'u'), true),
  P('home', /\b(?:resident|residents)\s+of\s+/i, true, 'noun'),
  P('home', /\b(?:my|our)\s+(?:landlord|landlady|flatmates?|housemates?)\s+in\s+/i, true, 'noun'),
  own(P('home', new RegExp(String.raw`${LABEL}(?:location|home|city|hometown)\s*[:=]\s*(?:now\s+)?`, 'i'), true, 'noun')),
  P('home', new RegExp(String.raw`\b(?:a|an)\s+${NAME}\s+(?:local|resident)\b`, 'u'), true),
  P('home', new RegExp(String.raw`${NAME},?\s+(?:which|that)(?:\s+is|'s)\s+where\s+(?<p>[Ii]|we)\s+live\b`, 'u'), true),
  P('car', /\b(?:drive|drives|driving)\s+(?:a|an|the|my)\s+/i, false),
  P('car', /\b(?:car|driver|ride|vehicle)(?:\s+(?:these\s+days|now|at\s+the\s+moment))?(?:'s|\s+is)\s+(?:now\s+)?(?:a|an)\s+/i, false),
  P('car', /\b(?:bought|got|purchased|leased)\s+(?:myself\s+)?(?:a|an)\s+(?:new\s+|used\s+)?(?=(?:[\w-]+\s+)?(?:car|suv|truck|sedan|hatchback|van|pickup)\b)/i, false),
  P('car', /\b(?:[Bb]ought|[Gg]ot|[Pp]urchased|[Ll]eased)\s+(?:myself\s+)?(?:a|an)\s+(?:new\s+|used\s+)?(?=[A-Z])/, true),
  // A make of car owned, bought or driven ("I own a Kia Niro", "picked up my new Tesla Model 3", "traded it in for
  // a Mazda 3"), or simply the speaker's ("my Subaru Outback needs new tyres").
  P('car', new RegExp(String.raw`\b(?:own|owns|have|has|got|bought|purchased|leased|financed|picked\s+up|upgraded\s+to|switched\s+to|ended\s+up\s+(?:with|buying|getting|leasing)|(?:switched|swapped|changed)\s+(?:[\w']+\s+){0,3}?(?:over\s+)?to|(?:fill(?:ed)?\s+up|park(?:ed|ing)?|wash(?:ed|ing)?|servic(?:e|ed|ing)|insur(?:e|ed|ing)|get\s+around\s+in|commute\s+in|pair\s+(?:my\s+)?phone\s+with)|went\s+with|replaced\s+(?:[\w'-]+\s+){0,3}?with|(?:drove|driving|drive)\s+(?:off|around|home)\s+in|(?:owner|keeper)\s+of|(?:traded|swapped|exchanged)\b[^,;.]*?\bfor)\s+(?:a|an|the|my|our)\s+(?:(?:new|used|brand[- ]new|shiny|second-?hand)\s+)?(?=${MAKE})`, 'i'), true),
  P('car', new RegExp(String.raw`\b(?:my|our)\s+(?:(?:new|current|trusty|beloved)\s+)?(?=${MAKE})`, 'i'), true, 'noun'),
  P('car', new RegExp(String.raw`\b(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\s+(?<p>I|we)(?:'m|\s+am)?\s+(?:now\s+|just\s+|recently\s+)?(?:drive|own|have|bought|got|leased|driving)\b`, 'u'), true, 'noun'),
  P('car', new RegExp(String.raw`\b(?:a|an)\s+(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\s+(?:driver|owner)\b`, 'u'), true),
  own(P('car', new RegExp(String.raw`\bnew\s+(?:car|ride|wheels)\b[\s!.:—–(,-]*(?:it's\s+)?(?:(?:a|an)\s+)?(?:(?:new|used)\s+)?(?=${MAKE})`, 'i'), true, 'noun')),
  own(P('car', new RegExp(String.raw`^\s*(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?=(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2}\s+(?:is|needs|won't|keeps|has|broke|started|makes|'s)\b)`, 'u'), true, 'noun')),
  own(P('car', new RegExp(String.raw`(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\W{0,3}\s*(?:[Tt]hat's|[Tt]hat\s+is|[Ii]t's)\s+(?<p>my|our|the)\s+(?:new\s+)?(?:car|ride|vehicle)\b`, 'u'), true, 'noun')),
  own(P('car', new RegExp(String.raw`\bit's\s+(?:now\s+)?(?:a|an)\s+(?:(?:new|used)\s+)?(?=${MAKE})`, 'i'), true, 'verb', /\b(?:car|cars|vehicle)\b/i)),
  own(P('car', new RegExp(String.raw`${LABEL}(?:new\s+)?(?:car|vehicle|ride)\s*[:=]\s*(?:now\s+)?(?:a|an)?\s*(?=${MAKE})`, 'i'), true, 'noun')),
  P('partner', /\b(?:dating|seeing|going\s+out\s+with)\s+(?:someone\s+(?:new\s+)?(?:now\s*)?[,—–:-]+\s*)?/i, true),
  P('partner', /\bmet\s+someone(?:\s+new)?\s*[,—–:-]+\s*/i, true),
  P('partner', /\b(?:married|engaged)\s+to\s+|\btied\s+the\s+knot\s+with\s+/i, true),
  P('partner', /\b(?:relationship|together|civil\s+partnership|moved\s+in)\s+with\s+/i, true),
  P('partner', /\b(?:been|i'm|i am|im|now)\s+(?:now\s+)?with\s+/i, true, 'verb', PARTNER_CUE),
  P('partner', /\b(?:been|i'm|i am|im)\s+with\s+(?=[\p{Lu}][\p{L}'-]*\s+(?:now|these days|for|since)\b)(?![^.!?]*\b(?:job|company|employer|department|team|work|working|pay|office|firm|boss)\b)/iu, true),
  P('partner', new RegExp(String.raw`\b${PARTNER_NOUN}(?:'s\s+name)?\s+(?:now\s+)?(?:is\s+)(?:now\s+)?(?:called\s+|named\s+)?`, 'i'), true),
  own(P('partner', new RegExp(String.raw`${LABEL}(?:new\s+)?(?:${PARTNER_NOUN.slice(3, -1)}|relationship)\s*[:=]\s*`, 'i'), true, 'noun')),
  P('partner', new RegExp(String.raw`\b${PARTNER_NOUN},?\s+(?:(?:called|named)\s+)?`, 'i'), true, 'noun'),
  P('partner', new RegExp(String.raw`${NAME}\s*(?:,|\(|[—–-])\s*(?:that's\s+|who's\s+)?(?<p>(?:[Mm]y|[Oo]ur)(?:\s+new)?)\s+${PARTNER_NOUN}\b`, 'u'), true, 'noun'),
  P('partner', new RegExp(String.raw`${NAME}\s+asked\s+(?<p>me)\s+out(?=[^.?!]*\b(?:couple|together|official|dating|said\s+yes|going\s+out|seeing\s+each\s+other))`, 'u'), true),
  P('partner', new RegExp(String.raw`\basked\s+${NAME}\s+to\s+be\s+(?<p>my)\s+${PARTNER_NOUN}\b`, 'iu'), true),
  P('partner', /\bproposed\s+to\s+by\s+/i, true),
  P('partner', new RegExp(String.raw`${NAME}(?:\s+is|'s)\s+(?:now\s+)?(?:officially\s+)?(?<p>my)\s+(?:new\s+)?${PARTNER_NOUN}\b`, 'u'), true),
  P('partner', /\b(?:just\s+)?married\s+(?=[\p{Lu}])/u, true),
  P('partner', new RegExp(String.raw`\b(?<p>[Aa]s)\s+${NAME}'s\s+${PARTNER_NOUN}\b`, 'u'), true, 'noun'),
  P('partner', new RegExp(String.raw`${NAME}\s+and\s+(?<p>I)\s+(?:(?:just|finally|have|are|'ve|been|now)\s+)*(?:got\s+engaged|got\s+married|engaged|married|together|live\s+together|moved\s+in\s+together|got\s+together|going\s+out|seeing\s+each\s+other|dating|started\s+dating|made\s+it\s+official|celebrating)`, 'u'), true),
  P('partner', new RegExp(String.raw`\b(?<p>[Mm]e)\s+and\s+${NAME}\s+(?:(?:just|finally|have|are|'ve|been|now)\s+)*(?:got\s+engaged|got\s+married|engaged|married|together|live\s+together|moved\s+in\s+together|got\s+together|going\s+out|seeing\s+each\s+other|dating|started\s+dating|made\s+it\s+official|celebrating)`, 'u'), true),
  own(P('partner', /\b(?:his|her|their)\s+name(?:\s+is|'s)\s+/i, true, 'verb', PARTNER_CUE)),
  // "… then I met Jonah and now we're living together", "Bea proposed last night", "it's Felix now" (of a relationship).
  P('partner', new RegExp(String.raw`\b(?<p>I)\s+(?:met|was\s+set\s+up\s+with|got\s+set\s+up\s+with)\s+${NAME}(?=[^.?!]*\b(?:we're|we are|we've been|we got)\s+(?:now\s+|officially\s+)?(?:living together|moving in together|together|dating|engaged|married|a couple|exclusive|official|inseparable))`, 'u'), true),
  P('partner', new RegExp(String.raw`${NAME}\s+(?:just\s+|finally\s+)?proposed\b(?!\s+to\b)`, 'u'), true),
  own(P('partner', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+now\b`, 'u'), true, 'verb', PARTNER_CUE)),
  P('school', /\b(?:study|studies|studying|enrolled|student)\s+(?:now\s+)?(?:at|in)\s+/i, true),
  P('school', /\b(?:transferred)\s+to\s+(?=(?:[\p{L}'-]+\s+){0,3}(?:University|College|School|Academy|Institute|Uni)\b)/iu, true),
  P('home', /\b(?:transferred)\s+to\s+/i, true),
  P('favourite', /\bfavou?rite\s+([a-z]+(?:\s+[a-z]+)?)\s+is\s+(?:now\s+)?/i, false),
];

// Words that end a value ("Globex in Berlin", "Seattle now", "Acme since March").
const VALUE_STOP = new Set(
  (
    'now these this that last since for and but with because as on in at from to after before so which who where when ' +
    'recently today yesterday currently anymore again already finally instead full part there here then since, ' +
    "starting starts started next soon is was are were has have had i i'm i've i'd i'll im my we our you your it its they their he she his her"
  ).split(/\s+/),
);
const ARTICLES = new Set(['a', 'an', 'the', 'my', 'our', 'new', 'used']);

/** Words that make a clause a hedge, a plan, a negation or a wish: not a current fact. */
const HEDGE =
  /\b(?:might|maybe|could|would|should|want|wants|wanted|wish|hope|hoping|plan|plans|planning|thinking|considering|consider|if|dream|dreaming|someday|perhaps|probably|not|never|no longer|don't|doesn't|didn't|won't|isn't|wasn't|aren't|can't|cannot|going to|gonna|applied|applying|interview|interviewing|visit|visits|visiting|visited|trip|trips|vacation|holiday|assume|assumes|assumed|assuming|supposedly|looked at|looking at|viewed|viewing|no way|getting back|i'd|we'd|love to|like to|rumou?r|rumou?red|almost|nearly|offered|turned\s+(?:it\s+|them\s+)?down|declined|walked away|conference|layover|stopover|for the weekend|this weekend)\b/i;
/** Words that put a clause in the past: what was, not what is. */
const PAST =
  /\b(?:used to|previously|formerly|back then|back when|back in (?:the day|college|school|high school|uni|university|my|\d{4})|in the past|years ago|ages ago|long time ago|a while ago|in college|in high school|at uni|as a kid|as a child|when i was|when we were|when i had|when i lived|when i worked|grew up|growing up|was born|were together|first (?:job|car|apartment|flat|house|girlfriend|boyfriend|love|wife|husband)|(?:was|were)\s+(?:married|engaged|together|dating|seeing|living|working|based|employed)|before the (?:divorce|breakup|split)|before i (?:moved|left|started|switched))\b/i;
/** Simple past of a fact's own verb ("I lived in Rome", "I worked at Acme"): the past, unless in a perfect ("I've lived"). */
const SIMPLE_PAST = /\b(?:lived|worked|resided|dated)\b|\bdrove\s+(?:a|an|the|my)\b/i;
/** Hedges that also count after the fact's value ("I live in Lyon no longer"); "if" only counts before it. */
/** Wishes for a time to come, wherever they sit in the clause. */
const SOMEDAY = /\b(?:someday|some day|one day|eventually)\b/i;
const HEDGE_AFTER = /^\W*(?:\S+\s+)?(?:anymore|any more|no longer)\b/i;
const PERFECT = /\b(?:have|has|'ve|i've|we've|ive)\b/i;
/** Words on a noun that make it no longer current ("my ex Priya", "my old Civic", "sold my Outback"). */
const NOT_CURRENT_NOUN =
  /(?:\b(?:ex|former|old|late|previous|first)\b[\s-]*(?:[\w'-]+[\s,]+){0,2}|\b(?:sold|selling|crashed|totaled|totalled|wrecked|scrapped|traded\s+in|got\s+rid\s+of)\s+(?:my|our)\s+(?:[\w'-]+\s+){0,2})$/i;
/** Modal verbs that are also names or months ("May", "Will"): a hedge only in lower case. */
const LOWER_CASE_HEDGE = /\b(?:may|will|'ll)\b/;
const ADDITION =
  /\b(?:also|too|as well|another|second|additionally|in addition|besides|both|on top of|alongside|on the side|side gig|side job|side hustle|part-time|freelance|consulting|still (?:have|has|live|lives|living|work|works|working|keep|own|drive)|keeping (?:my|our)|weekend place|holiday (?:home|flat|house|place|cottage)|vacation (?:home|place|house|flat)|cabin|beach house|second home|project car|hobby car|two-car|main job|day job|regular job|regular car|usual (?:one|car)|on (?:the )?weekends|on saturdays|on sundays|in the evenings|a few hours|hours a week|not quitting|main (?:home|place|house)|still my|daily driver|daily car|everyday car|hasn't changed|same as always|stays the same|still the same|only comes out|just for|only for|for the farm|haven't changed|kept my|toy|weekend car|fun car|summer (?:place|house|home|cottage)|country (?:house|place)|(?:most\s+)?weekends|weekdays|during the week|split (?:my|our) time|for (?:my|the|our) (?:son|daughter|kids?|teen(?:ager)?s?|family))\b/i;
/** Where a clause ends: punctuation, a dash, or a conjunction that starts another clause. */
const CLAUSE_BREAK = /[,;:()!?]|\s[-—–]\s|[—–]|\b(?:but|so|because|although|though|whereas)\b/gi;


const RELATIONS =
  'brother|sister|mom|mother|mum|dad|father|son|daughter|wife|husband|partner|boyfriend|girlfriend|friend|boss|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|niece|nephew|roommate|neighbour|neighbor|colleague|coworker|kid|kids|child|children|parents|fiance|fiancee|sibling';
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
    'apartment house place started joined bought traded in my old car for as of monday tuesday wednesday thursday friday saturday sunday ' +
    'signed finished found rented renting picked up took accepted landed made switched changed quit left upgraded leased purchased having being'
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
  const part = (prefix.split(/[.!?]+\s+/).pop() ?? '').replace(/\bas\s+(?:someone|somebody|a\s+person)\s+who\b/gi, 'I');
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
const ELIDED_OPENERS = new Set('just finally so recently officially also still currently literally'.split(' '));

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
    if (clean === '' || VALUE_STOP.has(lower)) break;
    if (!/^[\p{L}\p{N}][\p{L}\p{N}&'.-]*$/u.test(clean)) break;
    if (named && out.length > 0 && !/^[\p{Lu}\p{N}]/u.test(clean)) break;
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
 * Reads one sentence as a fact, or null. `sentence` is one sentence of a turn, without its speaker.
 */
export function factOf(sentence: string): StatementFact | null {
  const s = sentence.trim();
  if (s === '') return null;
  for (const p of PATTERNS) {
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
    } else if (NOT_CURRENT_NOUN.test(s.slice(0, backward ? m.index + m[0].length : at))) continue;
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
    return f === null || f.addition || f.implied === true ? [] : [{ s, f }];
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

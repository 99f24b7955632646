/**
 * The patterns the offline fact reading tries, in order (`fact-reading.ts` reads a statement with them): for each
 * kind of fact, the ways of saying it that the rule knows, and the vocabularies they share (makes of car, words for
 * a partner, the cues that make an ambiguous pattern a job or a relationship).
 * @internal
 */
import type { FactSlot } from './fact-reading.js';

/**
 * How a pattern's match asserts its fact. `verb`: the clause says it ("I work at Globex", "we moved to Lisbon"), so
 * a hedge, a plan, a negation, a question or the past anywhere in that clause makes it no fact. `noun`: a noun phrase
 * takes it as given ("my wife Priya", "my Subaru Outback", "my boss at Initech"), whatever the clause does with it
 * ("I'm planning a surprise for my wife Priya") — only the past in its clause, or a word on the noun itself ("my ex",
 * "my old car", "sold my Civic"), makes it no fact.
 */
export type Mode = 'verb' | 'noun';

export interface SlotPattern {
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
  /**
   * Words a sentence must hold (one of) for the pattern to be tried, where they cannot be read off the pattern's
   * start (`pattern-dispatch.ts`): lower case, whole words.
   */
  readonly anchors?: readonly string[];
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
export const CAR_MAKES =
  'Toyota|Honda|Ford|Subaru|Tesla|Mazda|Volvo|Kia|Jeep|Volkswagen|VW|Nissan|Hyundai|BMW|Audi|Mercedes(?:-Benz)?|Chevrolet|Chevy|' +
  'Dodge|Ram|GMC|Buick|Cadillac|Lincoln|Chrysler|Lexus|Acura|Infiniti|Genesis|Mitsubishi|Suzuki|Porsche|Fiat|Alfa Romeo|' +
  'Peugeot|Renault|Citro[eë]n|Skoda|Škoda|Seat|Cupra|Opel|Vauxhall|Dacia|Mini|Jaguar|Land Rover|Range Rover|Rivian|' +
  'Polestar|Lucid|BYD|Saab|Smart|Lotus|Maserati|Ferrari|Lamborghini|Bentley|Aston Martin|Rolls-Royce|Scion|Pontiac|Saturn|Plymouth';
export const MAKE = `(?:${CAR_MAKES})\\b`;
/** A value written as a name (backward patterns): capitalised words. */
export const NAME = String.raw`(?<v>[\p{Lu}\p{N}][\p{L}\p{N}&'.-]*(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}&'.-]*){0,3})`;
const PARTNER_NOUN = String.raw`(?:girlfriend|boyfriend|partner|wife|husband|fianc[eé]e?|spouse|bf|gf|hubby|missus|other half|better half|significant other)`;
/** Business functions a person does for an employer ("I do payroll for Initech", "I'm in sales at Globex"). */
const BUSINESS = String.raw`(?:payroll|accounts|accounting|books|bookkeeping|hiring|recruiting|recruitment|marketing|sales|support|customer\s+service|it|logistics|procurement|admin|operations|ops|hr|scheduling|security|deliveries|inventory|reception|training|apprentices|interns|warehouse|kitchen|store|shop|lab|clinic|site|floor|dev|development|backend|frontend|engineering|qa|testing|design|finance|legal|compliance|research|analytics|data|content|pr|communications|consulting)`;
const JOB_CUE = /\b(?:r[ée]sum[ée]|cv|linkedin|previous place|old place|new place|hr|benefits|401k|pension|remote|on-call|expenses|pay|salary|payroll|contract|colleagues|job|jobs|employer|employers|company|companies|quit|hired|career|careers|position|role|offer|boss|manager|team|work|working|office|department|firm|notice)\b/i;
const PARTNER_CUE = new RegExp(`\\b(?:${PARTNER_NOUN.slice(3, -1)}|dating|seeing|relationship|together|engaged|married|exclusive|official|broke up|breakup|divorce|dumped|split up|ex|in love)\\b`, 'i');
/** A profile-style label opening a statement or a clause ("job: Initech", "new gf = Lena", "location: Lyon"). */
const LABEL = String.raw`(?:^|[,.;:(!])\s*`;
const own = (pattern: SlotPattern): SlotPattern => ({ ...pattern, own: true });
const anchored = (words: string, pattern: SlotPattern): SlotPattern => ({ ...pattern, anchors: words.split(' ') });
/** A make's words as anchors: its first word, lower case ("alfa" for Alfa Romeo). */
const MAKE_WORDS = CAR_MAKES.replace(/\(\?:-Benz\)\?/, '').replace(/Citro\[eë\]n/, 'citroen citroën').split('|').map((m) => m.split(' ')[0]!.toLowerCase()).join(' ');
const PARTNER_WORDS = 'girlfriend boyfriend partner wife husband fiance fiancé fiancee fiancée spouse bf gf hubby missus other better significant';

// Each forward pattern ends where the value begins; the value is then read by valueAt (carValueAt for cars).
export const PATTERNS: readonly SlotPattern[] = [
  P('employer', /\b(?:work|works|working|worked)\s+(?:now\s+)?(?:(?:nights|days|shifts|weekdays|full[- ]time|part[- ]time|remotely|remote)\s+)?(?:in\s+(?:[\w-]+\s+){1,3}?)?(?:at|for)\s+/i, false),
  P('employer', /\b(?:job|position|role|internship)\s+(?:now\s+)?(?:is\s+|'s\s+)?(?:now\s+)?(?:at|with)\s+/i, false),
  P('employer', /\bwork(?:\s+is|'s)\s+(?:now\s+)?(?:at|with)\s+/i, true),
  P('employer', /\bon\s+the\s+payroll\s+(?:at|of|for)\s+/i, true),
  P('employer', new RegExp(String.raw`\bon\s+the\s+${NAME}\s+payroll\b`, 'u'), true),
  P('employer', /\boffer\s+(?:at|from|with)\s+/i, true, 'verb', /\b(?:took|accepted)\s+it\b/i, 'clause'),
  anchored('pay paycheck paycheque payslip', own(P('employer', /\b(?:first\s+)?pay\s?(?:check|cheque|slip)\s+from\s+/i, true, 'noun'))),
  P('employer', /\bsigned\s+(?:my|a|the)\s+(?:new\s+)?(?:contract|offer)\s+(?:with|at)\s+/i, true),
  P('employer', /\b(?:started|start|starting|began|begun)\s+(?:a\s+|my\s+)?(?:new\s+)?(?:job\s+|position\s+|role\s+|work\s+|internship\s+)?(?:at|with)\s+/i, true),
  // Joining a group, a club or a class is not a job.
  P('employer', /\b(?:joined|join)\s+(?!the\s+(?:gym|club|team|choir|band))(?!(?:the|a|an)\s+(?:new\s+)?(?:[\w-]+\s+){0,3}?(?:group|club|team|class|gym|choir|band|league|society|community|church|course|program|programme)\b)/i, true),
  P('employer', /\b(?:employed|hired|recruited|poached|headhunted|taken\s+on|brought\s+on)\s+(?:away\s+)?(?:at|by)\s+/i, false),
  P('employer', /\b(?:employer|company)\s+is\s+(?:now\s+)?/i, true),
  P('employer', /\b(?:got|landed|accepted|took)\s+(?:a|an|the)\s+(?:new\s+)?(?:job|position|role)\s+(?:at|with)\s+/i, false),
  P('employer', /\b(?:accepted|took)\s+(?:a|an|the)\s+(?:new\s+)?(?:job\s+)?offer\s+(?:at|with|from)\s+/i, false),
  P('employer', /\b(?:switched|changed)\s+(?:jobs\s+)?to\s+(?!(?:a|an|the)\s)/i, true),
  // A named workplace that took the speaker on ("Initech hired me", "Globex took me on as a designer").
  anchored('hired took brought picked snapped signed', P('employer', new RegExp(String.raw`${NAME}\s+(?:(?:has|just|finally)\s+)?(?:hired\s+(?<p>me|us)|(?:took|brought|signed)\s+(?<q>me|us)\s+on|(?:picked|snapped)\s+(?<r>me|us)\s+up|signed\s+(?<s>me|us))\b`, 'u'), true)),
  P('employer', /\b(?:(?:i've|i have|ive|we've)\s+)?been\s+(?:working\s+)?at\s+/i, true, 'verb', JOB_CUE),
  P('employer', /\b(?:been|i'm|i am|im)\s+(?:now\s+)?with\s+/i, true, 'verb', JOB_CUE),
  anchored('day week fortnight month shift', own(P('employer', /\b(?:first|second|third|fourth|fifth|\d+(?:st|nd|rd|th))\s+(?:day|week|fortnight|month|shift)\s+(?:at|with)\s+/i, true))),
  own(P('employer', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+(?:now|these\s+days|since)\b`, 'u'), true, 'verb', JOB_CUE)),
  P('employer', /\blanded\s+(?:a\s+(?:new\s+)?(?:job|role|position)\s+)?(?:at|with)\s+/i, true),
  P('employer', new RegExp(String.raw`\b(?:i|we)\s+(?:do|handle|manage|run|lead|oversee|train)\s+(?:the\s+)?(?:[\w-]+\s+)?${BUSINESS}\s+(?:at|for)\s+`, 'i'), true),
  P('employer', new RegExp(String.raw`\b(?:i'm|i am|im|being)\s+in\s+(?:the\s+)?(?:${BUSINESS}|[\w-]+\s+(?:department|team))\s+(?:at|with|for)\s+`, 'i'), true),
  P('employer', /\b(?:work|works|working)\s+with\s+/i, true, 'verb', /\b(?:department|team|company|employer|firm|office|colleagues|job|role|position)\b/i),
  P('employer', new RegExp(String.raw`${NAME}\s+pays\s+(?<p>me|my)\b`, 'u'), true),
  own(P('employer', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+(?:that|who)\s+pays\s+(?<p>my|me)\b`, 'u'), true)),
  P('employer', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+(?:that\s+|who\s+)?(?<p>I|we)(?:'m|\s+am|'re)?\s+(?:now\s+)?(?:work|working)\s+(?:for|at)\b`, 'u'), true),
  P('employer', new RegExp(String.raw`\b(?:taking|took|accepted|accepting)\s+${NAME}'s\s+offer\b`, 'u'), true),
  P('employer', /\bleft\s+(?:my\s+)?(?:old\s+)?(?:job|company|employer|firm)\s+(?:to\s+join\s+|for\s+)/i, true),
  own(P('employer', /\b(?:company|firm|place)\s+(?:I|we)\s+work\s+(?:for|at)(?:\s+now)?\s*,?\s+(?:is\s+)?(?:now\s+)?/i, true, 'noun')),
  anchored('work job employer company', own(P('employer', new RegExp(String.raw`${LABEL}(?:new\s+|day\s+)?(?:work|job|employer|company)\s*[:=]\s*(?:now\s+)?(?:(?:a|an)\s+)?(?:[\w-]+\s+){0,3}?(?:at|@|with)\s+`, 'i'), true, 'noun'))),
  P('employer', /\b(?:i|we)\s+(?:handle|manage|run|lead|oversee)\s+(?!(?:my|the|some|a|an|our|errands)\b)(?:[\w-]+\s+){1,3}?(?:at|for)\s+/i, true),
  P('employer', /\b(?:role|position|job)\s+as\s+(?:a|an|the)?\s*(?:[\w-]+\s+){1,4}?(?:at|with|for)\s+/i, true, 'noun'),
  P('employer', /\b(?:as|being)\s+(?:a|an)\s+(?:[\w-]+\s+){1,3}?(?:at|with|for|@)\s+/i, true),
  P('employer', /\b(?:department|team|division|office|branch)\s+of\s+/i, true),
  own(P('employer', /\b(?:my|our)\s+(?:(?:new|current)\s+)?(?:company|employer|firm|workplace)(?:,\s*|\s+)(?=[\p{Lu}])/iu, true, 'noun')),
  P('employer', new RegExp(String.raw`${NAME},?\s+(?:since|because|as)\s+(?:that's|that\s+is)\s+where\s+(?<p>I|we)\s+work\b`, 'u'), true),
  P('employer', /\b(?:since|after)\s+joining\s+/i, true),
  own(P('employer', new RegExp(String.raw`${LABEL}(?:new\s+)?(?:work|job|employer|company)(?:\s+(?:update|alert|news))?\s*[:=]\s*(?:now\s+)?`, 'i'), true, 'noun')),

  // "I'm a data analyst at Globex", "I'm an accountant with Initech" (the match takes in "I'm", which names whose).
  anchored("i'm i im", P('employer', /\b(?:i'm|i am|im)(?:,?\s+(?:uh|um|er|like),?)?\s+(?:now\s+)?(?:officially\s+)?(?:a|an|the)\s+(?:[\w-]+\s+){1,3}?(?:over\s+)?(?:at|for|with|@)\s+/i, true)),
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
  P('employer', /\b(?:moved|switched)\s+over\s+to\s+(?!(?:a|an|the)\s)/i, true, 'verb', /\b(?:quit|quitting|job|jobs|employer|company|notice|hired|career|firm|boss|work)\b/i),
  P('car', new RegExp(String.raw`\b(?:i'm|i am|im|we're)\s+(?:now\s+)?(?:driving\s+)?in\s+(?:a|an)\s+(?:(?:new|used)\s+)?(?=${MAKE})`, 'i'), true),
  P('home', /\b(?:live|lives|lived|living|reside|resides|residing)\s+(?:now\s+)?(?:in|(?:just\s+)?(?:outside|near))\s+/i, true),
  P('home', /\bbeing\s+in\s+(?!(?:a|an|the)\s)/i, true),
  P('home', /\b(?:left|swapped|traded|exchanged)\s+the\s+(?:big\s+)?(?:city|town|suburbs|countryside)\s+for\s+/i, true),
  P('home', /\b(?:moved|relocated|shifted)\s+(?:over\s+|back\s+|out\s+|across\s+(?:the\s+)?(?:country|world|state|town|city)\s+)?(?:to|into)\s+/i, true),
  P('home', /\b(?:uprooted|moved|relocated)\s+(?:the\s+(?:whole\s+)?family|everyone|everything|us|my\s+(?:whole\s+)?life)\s+(?:over\s+|out\s+)?to\s+/i, true),
  P('home', /\b(?:i|we)\s+stay\s+in\s+/i, true),
  P('home', /\bbought\s+in\s+/i, true),
  P('home', new RegExp(String.raw`\b(?:[Mm]oving|[Rr]elocating)\s+to\s+(?=${NAME.replace('(?<v>', '(?:')}\s+was\b)`, 'u'), true),
  own(P('home', /\b(?:my|our)\s+(?:neighbou?rhood|street|area|building)\s+in\s+/i, true, 'noun')),
  P('home', new RegExp(String.raw`\buse\s+${NAME}\s+as\s+(?<p>my|our)\s+(?:location|home|city|address)\b`, 'u'), true),
  P('home', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+(?:where\s+(?<p>I|we)\s+live|(?<q>I|we)(?:'m|\s+am|'re)\s+(?:now\s+)?living\s+in)\b`, 'u'), true),
  P('home', /\b(?:since|after)\s+(?:(?:the|my|our)\s+)?(?:moving|move|relocating|relocation)\s+(?:over\s+|back\s+)?to\s+/i, true),
  P('home', /\b(?:my|our)\s+(?:big\s+)?move\s+to\s+/i, true, 'noun'),
  own(P('home', /\bthe\s+(?:big\s+)?move\s+to\s+/i, true, 'noun')),
  own(P('home', /\bhome\s+(?:town\s+)?(?:for\s+(?:me|us)\s+)?is\s+(?:now\s+)?(?:in\s+)?/i, true)),
  P('home', /\b(?:based|settled|settling|unpacking|unpacked)\s+(?:(?:now|down|the\s+last\s+box(?:es)?|everything)\s+)?(?:in|into)\s+/i, true),
  anchored('moving moved posted stationed', P('home', /\b(?:moving|moved)\s+house\s+to\s+|\b(?:posted|stationed)\s+to\s+/i, true)),
  P('home', /\b(?:relocated|transferred|moved|posted)\s+(?<p>me|us)\s+to\s+/i, true),
  P('home', /\bbought\s+(?:one|a\s+(?:place|house|flat|home|condo))\s+in\s+/i, true),
  P('home', new RegExp(String.raw`\b(?<p>[Ii]|[Ww]e)\s+call\s+${NAME}\s+home\b`, 'u'), true),
  P('home', new RegExp(String.raw`${NAME}(?:'s|\s+is)\s+where\s+(?<p>[Ii]|we)\s+live\b`, 'u'), true),
  P('home', new RegExp(String.raw`\b(?<p>[Ii]'m|[Ww]e're|[Ii] am|[Ww]e are)\s+(?:now\s+|officially\s+)*(?:a\s+|an\s+)?${NAME}\s+(?:local|locals|resident|residents|person)\b`, 'u'), true),
  own(P('home', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+now\b`, 'u'), true, 'verb', /\b(?:moved|move|moving|city|town|address|live|living|home|relocated)\b/i)),
  P('home', /\b(?:i've|i have|ive|we've|we have)\s+been\s+(?:living\s+)?in\s+(?!(?:a|an|the)\s)(?![^,;.!?]*\b(?:this week|today|tonight|for (?:a|the|two|three|few|couple)|on business|for work|until|till|visiting)\b)/i, true),
  own(P('home', /\baddress\s+is\s+(?:now\s+)?(?:in\s+)?/i, true, 'noun')),
  own(P('home', new RegExp(String.raw`${NAME}\s+is\s+(?:(?:now|officially)\s+)*(?:(?:my|our)\s+)?home\b`, 'u'), true)),
  P('home', /\bended\s+up\s+(?:moving\s+to|living\s+in|settling\s+in|in)\s+/i, true),
  P('home', /\b(?:apartment|flat|house|place|condo|studio|bedroom|bed|townhouse|loft|cottage|bungalow|duplex|lease)(?:\s+is|'s)?\s+in\s+/i, true),
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
  P('car', /\b(?:[Bb]ought|[Gg]ot|[Pp]urchased|[Ll]eased)\s+(?:myself\s+)?(?:a|an)\s+(?:new\s+|used\s+)?(?=[A-Z])/, true),
  // A make of car owned, bought or driven ("I own a Kia Niro", "picked up my new Tesla Model 3", "traded it in for
  // a Mazda 3"), or simply the speaker's ("my Subaru Outback needs new tyres").
  anchored(MAKE_WORDS, P('car', new RegExp(String.raw`\b(?:own|owns|have|has|got|bought|purchased|leased|financed|picked\s+up|upgraded\s+to|switch(?:ed|ing)\s+to|ended\s+up\s+(?:with|buying|getting|leasing)|treated\s+(?:myself|ourselves)\s+to|took\s+delivery\s+of|(?:switched|swapped|changed)\s+(?:[\w']+\s+){0,3}?(?:over\s+)?to|(?:fill(?:ed)?\s+up|park(?:ed|ing)?|wash(?:ed|ing)?|servic(?:e|ed|ing)|insur(?:e|ed|ing)|get\s+around\s+in|commute\s+in|pair\s+(?:my\s+)?phone\s+with)|went\s+with|replaced\s+(?:[\w'-]+\s+){0,3}?with|(?:drove|driving|drive)\s+(?:off|around|home)\s+in|(?:owner|keeper)\s+of|(?:traded|swapped|exchanged)\b[^,;.]*?\bfor)\s+(?:a|an|the|my|our)\s+(?:(?:new|used|brand[- ]new|shiny|second-?hand)\s+)?(?=${MAKE})`, 'i'), true)),
  P('car', new RegExp(String.raw`\b(?:my|our)\s+(?:(?:new|current|trusty|beloved)\s+)?(?=${MAKE})`, 'i'), true, 'noun'),
  P('car', new RegExp(String.raw`\b(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\s+(?<p>I|we)(?:'m|\s+am)?\s+(?:now\s+|just\s+|recently\s+)?(?:drive|own|have|bought|got|leased|driving)\b`, 'u'), true, 'noun'),
  P('car', new RegExp(String.raw`\b(?:a|an)\s+(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\s+(?:driver|owner)\b`, 'u'), true),
  P('car', new RegExp(String.raw`\b[Ii]t's\s+(?:a|an)\s+(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\s+(?<p>I|we)(?:'m|\s+am|'re)?\s+(?:now\s+)?(?:drive|driving|have|own)\b`, 'u'), true),
  anchored(MAKE_WORDS, own(P('car', new RegExp(String.raw`(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\s+(?:owner|driver)\s+here\b`, 'u'), true, 'noun'))),
  P('car', new RegExp(String.raw`\bcar\s+(?<p>I|we)\s+(?:drive|have|own)(?:\s+now)?\s+is\s+(?:now\s+)?(?:a|an)\s+(?=${MAKE})`, 'i'), true),
  P('car', new RegExp(String.raw`\b(?<p>[Mm]ine)(?:'s|\s+is)\s+(?:now\s+)?(?:a|an)\s+(?:[a-z]+\s+)?(?=${MAKE})`, 'u'), true),
  own(P('car', new RegExp(String.raw`\bnew\s+(?:car|ride|wheels)\b(?:\s+(?:alert|update|news))?[\s!.:—–(,-]*(?:it's\s+)?(?:(?:a|an)\s+)?(?:(?:new|used)\s+)?(?=${MAKE})`, 'i'), true, 'noun')),
  own(P('car', new RegExp(String.raw`^\s*(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?=(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2}\s+(?:is|needs|won't|keeps|has|broke|started|makes|gets|'s)\b)`, 'u'), true, 'noun')),
  anchored(MAKE_WORDS, own(P('car', new RegExp(String.raw`(?<v>(?:${CAR_MAKES})(?:\s+[\p{Lu}\p{N}][\p{L}\p{N}-]*){0,2})\W{0,3}\s*(?:[Tt]hat's|[Tt]hat\s+is|[Ii]t's)\s+(?<p>my|our|the)\s+(?:new\s+)?(?:car|ride|vehicle)\b`, 'u'), true, 'noun'))),
  own(P('car', new RegExp(String.raw`\bit's\s+(?:now\s+)?(?:a|an)\s+(?:(?:new|used)\s+)?(?=${MAKE})`, 'i'), true, 'verb', /\b(?:car|cars|vehicle)\b/i)),
  own(P('car', new RegExp(String.raw`${LABEL}(?:new\s+)?(?:car|vehicle|ride)\s*[:=]\s*(?:now\s+)?(?:a|an)?\s*(?=${MAKE})`, 'i'), true, 'noun')),
  // A car bought without its make ("got a new car"): after every pattern that reads a make.
  P('car', /\b(?:bought|got|purchased|leased)\s+(?:myself\s+)?(?:a|an)\s+(?:new\s+|used\s+)?(?=(?:[\w-]+\s+)?(?:car|suv|truck|sedan|hatchback|van|pickup)\b)/i, false),
  P('partner', /\b(?:dating|seeing|going\s+out\s+with)\s+(?:someone\s+(?:new\s+)?(?:now\s*)?[,—–:-]+\s*)?/i, true),
  P('partner', /\b(?:met|found)\s+someone(?:\s+new)?\s*[,—–:-]+\s*/i, true),
  anchored('married engaged tied', P('partner', /\b(?:married|engaged)\s+to\s+|\btied\s+the\s+knot\s+with\s+/i, true)),
  P('partner', /\b(?:relationship|together|civil\s+partnership|moved\s+in)\s+(?:again\s*,?\s*)?with\s+/i, true),
  P('partner', /\b(?:been|i'm|i am|im|now)\s+(?:now\s+)?with\s+/i, true, 'verb', PARTNER_CUE),
  P('partner', /\b(?:been|i'm|i am|im)\s+with\s+(?=[\p{Lu}][\p{L}'-]*\s+(?:now|these days|for|since)\b)(?![^.!?]*\b(?:job|company|employer|department|team|work|working|pay|office|firm|boss|previous place|old place|signature)\b)/iu, true),
  anchored(PARTNER_WORDS, P('partner', new RegExp(String.raw`\b${PARTNER_NOUN}(?:'s\s+name)?\s+(?:now\s+)?(?:is\s+)(?:now\s+)?(?:called\s+|named\s+)?`, 'i'), true)),
  anchored(`${PARTNER_WORDS} relationship`, own(P('partner', new RegExp(String.raw`${LABEL}(?:new\s+)?(?:${PARTNER_NOUN.slice(3, -1)}|relationship)\s*[:=]\s*`, 'i'), true, 'noun'))),
  anchored(PARTNER_WORDS, P('partner', new RegExp(String.raw`\b${PARTNER_NOUN},?\s+(?:(?:called|named)\s+)?`, 'i'), true, 'noun')),
  anchored('my our', P('partner', new RegExp(String.raw`${NAME}\s*(?:,|\(|[—–-])\s*(?:that's\s+|who's\s+)?(?<p>(?:[Mm]y|[Oo]ur)(?:\s+new)?)\s+${PARTNER_NOUN}(?![A-Za-zÀ-ÿ])`, 'u'), true, 'noun')),
  P('partner', new RegExp(String.raw`${NAME}\s+asked\s+(?<p>me)\s+out(?=[^.?!]*\b(?:couple|together|official|dating|said\s+yes|going\s+out|seeing\s+each\s+other))`, 'u'), true),
  P('partner', new RegExp(String.raw`\basked\s+${NAME}\s+to\s+be\s+(?<p>my)\s+${PARTNER_NOUN}(?![A-Za-zÀ-ÿ])`, 'iu'), true),
  P('partner', /\bproposed\s+to\s+by\s+/i, true),
  anchored('moved', P('partner', new RegExp(String.raw`${NAME}\s+(?:has\s+|just\s+)?moved\s+in\s+with\s+(?<p>me|us)\b`, 'u'), true)),
  P('partner', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+(?<p>I|we)(?:'m|\s+am|'re)\s+(?:now\s+)?with\b`, 'u'), true),
  P('partner', new RegExp(String.raw`${NAME}(?:\s+is|'s)\s+(?:now\s+)?(?:officially\s+)?(?<p>my)\s+(?:new\s+)?${PARTNER_NOUN}(?![A-Za-zÀ-ÿ])`, 'u'), true),
  P('partner', /\b(?:[Jj]ust\s+)?[Mm]arried\s+(?=[\p{Lu}])/u, true),
  P('partner', new RegExp(String.raw`${NAME}\s+asked\s+(?<p>me)\s+to\s+be\s+(?:his|her|their)\s+${PARTNER_NOUN}(?![A-Za-zÀ-ÿ])`, 'u'), true),
  own(P('partner', /\banniversary\s+with\s+/i, true, 'noun')),
  P('partner', new RegExp(String.raw`\b(?<p>[Aa]s)\s+${NAME}'s\s+${PARTNER_NOUN}(?![A-Za-zÀ-ÿ])`, 'u'), true, 'noun'),
  P('partner', new RegExp(String.raw`${NAME}\s+and\s+(?<p>I)\s+(?:(?:just|finally|have|are|'ve|been|now)\s+)*(?:got\s+engaged|got\s+married|engaged|married|together|live\s+together|moved\s+in\s+together|got\s+together|tied\s+the\s+knot|(?:officially\s+)?a\s+couple|exclusive|going\s+out|seeing\s+each\s+other|dating|started\s+dating|made\s+it\s+official|celebrating)`, 'u'), true),
  P('partner', new RegExp(String.raw`\b(?<p>[Mm]e)\s+and\s+${NAME}\s+(?:(?:just|finally|have|are|'ve|been|now)\s+)*(?:got\s+engaged|got\s+married|engaged|married|together|live\s+together|moved\s+in\s+together|got\s+together|tied\s+the\s+knot|(?:officially\s+)?a\s+couple|exclusive|going\s+out|seeing\s+each\s+other|dating|started\s+dating|made\s+it\s+official|celebrating)`, 'u'), true),
  own(P('partner', /\b(?:his|her|their)\s+name(?:\s+is|'s)\s+/i, true, 'verb', PARTNER_CUE)),
  // "… then I met Jonah and now we're living together", "Bea proposed last night", "it's Felix now" (of a relationship).
  anchored('met fell was got', P('partner', new RegExp(String.raw`\b(?:(?<p>I)\s+)?(?:met|[Ff]ell\s+for|was\s+set\s+up\s+with|got\s+set\s+up\s+with)\s+${NAME}(?=[^.?!]*\b(?:we're|we are|we've been|we got)\s+(?:now\s+|officially\s+)?(?:a\s+couple|living together|moving in together|together|dating|engaged|married|a couple|exclusive|official|inseparable))`, 'u'), true)),
  anchored('proposed', P('partner', new RegExp(String.raw`${NAME}\s+(?:just\s+|finally\s+)?proposed\b(?!\s+to\b)`, 'u'), true)),
  own(P('partner', new RegExp(String.raw`\b[Ii]t's\s+${NAME}\s+now\b`, 'u'), true, 'verb', PARTNER_CUE)),
  P('school', /\b(?:study|studies|studying|enrolled|student)\s+(?:now\s+)?(?:at|in)\s+/i, true),
  P('school', /\b(?:transferred)\s+to\s+(?=(?:[\p{L}'-]+\s+){0,3}(?:University|College|School|Academy|Institute|Uni)\b)/iu, true),
  P('home', /\b(?:transferred)\s+to\s+/i, true),
  anchored('favourite favorite', P('favourite', /\bfavou?rite\s+([a-z]+(?:\s+[a-z]+)?)\s+is\s+(?:now\s+)?/i, false)),
];

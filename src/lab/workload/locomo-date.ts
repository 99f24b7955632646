/**
 * Parsing of LoCoMo's session time stamps, e.g. `"1:56 pm on 8 May, 2023"`.
 *
 * The released files use that one shape, but they were written by hand-tuned generation scripts and other LoCoMo
 * derivatives reformat them, so the parser looks for the parts (a time, a day, a month name, a year) instead of
 * matching one exact pattern. Times carry no zone; they are read as UTC so a load gives the same numbers on every
 * machine.
 */

/** Month names by their first three letters; a token counts when it is a prefix of the full name ("Sept"). */
const MONTHS: readonly string[] = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;
/** ISO strings that carry their own zone are left to `Date.parse`, which honours it. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const TIME_12H = /\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s*m\b\.?/i;
const TIME_24H = /\b(\d{1,2}):(\d{2})\b/;
const YEAR = /\b(\d{4})\b/;
const DAY = /\b(\d{1,2})(?:st|nd|rd|th)?\b/i;
const WORD = /[a-z]+/gi;

/**
 * Parses a LoCoMo session date-time to ms since the epoch, reading it as UTC.
 *
 * Accepts the released shape (`"1:56 pm on 8 May, 2023"`) and its common variants: 24-hour times, `"p.m."`,
 * month before day (`"May 8, 2023"`), abbreviated months, ordinals (`"8th"`), a missing time (midnight), and
 * ISO-8601 dates.
 *
 * @example
 * ```ts
 * parseLocomoDateTime('1:56 pm on 8 May, 2023'); // Date.UTC(2023, 4, 8, 13, 56)
 * parseLocomoDateTime('not a date');             // undefined
 * ```
 * @returns `undefined` when no valid calendar date can be read, so the caller can report where the text came from.
 */
export function parseLocomoDateTime(text: string): number | undefined {
  const s = text.trim();
  if (s.length === 0) return undefined;
  if (ISO_WITH_ZONE.test(s)) {
    const ms = Date.parse(s);
    return Number.isNaN(ms) ? undefined : ms;
  }
  const iso = ISO_DATE.exec(s);
  if (iso !== null) {
    return utc(num(iso[1]), num(iso[2]) - 1, num(iso[3]), num(iso[4]), num(iso[5]), num(iso[6]));
  }
  return parseHuman(s);
}

function parseHuman(s: string): number | undefined {
  let rest = s;
  let hour = 0;
  let minute = 0;
  const t12 = TIME_12H.exec(rest);
  if (t12 !== null) {
    const h = num(t12[1]);
    if (h < 1 || h > 12) return undefined;
    // 12 am is midnight and 12 pm is noon; the modulo folds both before the pm offset is added.
    hour = (h % 12) + (t12[3]?.toLowerCase() === 'p' ? 12 : 0);
    minute = num(t12[2]);
    rest = cut(rest, t12);
  } else {
    const t24 = TIME_24H.exec(rest);
    if (t24 !== null) {
      hour = num(t24[1]);
      minute = num(t24[2]);
      rest = cut(rest, t24);
    }
  }

  const month = findMonth(rest);
  if (month === undefined) return undefined;
  const year = YEAR.exec(rest);
  if (year === null) return undefined;
  rest = cut(rest, year);
  const day = DAY.exec(rest);
  if (day === null) return undefined;
  return utc(num(year[1]), month, num(day[1]), hour, minute, 0);
}

function findMonth(s: string): number | undefined {
  for (const match of s.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    if (word.length < 3) continue;
    const index = MONTHS.findIndex((name) => name.startsWith(word));
    if (index >= 0) return index;
  }
  return undefined;
}

/** Date.UTC silently rolls 31 April over to 1 May; a rolled date is a typo in the source, so it is rejected. */
function utc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | undefined {
  if (month < 0 || month > 11 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month, day, hour, minute, second);
  const d = new Date(ms);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month || d.getUTCDate() !== day) return undefined;
  return ms;
}

function num(digits: string | undefined): number {
  return digits === undefined ? 0 : Number.parseInt(digits, 10);
}

function cut(s: string, match: RegExpExecArray): string {
  return `${s.slice(0, match.index)} ${s.slice(match.index + match[0].length)}`;
}

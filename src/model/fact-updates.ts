/**
 * Fact updates without an LLM: the embedded model's rule for JOINT-COMPACT's update path. A statement of a new chunk
 * that gives a known kind of fact (employer, home city, car, partner, school, a favourite) about the same subject
 * as a statement of a prior chunk, with another value, retires that prior statement — only that statement: the rest
 * of its chunk is kept. Every decision is explainable: which two statements matched, on which fact, for whom, and
 * with which old and new values.
 *
 * Statements are read as facts by `fact-reading.ts`. A statement that adds rather than replaces ("my daughter also
 * started violin", "I also work at a café on weekends") never retires anything, and a fact about another person (a
 * relative, a named person) only ever meets facts about that same person.
 * @internal
 */

import { factOf, sameValue, type FactSlot } from './fact-reading.js';
import { mapYielding } from '../util/yielding.js';

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
export async function findUpdates(freshText: string, related: readonly { readonly id: string; readonly text: string }[]): Promise<RetiredStatement[]> {
  // Statements are read in slices that yield to the event loop: a large turn holds thousands of them.
  const fresh = (await mapYielding(statementsOf(freshText), (s) => ({ s, f: factOf(s.text) }))).flatMap(({ s, f }) =>
    f === null || f.addition || f.implied === true ? [] : [{ s, f }],
  );
  if (fresh.length === 0) return [];
  const out: RetiredStatement[] = [];
  for (const r of related) {
    for (const { old, o } of await mapYielding(statementsOf(r.text), (old) => ({ old, o: factOf(old.text) }))) {
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

/**
 * The people of a conversation as a question names them. A verbatim chunk's turns open with their speaker
 * (`Audrey: …`); a question that names a speaker ("What did Audrey make …?") asks about what that person said:
 * sentence recall weighs that person's sentences up (sentence-passages.ts) and, in turn, does not score the name as
 * a word of the sentences, where it is mostly someone addressing them ("Thanks, Audrey!"), not evidence.
 * @internal
 */
import { termsOf } from '../model/keywords.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import { splitChunk } from './passages.js';

/** The terms of the speakers of the chunks' turns (chunks not written one line per turn have none). */
export function speakerTermsOf(chunks: readonly Pick<ChunkRecord, 'text' | 'provenance'>[]): Set<string> {
  const terms = new Set<string>();
  for (const chunk of chunks) {
    const split = splitChunk(chunk);
    if (!split.aligned) continue;
    for (const p of split.passages) {
      const colon = p.text.indexOf(': ');
      if (colon > 0) for (const t of termsOf(p.text.slice(0, colon))) terms.add(t);
    }
  }
  return terms;
}

/**
 * The query without the words that name a speaker, for scoring sentences; the query unchanged when it names no
 * speaker or holds nothing else (then the name is all there is to match).
 */
export function withoutSpeakers(
  query: { readonly text: string; readonly keywords: readonly string[] },
  speakers: ReadonlySet<string>,
): { readonly text: string; readonly keywords: readonly string[] } {
  const names = (word: string): boolean => termsOf(word).some((t) => speakers.has(t));
  const words = query.text.split(/\s+/).filter((w) => w !== '');
  const kept = words.filter((w) => !names(w));
  if (kept.length === words.length || kept.every((w) => termsOf(w).length === 0)) return query;
  return { text: kept.join(' '), keywords: query.keywords.filter((k) => !names(k)) };
}

/**
 * The backend benchmark's data: deterministic chunks (text and keywords) per user, and the queries recalls ask.
 * Words come from a fixed pseudo-vocabulary so every backend stores exactly the same bytes.
 */

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'qui', 'bel', 'dor', 'fen', 'gal', 'hum', 'ist', 'jor', 'nel', 'pra'];

/** The vocabulary: 2,000 pseudo-words of 2–3 syllables. */
export const VOCABULARY: readonly string[] = (() => {
  const r = prng(7);
  const words = new Set<string>();
  while (words.size < 2000) {
    const n = 2 + Math.floor(r() * 2);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)]!;
    words.add(w);
  }
  return [...words];
})();

/** A chunk of about `words` words (Zipf-like word choice) and its 8 leading distinct words as keywords. */
export function chunkContent(seed: number, words = 120): { text: string; keywords: string[] } {
  const r = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(VOCABULARY[Math.floor(VOCABULARY.length * r() ** 2)]!);
  const sentences: string[] = [];
  for (let i = 0; i < out.length; i += 12) sentences.push(out.slice(i, i + 12).join(' ') + '.');
  return { text: sentences.join(' '), keywords: [...new Set(out)].slice(0, 8) };
}

/** A recall query: five words of a chunk the user has. */
export function queryFor(seed: number): string {
  return chunkContent(seed).text.split(' ').slice(3, 8).join(' ').replace(/\./g, '');
}

export const userName = (i: number): string => `user${String(i).padStart(3, '0')}`;

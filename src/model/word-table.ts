/**
 * The compact word-vector table the package ships: the embedded model's vocabulary (the most frequent English words)
 * with one 8-bit vector per word, about a twentieth of the size of the source vectors' JSON, read in one piece and
 * decoded word by word as recall looks words up. The layout (all integers little-endian):
 *
 *   magic "AKWV" (4 bytes) · version u16 (1) · dimensions u16 · words u32 · word-list bytes u32
 *   scales: f32 × words — row i's component d is `int8[i][d] · scales[i]`
 *   rows: int8 × words × dimensions, row-major, most frequent word first
 *   word list: UTF-8, the words in row order, each followed by "\n"
 *
 * A row is the source's unit vector divided by its largest absolute component and rounded to −127…127; decoding
 * scales it back and renormalizes it to unit length (a word's cosine to itself stays 1; cosines move by well under
 * 0.01). A word's rank in the source corpus is its row.
 * @internal
 */
import { AkashicError } from '../errors.js';

const MAGIC = 0x56574b41; // "AKWV" read as a little-endian u32
/** The layout above. Never change the meaning of a version: a new layout takes a new number. */
export const WORD_TABLE_VERSION = 1;
const HEADER_BYTES = 16;

/** The source vectors for one word, in rank order; `vector` need not be unit length. */
export interface WordTableRow {
  readonly word: string;
  readonly vector: ArrayLike<number>;
}

/** Encodes rows (most frequent first, no word twice, no word holding "\n") into the table layout. */
export function encodeWordTable(rows: readonly WordTableRow[], dimensions: number): Uint8Array {
  const words = new TextEncoder().encode(rows.map((r) => `${r.word}\n`).join(''));
  const n = rows.length;
  const out = new Uint8Array(HEADER_BYTES + n * 4 + n * dimensions + words.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint16(4, WORD_TABLE_VERSION, true);
  view.setUint16(6, dimensions, true);
  view.setUint32(8, n, true);
  view.setUint32(12, words.length, true);
  const rowsAt = HEADER_BYTES + n * 4;
  for (const [i, row] of rows.entries()) {
    if (row.vector.length !== dimensions) throw new RangeError(`word ${JSON.stringify(row.word)} has ${row.vector.length} components, not ${dimensions}`);
    let max = 0;
    for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(row.vector[d] ?? 0));
    const scale = max === 0 ? 0 : max / 127;
    view.setFloat32(HEADER_BYTES + i * 4, scale, true);
    for (let d = 0; d < dimensions; d++) view.setInt8(rowsAt + i * dimensions + d, scale === 0 ? 0 : Math.round((row.vector[d] ?? 0) / scale));
  }
  out.set(words, rowsAt + n * dimensions);
  return out;
}

/** Unit-length word vectors by word, decoded from a table. */
export class WordTable {
  readonly dimensions: number;
  readonly #index: Map<string, number>;
  readonly #scales: DataView;
  readonly #rows: Int8Array;
  /** Each word's decoded vector, made on its first lookup and then reused (SELECT looks the same words up often). */
  readonly #decoded: (Float32Array | undefined)[];

  /** @throws AkashicError `AKASHIC_CORRUPTION` when `bytes` is not a table of this version. */
  constructor(bytes: Uint8Array) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC) throw corrupt('not a word-vector table');
    if (view.getUint16(4, true) !== WORD_TABLE_VERSION) throw corrupt(`unknown word-vector table version ${view.getUint16(4, true)}`);
    const dimensions = view.getUint16(6, true);
    const n = view.getUint32(8, true);
    const wordBytes = view.getUint32(12, true);
    const rowsAt = HEADER_BYTES + n * 4;
    if (dimensions < 1 || bytes.byteLength !== rowsAt + n * dimensions + wordBytes) throw corrupt('word-vector table has the wrong length');
    const words = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(rowsAt + n * dimensions)).split('\n');
    if (words.length !== n + 1 || words[n] !== '') throw corrupt('word-vector table lists the wrong number of words');
    this.dimensions = dimensions;
    this.#index = new Map();
    for (let i = 0; i < n; i++) this.#index.set(words[i]!, i);
    this.#scales = new DataView(bytes.buffer, bytes.byteOffset + HEADER_BYTES, n * 4);
    this.#rows = new Int8Array(bytes.buffer, bytes.byteOffset + rowsAt, n * dimensions);
    this.#decoded = new Array<Float32Array | undefined>(n);
  }

  get size(): number {
    return this.#index.size;
  }

  rank(word: string): number | undefined {
    return this.#index.get(word);
  }

  /** The unit vector of `word`, or undefined when it is not in the table. Shared: do not modify. */
  vector(word: string): Float32Array | undefined {
    const i = this.#index.get(word);
    if (i === undefined) return undefined;
    let v = this.#decoded[i];
    if (v === undefined) {
      v = this.#decode(i);
      this.#decoded[i] = v;
    }
    return v;
  }

  #decode(i: number): Float32Array {
    const dims = this.dimensions;
    const scale = this.#scales.getFloat32(i * 4, true);
    const v = new Float32Array(dims);
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const x = this.#rows[i * dims + d]! * scale;
      v[d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let d = 0; d < dims; d++) v[d] = v[d]! / norm;
    return v;
  }
}

function corrupt(message: string): AkashicError {
  return new AkashicError('AKASHIC_CORRUPTION', message);
}

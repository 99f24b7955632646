/**
 * The peers of the comparison: the same chunks, one record per chunk, in the layouts agent
 * frameworks use today. They get the trace's writes and serve the same requests; they have no blocks.
 *
 * - `leveldb-naive`: plain classic-level, one key per chunk `user/session/ulid`, value the chunk as JSON, tuned
 *   exactly like the policy stores (no block cache, same memtable size) and read with `fillCache: false`.
 * - `sqlite`: better-sqlite3, one row per chunk, an index on (user, session, ulid), one indexed SELECT per chunk.
 * - `sqlite-fts5`: the same table plus an FTS5 index over the chunk texts; a recall is its own candidate search
 *   (top-p by bm25() among the user's matching chunks) and then the rows (sqlite-fts5-peer.ts).
 *   better-sqlite3 is a devDependency, loaded dynamically: where it is missing the peer is reported unavailable.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClassicLevel } from 'classic-level';
import type { ChunkRef } from '../../api/chunk-input.js';
import { openBenchLevel } from './policy-replayer.js';
import type { TraceWrite } from './trace.js';

export const PEER_NAMES = ['leveldb-naive', 'sqlite', 'sqlite-fts5'] as const;
export type PeerName = (typeof PEER_NAMES)[number];

export interface PeerStore {
  readonly name: PeerName;
  write(ev: TraceWrite): Promise<void>;
  /** Reads the chunks of one request; resolves to how many were found. */
  read(user: string, refs: readonly ChunkRef[]): Promise<number>;
  /** Serves a request end to end, its own candidate search included (only peers that can search). */
  recall?(user: string, query: string, topP: number): Promise<number>;
  /** Empties what the peer keeps in the process (caches, memory maps) before a cold read. */
  forgetCaches(): Promise<void>;
  diskBytes(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Bytes of the regular files under `dir` (recursively). A file deleted between the listing and its `stat` (LevelDB
 * removing a table its background compaction replaced) counts as gone, instead of failing the run.
 */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await dirBytes(p);
    // min(size, allocated): a sparse file (akashic's frame files) counts what the disk holds, other files their size.
    else if (e.isFile()) total += await stat(p).then((st) => Math.min(st.size, st.blocks * 512), (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? 0 : Promise.reject(err)));
  }
  return total;
}

function chunkJson(o: { createdAt: number; text: string; tokenCount: number; keywords: readonly string[]; provenance: readonly string[] }): string {
  return JSON.stringify({ createdAt: o.createdAt, tokenCount: o.tokenCount, keywords: o.keywords, provenance: o.provenance, text: o.text });
}

export class LevelNaivePeer implements PeerStore {
  readonly name = 'leveldb-naive' as const;
  #db: ClassicLevel<string, Buffer>;
  readonly #path: string;
  readonly #writeBufferSize: number;

  private constructor(db: ClassicLevel<string, Buffer>, path: string, writeBufferSize: number) {
    this.#db = db;
    this.#path = path;
    this.#writeBufferSize = writeBufferSize;
  }

  static async open(path: string, writeBufferSize: number): Promise<LevelNaivePeer> {
    const db = openBenchLevel(path, writeBufferSize);
    await db.open();
    return new LevelNaivePeer(db, path, writeBufferSize);
  }

  static key(user: string, sessionId: string, chunkId: string): string {
    return `${user}/${sessionId}/${chunkId}`;
  }

  async write(ev: TraceWrite): Promise<void> {
    await this.#db.batch(
      ev.ops.map((o) =>
        o.op === 'delete'
          ? { type: 'del' as const, key: LevelNaivePeer.key(ev.user, o.sessionId, o.chunkId) }
          : { type: 'put' as const, key: LevelNaivePeer.key(ev.user, o.sessionId, o.chunkId), value: Buffer.from(chunkJson(o)) },
      ),
    );
  }

  async read(user: string, refs: readonly ChunkRef[]): Promise<number> {
    const values = await this.#db.getMany(
      refs.map((r) => LevelNaivePeer.key(user, r.sessionId, r.chunkId)),
      { fillCache: false },
    );
    let found = 0;
    for (const v of values) {
      if (v === undefined) continue;
      JSON.parse(v.toString('utf8'));
      found++;
    }
    return found;
  }

  /** Reopens the database: its table files are memory-mapped, and mapped pages survive a page-cache drop. */
  async forgetCaches(): Promise<void> {
    await this.#db.close();
    const db = openBenchLevel(this.#path, this.#writeBufferSize);
    await db.open();
    this.#db = db;
  }

  diskBytes(): Promise<number> {
    return dirBytes(this.#path);
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}

/** The part of better-sqlite3's API used here (it ships no types and @types is not a dependency). */
export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}
export type SqliteConstructor = new (path: string) => SqliteDatabase;

/** better-sqlite3's constructor, or the reason it cannot be loaded. */
export async function loadSqlite(): Promise<{ ok: true; Database: SqliteConstructor } | { ok: false; reason: string }> {
  // A variable specifier: the module is optional and untyped, so neither tsc nor a bundler should resolve it.
  const specifier = 'better-sqlite3';
  try {
    const mod = (await import(specifier)) as { default: SqliteConstructor };
    // The native addon loads at the first open: one built for another Node version fails only there.
    new mod.default(':memory:').close();
    return { ok: true, Database: mod.default };
  } catch (err) {
    return { ok: false, reason: `better-sqlite3 could not be loaded: ${(err as Error).message.split('\n')[0]}` };
  }
}

/** The chunk table both SQLite peers keep: one row per chunk, unique on (user, session, ulid). */
export const SQLITE_CHUNKS_TABLE = `CREATE TABLE IF NOT EXISTS chunks (
      id INTEGER PRIMARY KEY,
      user TEXT NOT NULL, session TEXT NOT NULL, ulid TEXT NOT NULL,
      created_at INTEGER NOT NULL, token_count INTEGER NOT NULL,
      keywords TEXT NOT NULL, provenance TEXT NOT NULL, text TEXT NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS chunks_key ON chunks (user, session, ulid);`;

/**
 * What the SQLite peers share: one database file `dir/file`, opened with durability relaxed like the other stores
 * (synchronous = OFF), its cache freed before cold reads, its size measured on disk.
 */
export abstract class SqliteFilePeer {
  protected readonly db: SqliteDatabase;
  readonly #dir: string;

  protected constructor(Database: SqliteConstructor, dir: string, file: string) {
    this.db = new Database(join(dir, file));
    this.db.pragma('synchronous = OFF');
    this.#dir = dir;
  }

  /** SQLite keeps pages of earlier reads in its own cache; free them so the next read goes to the file. */
  async forgetCaches(): Promise<void> {
    this.db.pragma('shrink_memory');
  }

  diskBytes(): Promise<number> {
    return dirBytes(this.#dir);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

export class SqlitePeer extends SqliteFilePeer implements PeerStore {
  readonly name = 'sqlite' as const;
  readonly #apply: (ev: TraceWrite) => void;
  readonly #get: SqliteStatement;

  private constructor(Database: SqliteConstructor, dir: string) {
    super(Database, dir, 'chunks.sqlite');
    const db = this.db;
    db.exec(SQLITE_CHUNKS_TABLE);
    const ins = db.prepare('INSERT INTO chunks (user, session, ulid, created_at, token_count, keywords, provenance, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const upd = db.prepare('UPDATE chunks SET token_count = ?, keywords = ?, provenance = ?, text = ? WHERE user = ? AND session = ? AND ulid = ?');
    const del = db.prepare('DELETE FROM chunks WHERE user = ? AND session = ? AND ulid = ?');
    this.#get = db.prepare('SELECT created_at, token_count, keywords, provenance, text FROM chunks WHERE user = ? AND session = ? AND ulid = ?');
    this.#apply = db.transaction((ev: TraceWrite) => {
      for (const o of ev.ops) {
        if (o.op === 'put') ins.run(ev.user, o.sessionId, o.chunkId, o.createdAt, o.tokenCount, JSON.stringify(o.keywords), JSON.stringify(o.provenance), o.text);
        else if (o.op === 'update') upd.run(o.tokenCount, JSON.stringify(o.keywords), JSON.stringify(o.provenance), o.text, ev.user, o.sessionId, o.chunkId);
        else del.run(ev.user, o.sessionId, o.chunkId);
      }
    });
  }

  /** Opens `dir/chunks.sqlite`. */
  static open(Database: SqliteConstructor, dir: string): SqlitePeer {
    return new SqlitePeer(Database, dir);
  }

  async write(ev: TraceWrite): Promise<void> {
    this.#apply(ev);
  }

  async read(user: string, refs: readonly ChunkRef[]): Promise<number> {
    let found = 0;
    for (const r of refs) {
      const row = this.#get.get(user, r.sessionId, r.chunkId) as { keywords: string; provenance: string } | undefined;
      if (row === undefined) continue;
      JSON.parse(row.keywords);
      JSON.parse(row.provenance);
      found++;
    }
    return found;
  }
}

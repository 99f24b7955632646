/**
 * The peer a TypeScript developer would build in an afternoon for agent memory: SQLite (better-sqlite3), one row
 * per chunk, and an FTS5 full-text index over the texts doing the candidate search itself. A recall is one FTS5
 * query (the query's words OR-ed, the user's matches ranked by bm25(), top p) followed by one SELECT per row; a
 * fetch of given chunks is the plain indexed SELECT of the `sqlite` peer.
 */
import type { ChunkRef } from '../../api/chunk-input.js';
import { SQLITE_CHUNKS_TABLE, SqliteFilePeer, type PeerStore, type SqliteConstructor, type SqliteStatement } from './peer-stores.js';
import type { TraceWrite } from './trace.js';

/** At most this many distinct query words go into the MATCH expression (a long turn would otherwise make a huge OR). */
const MAX_QUERY_TERMS = 64;

/** The FTS5 MATCH expression of a free-text query: its distinct words, each quoted, OR-ed; null when it has none. */
export function fts5Query(text: string): string | null {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, MAX_QUERY_TERMS);
  return words.length === 0 ? null : words.map((w) => `"${w}"`).join(' OR ');
}

export class SqliteFts5Peer extends SqliteFilePeer implements PeerStore {
  readonly name = 'sqlite-fts5' as const;
  readonly #apply: (ev: TraceWrite) => void;
  readonly #get: SqliteStatement;
  readonly #row: SqliteStatement;
  readonly #search: SqliteStatement;

  private constructor(Database: SqliteConstructor, dir: string) {
    super(Database, dir, 'chunks-fts.sqlite');
    const db = this.db;
    db.exec(SQLITE_CHUNKS_TABLE);
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, user UNINDEXED, content='chunks', content_rowid='id');`);
    const ins = db.prepare('INSERT INTO chunks (user, session, ulid, created_at, token_count, keywords, provenance, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const insFts = db.prepare('INSERT INTO chunks_fts (rowid, text, user) VALUES (?, ?, ?)');
    const delFts = db.prepare("INSERT INTO chunks_fts (chunks_fts, rowid, text, user) VALUES ('delete', ?, ?, ?)");
    const old = db.prepare('SELECT id, text FROM chunks WHERE user = ? AND session = ? AND ulid = ?');
    const upd = db.prepare('UPDATE chunks SET token_count = ?, keywords = ?, provenance = ?, text = ? WHERE id = ?');
    const del = db.prepare('DELETE FROM chunks WHERE id = ?');
    this.#get = db.prepare('SELECT created_at, token_count, keywords, provenance, text FROM chunks WHERE user = ? AND session = ? AND ulid = ?');
    this.#row = db.prepare('SELECT created_at, token_count, keywords, provenance, text FROM chunks WHERE id = ?');
    this.#search = db.prepare('SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ? AND user = ? ORDER BY bm25(chunks_fts) LIMIT ?');
    this.#apply = db.transaction((ev: TraceWrite) => {
      for (const o of ev.ops) {
        if (o.op === 'put') {
          const r = ins.run(ev.user, o.sessionId, o.chunkId, o.createdAt, o.tokenCount, JSON.stringify(o.keywords), JSON.stringify(o.provenance), o.text) as { lastInsertRowid: number | bigint };
          insFts.run(r.lastInsertRowid, o.text, ev.user);
          continue;
        }
        const before = old.get(ev.user, o.sessionId, o.chunkId) as { id: number; text: string } | undefined;
        if (before === undefined) continue;
        delFts.run(before.id, before.text, ev.user);
        if (o.op === 'update') {
          upd.run(o.tokenCount, JSON.stringify(o.keywords), JSON.stringify(o.provenance), o.text, before.id);
          insFts.run(before.id, o.text, ev.user);
        } else del.run(before.id);
      }
    });
  }

  /** Opens `dir/chunks-fts.sqlite`. */
  static open(Database: SqliteConstructor, dir: string): SqliteFts5Peer {
    return new SqliteFts5Peer(Database, dir);
  }

  async write(ev: TraceWrite): Promise<void> {
    this.#apply(ev);
  }

  async read(user: string, refs: readonly ChunkRef[]): Promise<number> {
    let found = 0;
    for (const r of refs) if (decodeRow(this.#get.get(user, r.sessionId, r.chunkId))) found++;
    return found;
  }

  async recall(user: string, query: string, topP: number): Promise<number> {
    const match = fts5Query(query);
    if (match === null) return 0;
    let found = 0;
    for (const hit of this.#search.all(match, user, topP) as { id: number }[]) if (decodeRow(this.#row.get(hit.id))) found++;
    return found;
  }

}

/** Parses a row as a reader would use it; false when there is none. */
function decodeRow(row: unknown): boolean {
  if (row === undefined) return false;
  const r = row as { keywords: string; provenance: string };
  JSON.parse(r.keywords);
  JSON.parse(r.provenance);
  return true;
}

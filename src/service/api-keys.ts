/**
 * API keys and the tenants they stand for. A key is stored only as the SHA-256 of its text; a request's key is
 * hashed and compared with every stored hash in constant time. Each key is allowed a set of users and/or every
 * user whose id starts with a prefix; an admin key is allowed every user and the service-wide routes (stats,
 * metrics).
 *
 * The key file (or the AKASHIC_API_KEYS environment variable) is JSON:
 *   { "keys": [ { "name": "app-a", "sha256": "<64 hex digits>", "users": ["alice"], "userPrefix": "app-a:" } ] }
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { invalidArgument } from '../errors.js';

/** Who a request acts for, as its key decides. */
export interface Tenant {
  /** The key's name (for logs and metrics; never the key). */
  readonly name: string;
  /** May call the service-wide routes (stats, metrics) and touch every user. */
  readonly admin: boolean;
  /** Whether this tenant may read or change `userId`. */
  allows(userId: string): boolean;
}

/** One entry of the key file. */
export interface ApiKeyEntry {
  readonly name: string;
  /** SHA-256 of the key's UTF-8 text, 64 lowercase or uppercase hex digits. */
  readonly sha256: string;
  readonly users?: readonly string[];
  readonly userPrefix?: string;
  readonly admin?: boolean;
}

/** The tenant of a service without keys: loopback only, every user (the service refuses other hosts then). */
export const OPEN_TENANT: Tenant = { name: 'open', admin: true, allows: () => true };

/** SHA-256 of a key, hex: what a key file stores. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

interface StoredKey {
  readonly hash: Buffer;
  readonly tenant: Tenant;
}

/** The configured keys. Immutable after construction. */
export class ApiKeys {
  readonly #keys: readonly StoredKey[];

  /** @throws AkashicError AKASHIC_INVALID_ARGUMENT naming the bad entry or field (unknown fields included). */
  constructor(entries: readonly ApiKeyEntry[]) {
    if (!Array.isArray(entries)) throw invalidArgument('keys must be an array');
    const names = new Set<string>();
    this.#keys = entries.map((e, i) => {
      const t = checkEntry(e, `keys[${i}]`);
      if (names.has(t.name)) throw invalidArgument(`keys[${i}].name ${JSON.stringify(t.name)} is given twice`);
      names.add(t.name);
      return { hash: Buffer.from(e.sha256.toLowerCase(), 'hex'), tenant: t };
    });
  }

  get size(): number {
    return this.#keys.length;
  }

  /**
   * The tenant of a presented key, or null for an unknown one. Every stored hash is compared (in constant time),
   * so the time taken does not tell which entry matched or how much of a hash did.
   */
  authenticate(key: string): Tenant | null {
    const h = createHash('sha256').update(key, 'utf8').digest();
    let found: Tenant | null = null;
    for (const k of this.#keys) if (timingSafeEqual(k.hash, h) && found === null) found = k.tenant;
    return found;
  }

  /** Parses the JSON text of a key file (`{ "keys": [...] }`). */
  static parse(text: string, source: string): ApiKeys {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw invalidArgument(`${source} is not JSON: ${(err as Error).message}`);
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw invalidArgument(`${source} must be an object { "keys": [...] }`);
    const extra = Object.keys(doc).filter((k) => k !== 'keys');
    if (extra.length > 0) throw invalidArgument(`${source} has unknown field ${JSON.stringify(extra[0])}`);
    return new ApiKeys((doc as { keys?: unknown }).keys as ApiKeyEntry[]);
  }

  /** Reads a key file. */
  static async fromFile(path: string): Promise<ApiKeys> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw invalidArgument(`cannot read the key file ${path}: ${(err as Error).message}`);
    }
    return ApiKeys.parse(text, `key file ${path}`);
  }
}

const ENTRY_FIELDS = new Set(['name', 'sha256', 'users', 'userPrefix', 'admin']);

function checkEntry(e: ApiKeyEntry, what: string): Tenant {
  if (e === null || typeof e !== 'object') throw invalidArgument(`${what} must be an object`);
  for (const k of Object.keys(e)) if (!ENTRY_FIELDS.has(k)) throw invalidArgument(`${what} has unknown field ${JSON.stringify(k)}`);
  if (typeof e.name !== 'string' || e.name === '') throw invalidArgument(`${what}.name must be a non-empty string`);
  if (typeof e.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(e.sha256)) throw invalidArgument(`${what}.sha256 must be 64 hex digits (the SHA-256 of the key)`);
  if (e.users !== undefined && (!Array.isArray(e.users) || e.users.some((u) => typeof u !== 'string' || u === ''))) {
    throw invalidArgument(`${what}.users must be an array of user ids`);
  }
  if (e.userPrefix !== undefined && (typeof e.userPrefix !== 'string' || e.userPrefix === '')) {
    throw invalidArgument(`${what}.userPrefix must be a non-empty string (an empty prefix would allow every user: use admin)`);
  }
  if (e.admin !== undefined && typeof e.admin !== 'boolean') throw invalidArgument(`${what}.admin must be a boolean`);
  const admin = e.admin === true;
  if (!admin && e.users === undefined && e.userPrefix === undefined) throw invalidArgument(`${what} allows no user: give users, userPrefix or admin`);
  const users = new Set(e.users ?? []);
  const prefix = e.userPrefix;
  return {
    name: e.name,
    admin,
    allows: (userId) => admin || users.has(userId) || (prefix !== undefined && userId.startsWith(prefix)),
  };
}

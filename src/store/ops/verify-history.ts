/**
 * `verify()` checks of the expiry index and of history (called by verify.ts, on the same snapshot):
 * - the `ttl` family holds exactly one entry per live chunk that expires, at its expiry (an order-independent key
 *   digest against the directory: O(1) memory);
 * - every kept version decodes, decompresses to the record its key names, and has its age-index entry, and no age
 *   entry is left without its version (digests again); the accounting's history counters equal the sums.
 */
import type { AbstractSnapshot } from 'abstract-level';
import { decodeDirEntry } from '../../record/dir-entry.js';
import { decodeHistoryVersion } from '../../record/history-version.js';
import { historyAgeKey, parseHistoryKey, versionRecord } from '../write/history.js';
import { SEP, expiryKey, parseDirKey } from '../kv/keys.js';
import { resilientEntries } from '../read/resilient-scan.js';
import type { StoreCore } from '../store-core.js';
import { KeySetDigest } from './verify-index.js';

export interface SideProblem {
  readonly kind: 'expiry-index' | 'history';
  readonly message: string;
  readonly key?: string;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export async function verifyExpiryAndHistory(core: StoreCore, snapshot: AbstractSnapshot, add: (p: SideProblem) => void, storage: (what: string) => (err: unknown, after: string | null) => void): Promise<void> {
  const cf = core.cf;
  const at = { snapshot };

  const expected = new KeySetDigest();
  for await (const [k, v] of resilientEntries(cf.dir, at, () => undefined)) {
    const p = parseDirKey(k);
    if (p === null) continue; // reported by the directory pass
    let e;
    try {
      e = decodeDirEntry(v, k, p.sessionId);
    } catch {
      continue;
    }
    if (e.state === 'live' && e.expiresAt !== undefined) expected.add(expiryKey(e.expiresAt, p.userId, p.sessionId, p.chunkId));
  }
  const actual = new KeySetDigest();
  for await (const [k] of resilientEntries(cf.expiry, at, storage('expiry index'))) actual.add(k);
  if (!expected.equals(actual)) {
    add({ kind: 'expiry-index', message: `the expiry index holds ${actual.count} entries; the directory's expiring live chunks imply ${expected.count} (or different keys)` });
  }

  const wantAges = new KeySetDigest();
  const ages = new KeySetDigest();
  let versions = 0;
  let bytes = 0;
  for await (const [k, v] of resilientEntries(cf.history, at, storage('history'))) {
    if (k.startsWith('t' + SEP)) {
      ages.add(k);
      continue;
    }
    const p = parseHistoryKey(k);
    if (p === null) {
      add({ kind: 'history', message: `malformed history key ${JSON.stringify(k)}`, key: k });
      continue;
    }
    try {
      const h = decodeHistoryVersion(v, `history ${JSON.stringify(k)}`);
      if (h.version !== p.version) throw new Error(`history ${JSON.stringify(k)} holds version ${h.version}`);
      await versionRecord(h, p, `history ${JSON.stringify(k)}`);
      wantAges.add(historyAgeKey(h.supersededAt, p.userId, p.sessionId, p.chunkId, p.version));
      versions++;
      bytes += h.recordBytes;
    } catch (err) {
      add({ kind: 'history', message: message(err), key: k });
    }
  }
  if (!wantAges.equals(ages)) {
    add({ kind: 'history', message: `the history age index holds ${ages.count} entries; the kept versions imply ${wantAges.count} (or different keys)` });
  }
  {
    const a = await core.accountingTotals(snapshot);
    if (a.historyVersions !== versions || a.historyBytes !== bytes) {
      add({ kind: 'history', message: `accounting counts ${a.historyVersions} history versions of ${a.historyBytes} bytes; the history family holds ${versions} of ${bytes}` });
    }
  }
}

/**
 * The `ulid` package, required on first use rather than with Akashic: it imports Node's crypto module, which costs
 * about 1.5 MB of resident memory that a process importing Akashic need not pay before it writes or opens a
 * memory. Callers need ids synchronously, hence `require` (the package ships a CommonJS build for Node).
 * @internal
 */
import { createRequire } from 'node:module';
import type * as Ulid from 'ulid';

const requireHere = createRequire(import.meta.url);
let loaded: typeof Ulid | undefined;

/** The package's exports (`ulid`, `monotonicFactory`, `decodeTime`, …), loaded once per process. */
export function ulidModule(): typeof Ulid {
  loaded ??= requireHere('ulid') as typeof Ulid;
  return loaded;
}

/** A fresh ULID (time-ordered, random within a millisecond). */
export function ulid(): string {
  return ulidModule().ulid();
}

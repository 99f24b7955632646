/**
 * zod, loaded on first use. Its import costs tens of milliseconds and about 10 MB, and the engine needs it only to
 * check an LLM's replies and to read LoCoMo files: schemas are built by functions that call `zod()` the first
 * time they are needed, so importing Akashic does not load it.
 * @internal
 */
import { createRequire } from 'node:module';
import type * as Zod from 'zod';

const requireHere = createRequire(import.meta.url);
let loaded: typeof Zod.z | undefined;

/** The `z` namespace (the package's CommonJS build, loaded synchronously once per process). */
export function zod(): typeof Zod.z {
  loaded ??= (requireHere('zod') as typeof Zod).z;
  return loaded;
}

/** A value built on the first call and returned by every later one. */
export function lazily<T>(build: () => T): () => T {
  let value: { readonly v: T } | undefined;
  return () => (value ??= { v: build() }).v;
}

/**
 * What a route of the service is: a schema for its body, the users it touches, and the one library call it makes.
 * The app registers every definition the same way (authenticate, check the users against the key, validate, call,
 * encode, count), so a route file holds nothing but definitions.
 */
import type { z } from '@hono/zod-openapi';
import type { AkashicStore } from '../engine/akashic-store.js';
import type { AkashicMemory } from '../memattention/memory.js';
import type { Tenant } from './api-keys.js';

/** The library objects a route calls. The service owns them for its lifetime. */
export interface ServiceDeps {
  readonly store: AkashicStore;
  readonly memory: AkashicMemory;
}

/**
 * A parsed JSON body: zod types an optional field as `T | undefined`, but JSON has no undefined, so a field is either
 * absent or a value (what `exactOptionalPropertyTypes` library inputs require).
 */
export type JsonInput<T> = T extends readonly (infer U)[]
  ? JsonInput<U>[]
  : T extends object
    ? { [K in keyof T]: JsonInput<Exclude<T[K], undefined>> }
    : T;

export interface RouteDef<S extends z.ZodType = z.ZodType> {
  /** The OpenAPI operationId, e.g. `memoryRecall`. */
  readonly operationId: string;
  readonly path: string;
  /** Default 'post' (a JSON body); 'get' routes take no body. */
  readonly method?: 'post' | 'get';
  readonly tag: 'memory' | 'store';
  readonly summary: string;
  readonly body: S;
  /** Schema of the 200 body (documentation only: responses are the library's own values). */
  readonly response: z.ZodType;
  /** The response is NDJSON, one value per line, from an async iterable `run` returns. */
  readonly stream?: boolean;
  /** Only an admin key may call it (service-wide figures). */
  readonly adminOnly?: boolean;
  /** Every user id the request reads or changes; each must be allowed by the request's key. */
  users(input: JsonInput<z.output<S>>): readonly string[];
  run(input: JsonInput<z.output<S>>, deps: ServiceDeps, tenant: Tenant): Promise<unknown> | AsyncIterable<unknown>;
}

/** Keeps a definition's schema type linked to its callbacks' input type. */
export function defineRoute<S extends z.ZodType>(def: RouteDef<S>): RouteDef {
  return def as unknown as RouteDef;
}

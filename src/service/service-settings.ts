/**
 * The service's defaults and how `--db` names a store: what the CLI needs to describe and start the service or the
 * MCP server, kept apart from the modules that load the service's optional packages.
 */
import { invalidArgument } from '../errors.js';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
/** Room for a chunk at the engine's limits (1 MiB of text, 4 MiB of payload as base64) with its JSON around it. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** `--db` as the store's open options: a URL (scheme://…) names a backend by URL, anything else is a directory. */
export function storeLocation(db: string): { path: string } | { url: string } {
  if (typeof db !== 'string' || db === '') throw invalidArgument('option db must be a non-empty string');
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(db) ? { url: db } : { path: db };
}

/**
 * Where `akashic serve` finds its API keys: a key file, or the AKASHIC_API_KEYS environment variable holding the
 * same JSON. Both at once is refused (which one wins would be a guess).
 */
import { invalidArgument } from '../errors.js';
import { ApiKeys } from './api-keys.js';

export const API_KEYS_ENV = 'AKASHIC_API_KEYS';

/** The configured keys, or null when neither source gives any. */
export async function loadApiKeys(file: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ApiKeys | null> {
  const fromEnv = env[API_KEYS_ENV];
  if (file !== undefined && fromEnv !== undefined && fromEnv !== '') throw invalidArgument(`give keys in --keys or in ${API_KEYS_ENV}, not both`);
  if (file !== undefined) return ApiKeys.fromFile(file);
  if (fromEnv !== undefined && fromEnv !== '') return ApiKeys.parse(fromEnv, API_KEYS_ENV);
  return null;
}

/**
 * The `openai` package is an optional peer dependency: only the OpenAI-compatible clients need it, and the
 * embedded default runs without it. Every client loads it through here, on first use.
 */
import type * as OpenAIModule from 'openai';
import { AkashicError } from '../errors.js';

/** The `openai` module's namespace (its default export is the client class). */
export type OpenAIPackage = typeof OpenAIModule;

let loading: Promise<OpenAIPackage> | null = null;

/**
 * Imports `openai` once per process.
 * @throws AkashicError `AKASHIC_MODEL` naming the package when it is not installed.
 */
export function loadOpenAI(): Promise<OpenAIPackage> {
  loading ??= import('openai').catch((err: unknown) => {
    loading = null;
    if (isMissing(err)) {
      throw new AkashicError('AKASHIC_MODEL', "the OpenAI-compatible client needs the optional package 'openai': npm install openai@^6", { cause: err });
    }
    throw err;
  });
  return loading;
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && /'openai'|"openai"|\bopenai\b/.test(String((err as Error).message));
}

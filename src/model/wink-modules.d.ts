/**
 * Minimal typings for the wink package the embedded model uses (it ships none). Only the members Akashic calls are
 * declared, so a wrong call fails to compile instead of silently typing as `any`.
 *
 * @internal
 */

declare module 'wink-porter2-stemmer' {
  /** Porter2 stem of one lower-case word. */
  function stem(word: string): string;
  export = stem;
}

/**
 * The LevelDB binding, imported on the first open, destroy or repair rather than with the package: loading the
 * native addon costs tens of milliseconds and several megabytes, which a process that only imports Akashic (a
 * CLI printing its help, a program that opens its store later, or one that passes its own `db`) need not pay.
 * @internal
 */
import type { ClassicLevel } from 'classic-level';

let loading: Promise<typeof ClassicLevel> | undefined;

/** The `ClassicLevel` class, loaded once per process. */
export function classicLevel(): Promise<typeof ClassicLevel> {
  loading ??= import('classic-level').then((m) => m.ClassicLevel);
  return loading;
}

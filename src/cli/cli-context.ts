import type { Readable, Writable } from 'node:stream';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { AkashicStore } from '../engine/akashic-store.js';
import { isAkashicError } from '../errors.js';
import { openStoreForTool } from '../admin/open-store.js';

/** Exit statuses of `akashic`. Part of the CLI's contract: scripts branch on them. */
export const EXIT = {
  ok: 0,
  /** The command failed (damage found, bad input file, I/O error). */
  failure: 1,
  /** Bad command line or argument. */
  usage: 2,
  /** The database is locked by another process. */
  locked: 3,
} as const;

/** The streams a run of the CLI uses; tests pass their own. */
export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  /** Progress bars are drawn only on a terminal, so piped output stays quiet and parseable. */
  readonly stderrIsTTY: boolean;
  /** Commands that stream their result to stdout draw no bar when stdout is the same terminal. */
  readonly stdoutIsTTY: boolean;
}

interface CliRun {
  readonly io: CliIo;
  exitCode: number;
}

const runs = new WeakMap<Command, CliRun>();

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent !== null) c = c.parent;
  return c;
}

/** Attaches a run's streams to the root program. @internal (main does this) */
export function bindRun(program: Command, io: CliIo): void {
  runs.set(program, { io, exitCode: EXIT.ok });
}

function runOf(cmd: Command): CliRun {
  const run = runs.get(rootOf(cmd));
  if (run === undefined) throw new TypeError('command is not part of a program built by buildProgram()');
  return run;
}

/** The streams of the run a command belongs to (pass the `Command` an action receives last). */
export function ioOf(cmd: Command): CliIo {
  return runOf(cmd).io;
}

/** Sets the exit status of the run (the action's own outcome, e.g. 1 when verify found damage). */
export function setExitCode(cmd: Command, code: number): void {
  runOf(cmd).exitCode = code;
}

/** @internal */
export function exitCodeOf(program: Command): number {
  return runOf(program).exitCode;
}

/** Adds the `--db DIR|URL` option every store command takes. */
export function dbOption(cmd: Command): Command {
  return cmd.requiredOption('--db <dir|url>', 'database directory, or a Redis URL (redis://host:port, redis+cluster://host:port,host:port)');
}

/** Opens the store at `path`, runs `fn`, and closes it whatever happens. */
export async function withStore<T>(path: string, opts: { readonly readOnly: boolean }, fn: (store: AkashicStore) => Promise<T>): Promise<T> {
  const store = await openStoreForTool(path, opts);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Commander argument parser for a number in (0, 1]. */
export function parseFraction(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > 0 && n <= 1)) throw new InvalidArgumentError('expected a number in (0, 1].');
  return n;
}

/** Commander argument parser for a positive integer. */
export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer.');
  return n;
}

/** Where a user gets LoCoMo, and what runs without it. */
export const LOCOMO_HELP =
  '\n\nLoCoMo is a public benchmark of long multi-session conversations; download its release (locomo10.json)\n' +
  'yourself and pass the file or a folder of such files to --locomo. Nothing is downloaded for you. Without\n' +
  '--locomo, the synthetic generator (--synthetic) makes LoCoMo-shaped conversations locally, deterministically.';

/** A line for the help text: `Example:` and the command. */
export function example(line: string): string {
  return `\nExample:\n  $ ${line}`;
}

/** What the lock error adds for a person: LevelDB lets one process open a database, so reads go through it. */
export const LIVE_DATABASE_HINT =
  'One process at a time opens a database: to read one that a program keeps open, serve it from that program (`akashic serve`) and query the service, or stop the program first';

/**
 * Maps an error that escaped a command to an exit status and a one-line message (none for commander errors,
 * which commander has already printed).
 */
export function describeFailure(err: unknown): { code: number; message: string | null } {
  if (err instanceof CommanderError) return { code: err.exitCode === 0 ? EXIT.ok : EXIT.usage, message: null };
  if (isAkashicError(err, 'AKASHIC_LOCKED')) return { code: EXIT.locked, message: `${err.message} [${err.code}]. ${LIVE_DATABASE_HINT}` };
  if (isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT')) return { code: EXIT.usage, message: err.message };
  if (isAkashicError(err)) return { code: EXIT.failure, message: `${err.message} [${err.code}]` };
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return { code: EXIT.failure, message: typeof code === 'string' ? `${err.message} [${code}]` : err.message };
  }
  return { code: EXIT.failure, message: String(err) };
}

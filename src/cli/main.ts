import { Command } from 'commander';
import { ENGINE_VERSION } from '../api/engine-version.js';
import { EXIT, bindRun, describeFailure, exitCodeOf, type CliIo } from './cli-context.js';
import { COMMANDS } from './commands/index.js';

/** The program with every registered command, writing to `io`. */
export function buildProgram(io: CliIo): Command {
  const program = new Command('akashic')
    .description('Inspect, dump, load, verify and collect garbage in an Akashic database.')
    .version(ENGINE_VERSION)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  bindRun(program, io);
  for (const m of COMMANDS) m.register(program);
  return program;
}

function processIo(): CliIo {
  // A reader that goes away (`akashic dump | head`) is not a failure of ours: end quietly, as SIGPIPE would.
  // Writes are atomic batches and dumps are read-only, so stopping here leaves the database consistent.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
    process.stderr.write(`akashic: cannot write to stdout: ${err.message}\n`);
    process.exit(EXIT.failure);
  });
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, stderrIsTTY: process.stderr.isTTY === true, stdoutIsTTY: process.stdout.isTTY === true };
}

/**
 * Runs the CLI on `argv` (node-style: executable and script first) and resolves to the exit status: 0 ok,
 * 1 failure, 2 usage error, 3 database locked. Does not call process.exit (so output is flushed; bin/akashic.js
 * sets process.exitCode from the result), except that with the default `io` a closed stdout pipe ends the
 * process quietly.
 */
export async function main(argv: readonly string[] = process.argv, io: CliIo = processIo()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv]);
    return exitCodeOf(program);
  } catch (err) {
    const { code, message } = describeFailure(err);
    if (message !== null) io.stderr.write(`akashic: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    return code;
  }
}

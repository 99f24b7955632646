import type { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { LineSink } from '../util/line-sink.js';
import type { CliIo } from './cli-context.js';

/** A progress display; a no-op when stderr is not a terminal. `stop` is idempotent and final. */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

const QUIET: Progress = { update() {}, stop() {} };

/**
 * A cli-progress bar on stderr, only when stderr is a TTY: redirected or piped runs print nothing extra, so
 * their stdout and stderr stay parseable.
 */
export function progressBar(io: CliIo, label: string, opts: { readonly streamsToStdout?: boolean } = {}): Progress {
  if (!io.stderrIsTTY || (opts.streamsToStdout === true && io.stdoutIsTTY)) return QUIET;
  const bar = new cliProgress.SingleBar(
    { stream: io.stderr as NodeJS.WritableStream, format: `${label} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}`, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let state: 'idle' | 'running' | 'stopped' = 'idle';
  return {
    update(done, total) {
      if (state === 'idle') {
        bar.start(total, done);
        state = 'running';
      } else if (state === 'running') {
        bar.setTotal(total);
        bar.update(done);
      }
    },
    stop() {
      if (state === 'running') bar.stop();
      state = 'stopped';
    },
  };
}

/**
 * A sink for a command that prints its result after the work the bar tracks: the bar is stopped (and its line
 * cleared) before the first line is written, so the result never lands inside the bar's line.
 */
export function afterBar(bar: Progress, out: Writable): LineSink {
  return (line) => {
    bar.stop();
    out.write(line + '\n');
  };
}

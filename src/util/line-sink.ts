import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Where a tool writes its output: a stream (each line gets a trailing `\n`) or a callback that receives one line
 * at a time without the newline. Tools never write to process.stdout themselves, so tests pass a callback.
 */
export type LineSink = Writable | ((line: string) => void);

/** Writes lines to a sink, honouring stream back-pressure (awaits 'drain' when the stream buffer is full). */
export interface LineWriter {
  line(text: string): Promise<void>;
}

export function lineWriter(sink: LineSink): LineWriter {
  if (typeof sink === 'function') {
    return {
      line(text) {
        sink(text);
        return Promise.resolve();
      },
    };
  }
  return {
    async line(text) {
      if (!sink.write(text + '\n')) await once(sink, 'drain');
    },
  };
}

/** Writes each line of a multi-line block. */
export async function writeLines(out: LineWriter, lines: readonly string[]): Promise<void> {
  for (const l of lines) await out.line(l);
}

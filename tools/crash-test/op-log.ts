/**
 * The child's operation log: one line per event, each written with one write(2) and fsync'd before the child
 * goes on, so the parent sees exactly what the child knew when it was killed.
 *
 *   R                      the store is open; ops start
 *   S <i>                  op i is about to be issued
 *   A <i> <json>           op i's promise resolved (acknowledged), with what it returned
 *   E <i> <json>           op i's promise rejected: {code, message} (the child stops)
 *   G+ <n>                 background GC pass n started
 *   G- <n> <json>          background GC pass n finished (its report)
 *   GE <n> <json>          background GC pass n failed (the child stops)
 *   F <json>               fault mode: after a storage error, one more write was tried; its outcome {code}
 *                          ("OK" when it was accepted, which is a failure); the child then exits 5
 *   D                      every op acknowledged; the child closed the store and exits 0
 *
 * Ops run one at a time, so at most one op is in flight: the last `S` without its `A`.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { AckResult } from './oracle.js';

export class OpLog {
  readonly #fd: number;

  constructor(path: string) {
    this.#fd = openSync(path, 'a');
  }

  line(text: string): void {
    writeSync(this.#fd, text + '\n');
    fsyncSync(this.#fd);
  }

  close(): void {
    closeSync(this.#fd);
  }
}

export interface ParsedLog {
  readonly ready: boolean;
  readonly done: boolean;
  /** Acknowledged ops in order (op i at index i). */
  readonly acks: AckResult[];
  /** The op started but not acknowledged, if any. */
  readonly inflight: number | null;
  readonly errors: { readonly op: number | null; readonly code: string; readonly message: string }[];
  /** A background compaction was queued or running when the log ends (the kill landed before it committed). */
  readonly compactionPending: boolean;
  /** A background GC pass was running when the log ends. */
  readonly inGcPass: boolean;
  readonly gcPasses: number;
  /** Fault mode: the code the write tried after the storage error got (null: none was tried). */
  readonly probe: string | null;
}

/** Parses a log; a last line without its newline (cut by the kill) is ignored. */
export function parseLog(path: string): ParsedLog {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = '';
  }
  const lines = text.split('\n');
  lines.pop(); // '' after the final newline, or a torn last line
  let ready = false;
  let done = false;
  const acks: AckResult[] = [];
  let started = -1;
  const errors: { op: number | null; code: string; message: string }[] = [];
  let gcOpen = false;
  let gcPasses = 0;
  let probe: string | null = null;
  let backlog = 0;
  for (const l of lines) {
    const sp = l.indexOf(' ');
    const tag = sp < 0 ? l : l.slice(0, sp);
    const rest = sp < 0 ? '' : l.slice(sp + 1);
    const sp2 = rest.indexOf(' ');
    const n = Number(sp2 < 0 ? rest : rest.slice(0, sp2));
    const json = sp2 < 0 ? '' : rest.slice(sp2 + 1);
    switch (tag) {
      case 'R':
        ready = true;
        break;
      case 'D':
        done = true;
        break;
      case 'S':
        if (n !== acks.length) errors.push({ op: n, code: 'LOG', message: `op ${n} started while ${acks.length} ops were acknowledged` });
        started = n;
        break;
      case 'A':
        if (n !== acks.length || n !== started) errors.push({ op: n, code: 'LOG', message: `ack of op ${n} out of order` });
        acks.push(JSON.parse(json) as AckResult);
        break;
      case 'E': {
        const e = JSON.parse(json) as { code: string; message: string };
        errors.push({ op: n, code: e.code, message: e.message });
        break;
      }
      case 'G+':
        gcOpen = true;
        gcPasses++;
        break;
      case 'G-':
        gcOpen = false;
        break;
      case 'GE': {
        gcOpen = false;
        const e = JSON.parse(json) as { code: string; message: string };
        errors.push({ op: null, code: e.code, message: `background GC: ${e.message}` });
        break;
      }
      case 'W':
        backlog = n;
        break;
      case 'F':
        probe = (JSON.parse(rest) as { code: string }).code;
        break;
      default:
        errors.push({ op: null, code: 'LOG', message: `unknown log line ${JSON.stringify(l)}` });
    }
  }
  return { ready, done, acks, inflight: started >= acks.length ? started : null, errors, inGcPass: gcOpen, gcPasses, probe, compactionPending: !done && backlog > 0 };
}

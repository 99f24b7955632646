import type { Command } from 'commander';
import * as bench from './bench.js';
import * as benchServe from './bench-serve.js';
import * as blocks from './blocks.js';
import * as demo from './demo.js';
import * as dump from './dump.js';
import * as evalCommand from './eval.js';
import * as gc from './gc.js';
import * as inspect from './inspect.js';
import * as load from './load.js';
import * as purge from './purge.js';
import * as recall from './recall.js';
import * as report from './report.js';
import * as salvage from './salvage.js';
import * as mcp from './mcp.js';
import * as serve from './serve.js';
import * as stats from './stats.js';
import * as verify from './verify.js';

/**
 * A CLI command module: one file under src/cli/commands/ that adds its subcommand(s) to the program with
 * `program.command(...)` (so they inherit the program's output and error settings), does no work at import
 * time, and keeps its logic in a library function it calls.
 */
export interface CommandModule {
  register(program: Command): void;
}

/**
 * Every command of `akashic`, in help order. The registration point: a new command (`demo`, `eval`, `bench`
 * come from other modules) is a file exporting `register` plus one line here.
 */
export const COMMANDS: readonly CommandModule[] = [demo, recall, inspect, stats, dump, load, blocks, verify, gc, purge, report, salvage, serve, mcp, evalCommand, bench, benchServe];

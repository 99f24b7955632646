/** Tiny local fixtures of the recall-evaluation tests: a hand-built conversation and a CLI harness. */
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { bindRun, describeFailure, exitCodeOf, type CliIo } from '../../src/cli/cli-context.js';
import { register } from '../../src/cli/commands/eval.js';
import type { Conversation, Session } from '../../src/lab/workload/conversation.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2023, 4, 8, 13, 56);

function session(index: number, lines: readonly (readonly [string, string])[]): Session {
  const startedAt = T0 + index * DAY;
  return {
    id: `session_${index}`,
    index,
    startedAt,
    turns: lines.map(([speaker, text], i) => ({ turnId: `D${index}:${i + 1}`, speaker, text, at: startedAt + i * 1000 })),
  };
}

/**
 * Two short sessions (each compacts into one small chunk at its end, far below the gate and the budget) and five
 * questions whose expected counts are known by hand:
 * - q1, q2: single evidence turn, sharing rare words with it: found by both.
 * - q3: two evidence turns in different sessions, both named: found by both.
 * - q4: no evidence: asked, excluded from every ratio.
 * - q5: one evidence turn, but the question shares no word with anything said: found by neither.
 * So, for both methods: 3 of 4 questions with evidence fully found (0.75), 4 of 5 evidence turns (0.8).
 */
export function handBuiltConversation(): Conversation {
  return {
    id: 'hand-1',
    speakers: ['Ana', 'Ben'],
    sessions: [
      session(1, [
        ['Ana', 'I adopted a greyhound named Biscuit last weekend.'],
        ['Ben', 'Lovely! Retired racers make calm companions.'],
      ]),
      session(2, [
        ['Ana', 'My sister Carla plays the cello in Lisbon.'],
        ['Ben', 'Orchestras there must be wonderful.'],
      ]),
    ],
    questions: [
      { question: 'What is the name of the greyhound Ana adopted?', answer: 'Biscuit', evidence: ['D1:1'], category: 4 },
      { question: 'Which instrument does Carla play in Lisbon?', answer: 'cello', evidence: ['D2:1'], category: 4 },
      { question: 'Who owns the greyhound, and where does the cello player live?', answer: 'Ana; Lisbon', evidence: ['D1:1', 'D2:1'], category: 1 },
      { question: 'What did Ben say about Paris?', answer: '', evidence: [], category: 5 },
      { question: 'zzyzx qwv?', answer: 'calm companions', evidence: ['D1:2'], category: 4 },
    ],
  };
}

/** A conversation with one question whose evidence is certainly recalled: one session, one chunk, exact words. */
export function certainConversation(): Conversation {
  const c = handBuiltConversation();
  return { ...c, id: 'hand-2', sessions: [c.sessions[0]!], questions: [c.questions[0]!] };
}

/** The same conversation in LoCoMo's released per-file format, for the `--locomo` path. */
export function asLocomoJson(c: Conversation): unknown {
  const doc: Record<string, unknown> = { sample_id: c.id, speaker_a: c.speakers[0], speaker_b: c.speakers[1] };
  for (const s of c.sessions) {
    doc[`session_${s.index}`] = s.turns.map((t) => ({ speaker: t.speaker, dia_id: t.turnId, text: t.text }));
    doc[`session_${s.index}_date_time`] = `1:56 pm on ${8 + s.index} May, 2023`;
  }
  doc['qa'] = c.questions.map((q) => ({ question: q.question, answer: q.answer, evidence: q.evidence, category: q.category }));
  return doc;
}

export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `akashic <args>` in this process with only the eval command registered on a program configured as
 * `buildProgram` configures it, and captured streams.
 */
export async function runEvalCommand(args: readonly string[]): Promise<CommandRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const io: CliIo = { stdout, stderr, stdin: new PassThrough(), stderrIsTTY: false, stdoutIsTTY: false };
  const program = new Command('akashic')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();
  bindRun(program, io);
  register(program);
  let code: number;
  try {
    await program.parseAsync(['node', 'akashic', ...args]);
    code = exitCodeOf(program);
  } catch (e) {
    const failure = describeFailure(e);
    if (failure.message !== null) io.stderr.write(`akashic: ${failure.message}\n`);
    code = failure.code;
  }
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out, stderr: err };
}

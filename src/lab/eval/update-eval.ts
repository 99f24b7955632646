/**
 * The update evaluation (`akashic eval updates`): replays each scenario of `generateUpdateScenarios` through an
 * `AkashicMemory` at the library defaults (embedded model, offline) and asks its question. An **update** counts
 * when the recalled text holds the new value and not the old one; a **control** counts when the recalled text
 * still holds the original value (nothing retired it). Writes no output: callers print the report.
 *
 * @internal
 */
import { MemoryLevel } from 'memory-level';
import { invalidArgument } from '../../errors.js';
import { AkashicStore } from '../../engine/akashic-store.js';
import { AkashicMemory } from '../../memattention/memory.js';
import { intOption } from '../../memattention/options.js';
import { lineWriter, type LineSink } from '../../util/line-sink.js';
import { generateUpdateScenarios, parseScenarioPhrasings, type ScenarioPhrasings, type ScenarioFact, type ScenarioKind, type UpdateScenario } from '../workload/fact-update-scenarios.js';

export interface UpdateEvalOptions {
  /** Seeds of the scenario sets, each a set of its own. Default [1]. */
  readonly seeds?: readonly number[];
  readonly updatesPerFact?: number;
  readonly controlsPerKind?: number;
  /** Phrasings drawn from instead of the built-in ones (`parseScenarioPhrasings`; checked again here). */
  readonly phrasings?: ScenarioPhrasings;
}

/** One scenario's outcome. */
export interface UpdateOutcome {
  readonly id: string;
  readonly kind: ScenarioKind;
  readonly fact: ScenarioFact;
  /** Update: new value recalled without the old. Control: the original value still recalled. */
  readonly ok: boolean;
  readonly newRecalled: boolean;
  readonly oldRecalled: boolean;
  /** The reasons the final (updating) session's reconciliation gave for what it retired (empty: it retired nothing). */
  readonly reasons: readonly string[];
}

export interface UpdateEvalReport {
  readonly seeds: readonly number[];
  /** Whose phrasings the scenarios use: the generator's, or a phrasing set given to the run (for these facts). */
  readonly phrasings: 'built-in' | { readonly given: readonly ScenarioFact[] };
  readonly scenarios: number;
  readonly updates: number;
  /** Updates whose recall gives the new value without the old one. */
  readonly updatesNewWithoutOld: number;
  readonly updateShare: number | null;
  readonly controls: number;
  /** Controls whose original value is still recalled. */
  readonly controlsRecalled: number;
  readonly controlShare: number | null;
  /** Controls whose final session retired any statement (a wrong retirement, whatever recall then shows). */
  readonly controlsRetiring: number;
  readonly byKind: readonly { readonly kind: ScenarioKind; readonly scenarios: number; readonly ok: number }[];
  readonly byFact: readonly { readonly fact: ScenarioFact; readonly updates: number; readonly ok: number }[];
  readonly outcomes: readonly UpdateOutcome[];
}

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 8);

async function runOne(s: UpdateScenario): Promise<UpdateOutcome> {
  const store = await AkashicStore.open({ db: new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' }), gc: { intervalMs: 0 } });
  const memory = new AkashicMemory(store, { relocateEveryRecalls: 0 });
  try {
    const user = s.speaker.toLowerCase();
    let reasons: string[] = [];
    for (const [i, turns] of s.sessions.entries()) {
      const session = `session_${i + 1}`;
      for (const [k, t] of turns.entries()) await memory.appendTurn({ user, session, role: t.role, text: t.text, at: T0 + i * 7 * DAY + k * 60_000 });
      const { compacted } = await memory.endSession({ user, session });
      if (i === s.sessions.length - 1) reasons = compacted.flatMap((c) => c.reasons.map((r) => r.reason));
    }
    const r = await memory.recall({ user, session: 'question', query: s.question });
    const newValue = s.kind === 'update' ? s.currentValue : null;
    const newRecalled = newValue !== null && r.text.includes(newValue);
    const oldRecalled = r.text.includes(s.oldValue);
    const ok = s.kind === 'update' ? newRecalled && !oldRecalled : oldRecalled;
    return { id: s.id, kind: s.kind, fact: s.fact, ok, newRecalled, oldRecalled, reasons };
  } finally {
    await memory.close();
    await store.close();
  }
}

const share = (n: number, d: number): number | null => (d === 0 ? null : n / d);

/**
 * Generates the scenario sets of `seeds` and replays every scenario into a fresh in-memory store.
 *
 * @example
 * ```ts
 * const r = await evaluateUpdates({ seeds: [2] });
 * console.log(r.updateShare, r.controlShare);
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming a bad option.
 */
export async function evaluateUpdates(options: UpdateEvalOptions = {}): Promise<UpdateEvalReport> {
  if (options === null || typeof options !== 'object') throw invalidArgument('evaluateUpdates options must be an object');
  const seeds = options.seeds ?? [1];
  if (!Array.isArray(seeds) || seeds.length === 0 || !seeds.every((x) => Number.isSafeInteger(x))) throw invalidArgument('option seeds must be a non-empty array of integers');
  const updatesPerFact = intOption('updatesPerFact', options.updatesPerFact, 0, 1000, 8);
  const controlsPerKind = intOption('controlsPerKind', options.controlsPerKind, 0, 1000, 2);
  const known = new Set(['seeds', 'updatesPerFact', 'controlsPerKind', 'phrasings']);
  for (const key of Object.keys(options)) if (!known.has(key)) throw invalidArgument(`unknown evaluateUpdates option ${JSON.stringify(key)}`);
  const phrasings = options.phrasings === undefined ? undefined : parseScenarioPhrasings(options.phrasings);
  const outcomes: UpdateOutcome[] = [];
  for (const seed of seeds)
    for (const s of generateUpdateScenarios({ seed, updatesPerFact, controlsPerKind, ...(phrasings === undefined ? {} : { phrasings }) })) outcomes.push(await runOne(s));
  const updates = outcomes.filter((o) => o.kind === 'update');
  const controls = outcomes.filter((o) => o.kind !== 'update');
  const kinds = [...new Set(outcomes.map((o) => o.kind))];
  const facts = [...new Set(outcomes.map((o) => o.fact))];
  return {
    seeds,
    phrasings: phrasings === undefined ? 'built-in' : { given: Object.keys(phrasings) as ScenarioFact[] },
    scenarios: outcomes.length,
    updates: updates.length,
    updatesNewWithoutOld: updates.filter((o) => o.ok).length,
    updateShare: share(updates.filter((o) => o.ok).length, updates.length),
    controls: controls.length,
    controlsRecalled: controls.filter((o) => o.ok).length,
    controlShare: share(controls.filter((o) => o.ok).length, controls.length),
    controlsRetiring: controls.filter((o) => o.reasons.length > 0).length,
    byKind: kinds.map((kind) => {
      const os = outcomes.filter((o) => o.kind === kind);
      return { kind, scenarios: os.length, ok: os.filter((o) => o.ok).length };
    }),
    byFact: facts.map((fact) => {
      const os = updates.filter((o) => o.fact === fact);
      return { fact, updates: os.length, ok: os.filter((o) => o.ok).length };
    }),
    outcomes,
  };
}

/** The human-readable lines of an update report. */
export function updateReportLines(r: UpdateEvalReport): string[] {
  const pct = (v: number | null): string => (v === null ? 'n/a' : `${(100 * v).toFixed(1)} %`);
  const lines = [
    `fact updates · seeds ${r.seeds.join(', ')} · ${r.scenarios} scenarios (${r.updates} updates, ${r.controls} controls) · ${r.phrasings === 'built-in' ? 'built-in phrasings' : `given phrasings (${r.phrasings.given.join(', ')})`} · embedded model, library defaults`,
    '',
    `updates: new value recalled without the old   ${r.updatesNewWithoutOld}/${r.updates}  ${pct(r.updateShare)}`,
    `controls: original value still recalled       ${r.controlsRecalled}/${r.controls}  ${pct(r.controlShare)}`,
    `controls that retired a statement             ${r.controlsRetiring}`,
    '',
    ...r.byKind.map((k) => `  ${k.kind.padEnd(13)} ${String(k.ok).padStart(4)}/${k.scenarios}`),
    ...r.byFact.map((f) => `  updates of ${f.fact.padEnd(9)} ${String(f.ok).padStart(3)}/${f.updates}`),
  ];
  const example = r.outcomes.find((o) => o.kind === 'update' && o.reasons.length > 0);
  if (example !== undefined) lines.push('', `example reason: ${example.reasons[0]}`);
  return lines;
}

/**
 * `akashic eval updates` as a library call: evaluates and writes the report to `sink` (a table, or one JSON line
 * with `json`).
 */
export async function runUpdateEval(sink: LineSink, options: UpdateEvalOptions & { readonly json?: boolean } = {}): Promise<UpdateEvalReport> {
  const { json, ...rest } = options;
  const report = await evaluateUpdates(rest);
  const out = lineWriter(sink);
  if (json === true) await out.line(JSON.stringify(report));
  else for (const l of updateReportLines(report)) await out.line(l);
  return report;
}

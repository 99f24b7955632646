/**
 * Reads conversations in the released LoCoMo format ("Evaluating Very Long-Term Conversational Memory of LLM
 * Agents", ACL 2024, snap-research/locomo) into {@link Conversation}s.
 *
 * The data is never part of this repository: callers pass the path of their own copy.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type * as z from 'zod';
import { lazily, zod } from '../../util/lazy-zod.js';
import { AkashicError, invalidArgument } from '../../errors.js';
import type { Conversation, Question, Session, Turn } from './conversation.js';
import { parseLocomoDateTime } from './locomo-date.js';

/** Turns of one session are this far apart; LoCoMo records only when a session began. */
const TURN_SPACING_MS = 1000;

const SESSION_KEY = /^session_(\d+)$/;

/** The shapes a LoCoMo file is checked against, built on first use (see `lazy-zod.ts`). */
const schemas = lazily(() => {
  const z = zod();
  /** Scalars some LoCoMo answers are stored as (years, counts); they become text. */
  const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
  const turn = z.looseObject({
    speaker: z.string().min(1),
    dia_id: z.string().min(1),
    text: z.string(),
    blip_caption: z.string().nullish(),
  });
  return {
    turns: z.array(turn),
    question: z.looseObject({
      question: z.string().min(1),
      answer: scalar.optional(),
      adversarial_answer: scalar.optional(),
      evidence: z.array(z.string()),
      category: z.number().int().min(1).max(5),
    }),
    document: z.looseObject({
      sample_id: z.union([z.string().min(1), z.number()]).optional(),
      qa: z.array(z.unknown()),
    }),
    dialogue: z.looseObject({
      speaker_a: z.string().min(1),
      speaker_b: z.string().min(1),
    }),
  };
});

/**
 * Loads LoCoMo conversations from a `.json` file or from every `*.json` file directly inside a folder (sorted by
 * name, numbers in names compared as numbers; other files such as a README are ignored).
 *
 * A file holds one conversation — either flat (`speaker_a`, `session_N`, `qa`, ... at the top) or wrapped as in
 * the official `locomo10.json` (`{sample_id, conversation: {...}, qa}`) — or an array of them. See
 * {@link parseLocomo} for how fields are mapped and what is rejected.
 *
 * @example
 * ```ts
 * const conversations = await loadLocomo('./locomo');
 * const turns = conversations.flatMap((c) => c.sessions.flatMap((s) => s.turns));
 * ```
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` when the path cannot be read, a folder holds no `.json` file, a
 *   file is not JSON or not LoCoMo-shaped, or two conversations share an id. The message names the file and the
 *   offending field.
 */
export async function loadLocomo(path: string): Promise<Conversation[]> {
  if (typeof path !== 'string' || path.length === 0) {
    throw invalidArgument('loadLocomo: path must be a non-empty string');
  }
  const files = await listFiles(path);
  const conversations: Conversation[] = [];
  const owner = new Map<string, string>();
  for (const file of files) {
    for (const conversation of parseLocomo(await readJson(file), file)) {
      const first = owner.get(conversation.id);
      if (first !== undefined) {
        throw invalidArgument(`${file}: conversation id ${JSON.stringify(conversation.id)} is also used by ${first}`);
      }
      owner.set(conversation.id, file);
      conversations.push(conversation);
    }
  }
  return conversations;
}

/**
 * Converts already-parsed LoCoMo JSON (one conversation object or an array of them) into conversations.
 *
 * Mapping:
 * - `id` is `sample_id` when present, otherwise the base name of `source` without `.json` (suffixed `-<n>` for
 *   the n-th element of an array).
 * - Sessions are the `session_N` lists in order of N; `session_N_date_time` keys without a turn list (some files
 *   carry them for sessions that were never released) are ignored.
 * - A turn's text gets ` [shares a photo: <blip_caption>]` appended when the turn shared an image, because the
 *   caption is often what questions ask about.
 * - Turn `at` is the session start plus one second per turn, kept strictly increasing across sessions even if the
 *   source dates were to go backwards.
 * - `answer` numbers become strings; a missing or null answer becomes `""`. `adversarial_answer` is kept as
 *   `adversarialAnswer`.
 * - Evidence ids are repaired where the intent is unambiguous (`"D8:6; D9:17"` is split, `"D:11:26"` becomes
 *   `"D11:26"`) and de-duplicated. Ids that still name no turn move to `missingEvidence`; the question is kept.
 *
 * @param source Names the input in error messages, and supplies the fallback id.
 * @throws AkashicError `AKASHIC_INVALID_ARGUMENT` naming `source` and the field, for: a missing or empty speaker
 *   name, equal speaker names, no `session_N` list, a session without a parseable `session_N_date_time`, a turn
 *   whose speaker is not one of the two, a turn without `dia_id` or `text`, a repeated `dia_id`, a `qa` that is not
 *   a list, a question without text, evidence list or category 1–5.
 */
export function parseLocomo(data: unknown, source: string): Conversation[] {
  if (Array.isArray(data)) {
    return data.map((item, i) => parseOne(item, `${source}[${i}]`, `${fallbackId(source)}-${i + 1}`));
  }
  return [parseOne(data, source, fallbackId(source))];
}

function parseOne(data: unknown, source: string, defaultId: string): Conversation {
  const doc = check(schemas().document, data, source, '');
  // The official release nests the dialogue under `conversation`; the per-file form has it at the top level.
  const nested = isRecord(doc['conversation']);
  const dialogue = check(schemas().dialogue, nested ? doc['conversation'] : doc, source, nested ? 'conversation' : '');
  const prefix = nested ? 'conversation.' : '';
  if (dialogue.speaker_a === dialogue.speaker_b) {
    throw invalidArgument(`${source}: ${prefix}speaker_a and speaker_b are both ${JSON.stringify(dialogue.speaker_a)}`);
  }
  const speakers: [string, string] = [dialogue.speaker_a, dialogue.speaker_b];
  const sessions = parseSessions(dialogue, speakers, source, prefix);
  const turnIds = new Set(sessions.flatMap((s) => s.turns.map((t) => t.turnId)));
  const questions = doc.qa.map((item, i) => parseQuestion(item, turnIds, source, `qa[${i}]`));
  const id = doc.sample_id === undefined ? defaultId : String(doc.sample_id);
  return { id, speakers, sessions, questions };
}

function parseSessions(
  dialogue: Record<string, unknown>,
  speakers: [string, string],
  source: string,
  prefix: string,
): Session[] {
  const indexes = Object.keys(dialogue)
    .flatMap((key) => {
      const m = SESSION_KEY.exec(key);
      return m === null ? [] : [Number.parseInt(m[1] ?? '', 10)];
    })
    .sort((a, b) => a - b);
  if (indexes.length === 0) {
    throw invalidArgument(`${source}: no session_N turn lists found`);
  }

  const sessions: Session[] = [];
  const seen = new Map<string, string>();
  let lastAt = Number.NEGATIVE_INFINITY;
  for (const index of indexes) {
    const key = `session_${index}`;
    const dateKey = `${key}_date_time`;
    const rawDate = dialogue[dateKey];
    if (typeof rawDate !== 'string') {
      throw invalidArgument(`${source}: ${prefix}${dateKey} is missing or not a string`);
    }
    const startedAt = parseLocomoDateTime(rawDate);
    if (startedAt === undefined) {
      throw invalidArgument(`${source}: ${prefix}${dateKey} is not a date: ${JSON.stringify(rawDate)}`);
    }
    const rawTurns = check(schemas().turns, dialogue[key], source, `${prefix}${key}`);
    const turns: Turn[] = rawTurns.map((raw, i) => {
      const where = `${prefix}${key}[${i}]`;
      if (raw.speaker !== speakers[0] && raw.speaker !== speakers[1]) {
        throw invalidArgument(
          `${source}: ${where}.speaker ${JSON.stringify(raw.speaker)} is neither speaker_a nor speaker_b`,
        );
      }
      const earlier = seen.get(raw.dia_id);
      if (earlier !== undefined) {
        throw invalidArgument(`${source}: ${where}.dia_id ${JSON.stringify(raw.dia_id)} repeats ${earlier}`);
      }
      seen.set(raw.dia_id, where);
      const at = Math.max(startedAt + i * TURN_SPACING_MS, lastAt + 1);
      lastAt = at;
      return { turnId: raw.dia_id, speaker: raw.speaker, text: turnText(raw.text, raw.blip_caption), at };
    });
    sessions.push({ id: key, index, startedAt, turns });
  }
  return sessions;
}

function turnText(text: string, caption: string | null | undefined): string {
  const trimmed = caption?.trim() ?? '';
  if (trimmed.length === 0) return text;
  const photo = `[shares a photo: ${trimmed}]`;
  return text.length === 0 ? photo : `${text} ${photo}`;
}

function parseQuestion(item: unknown, turnIds: ReadonlySet<string>, source: string, where: string): Question {
  const raw = check(schemas().question, item, source, where);
  const { evidence, missing } = resolveEvidence(raw.evidence, turnIds);
  const question: Question = {
    question: raw.question,
    answer: raw.answer === undefined || raw.answer === null ? '' : String(raw.answer),
    evidence,
    category: raw.category,
  };
  if (raw.adversarial_answer !== undefined && raw.adversarial_answer !== null) {
    question.adversarialAnswer = String(raw.adversarial_answer);
  }
  if (missing.length > 0) question.missingEvidence = missing;
  return question;
}

/**
 * Keeps what can be matched to a turn and sets the rest aside. Repairs are limited to formatting slips whose
 * meaning is certain; an id that names a turn past the end of a session is not guessed at.
 */
function resolveEvidence(
  raw: readonly string[],
  turnIds: ReadonlySet<string>,
): { evidence: string[]; missing: string[] } {
  const evidence: string[] = [];
  const missing: string[] = [];
  for (const entry of raw) {
    // Several ids packed into one string ("D8:6; D9:17") are an annotation slip.
    for (const piece of entry.split(/[;,\s]+/)) {
      if (piece.length === 0) continue;
      const id = turnIds.has(piece) ? piece : piece.replace(/^D:?0*(\d+):0*(\d+)$/, 'D$1:$2');
      if (!turnIds.has(id)) {
        if (!missing.includes(piece)) missing.push(piece);
      } else if (!evidence.includes(id)) {
        evidence.push(id);
      }
    }
  }
  return { evidence, missing };
}

async function listFiles(path: string): Promise<string[]> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `${path}: no such file or folder (give a LoCoMo .json file, e.g. locomo10.json from the LoCoMo release, or a folder of them)`, { cause: err });
    }
    throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `${path}: cannot read LoCoMo data`, { cause: err });
  }
  if (!isDirectory) return [path];
  const names = (await readdir(path, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.json'))
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (names.length === 0) {
    throw invalidArgument(`${path}: folder holds no .json files`);
  }
  return names.map((name) => join(path, name));
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `${file}: cannot read file`, { cause: err });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `${file}: not valid JSON`, { cause: err });
  }
}

/** Validates `value` and turns the first schema issue into an error that names the file and the field path. */
function check<T extends z.ZodType>(schema: T, value: unknown, source: string, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [where, ...(issue?.path ?? []).map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))]
    .join('')
    .replace(/^\./, '');
  const field = path.length === 0 ? '' : `${path}: `;
  throw new AkashicError('AKASHIC_INVALID_ARGUMENT', `${source}: ${field}${issue?.message ?? 'invalid'}`, {
    cause: result.error,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fallbackId(source: string): string {
  return basename(source).replace(/\.json$/i, '');
}

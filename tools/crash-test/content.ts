/**
 * Deterministic chunk and turn contents of the crash test. A plan carries only small specs (a seed and a size);
 * the child and the oracle both expand them with these functions, so the parent can tell exactly what every
 * chunk and turn must contain without storing texts in the plan or the log.
 */
import { encodeTime } from 'ulid';
import { createPrng } from '../../src/lab/workload/prng.js';

const WORDS = [
  'harbor', 'violet', 'granite', 'lantern', 'meadow', 'quartz', 'saffron', 'tundra', 'willow', 'ember',
  'fjord', 'cobalt', 'juniper', 'marble', 'nectar', 'orchid', 'pepper', 'raven', 'sierra', 'thistle',
  'umber', 'velvet', 'walnut', 'yarrow', 'zephyr', 'basil', 'cedar', 'dune', 'falcon', 'garnet',
];

/** Keywords are drawn from a small set so that GC's affinity grouping has something to group. */
export const KEYWORDS = ['tea', 'travel', 'work', 'family', 'music', 'health', 'books', 'garden'];

/** The text part of a chunk: a unique tag (which op wrote it) and seeded words. */
export interface TextSpec {
  readonly tag: string;
  readonly seed: number;
  readonly words: number;
  readonly kw: readonly string[];
}

/** Everything a put or restore gives a chunk. An update replaces the TextSpec part only. */
export interface ContentSpec extends TextSpec {
  /** Payload bytes (0: none), drawn from their own seed: an update replaces the text, not the payload. */
  readonly payload: number;
  readonly payloadSeed: number;
  readonly kind: 'memory' | 'note' | 'summary';
}

function words(seed: number, n: number): string {
  const rng = createPrng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

/** The chunk text of a spec. Starts with the tag, so every written text is unique. */
export function textOf(t: TextSpec): string {
  return `${t.tag} ${words(t.seed, t.words)}`;
}

/**
 * The agent/run scope and expiry of a chunk, derived from its payload seed (which an update keeps), so the child
 * writes them and the oracle expects them without the plan carrying them. The expiry is far in the future: the
 * crash test checks that it is stored and indexed consistently, not that it fires.
 */
export function scopeOf(c: ContentSpec): { agentId?: string; runId?: string; expiresAt?: number } {
  const s = Math.abs(c.payloadSeed);
  const agent = ['planner', 'coder', null][s % 3];
  const run = ['r1', null][(s >> 2) % 2];
  return {
    ...(agent == null ? {} : { agentId: agent }),
    ...(run == null ? {} : { runId: run }),
    ...(s % 5 === 0 ? { expiresAt: 4_102_444_800_000 } : {}),
  };
}

export function payloadOf(c: ContentSpec): Uint8Array | null {
  if (c.payload === 0) return null;
  const rng = createPrng(c.payloadSeed);
  const out = new Uint8Array(c.payload);
  for (let i = 0; i < out.length; i++) out[i] = rng.int(0, 255);
  return out;
}

/** One conversation turn of the plan: the text is `<turnId> <words>`, unique because turn ids are. */
export interface TurnSpec {
  readonly turnId: string;
  readonly role: 'user' | 'assistant';
  readonly seed: number;
  readonly words: number;
}

/**
 * The agent/run scope of a turn, derived from its seed so the plan need not carry it: half the turns have none,
 * the others belong to one of three scopes, which MemAttention compacts separately.
 */
export function turnScopeOf(t: TurnSpec): { agentId?: string; runId?: string } {
  const s = Math.abs(t.seed);
  const agent = [null, null, 'planner', 'coder'][s % 4];
  if (agent == null) return {};
  return agent === 'planner' && (s >> 3) % 2 === 0 ? { agentId: agent, runId: 'r1' } : { agentId: agent };
}

/** The scope as one comparable string (`agent|run`, empty parts when absent). */
export function scopeKey(s: { readonly agentId?: string | undefined; readonly runId?: string | undefined }): string {
  return `${s.agentId ?? ''}|${s.runId ?? ''}`;
}

export function turnText(t: TurnSpec): string {
  return `${t.turnId} ${words(t.seed, t.words)}`;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A valid ULID chosen by the plan (so the oracle knows the id before the op runs). */
export function planUlid(cycle: number, index: number, seed: number): string {
  const rng = createPrng(seed);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[rng.int(0, 31)];
  return encodeTime(1_700_000_000_000 + cycle * 100_000 + index, 10) + rand;
}

/**
 * Questions for a synthetic conversation, derived from the facts its turns stated. Because every fact records the
 * turn that stated it, evidence is exact by construction.
 *
 * @internal
 */
import { QUESTION_CATEGORY, type Question } from './conversation.js';
import type { Prng } from './prng.js';
import type { TopicSpec } from './synthetic-topics.js';

/** A fact as stated (introduced, changed or added) in one turn. Mentions are not recorded: they are not evidence. */
export interface StatedFact {
  value: string;
  detail: string;
  turnId: string;
  /** Start of the session the fact was stated in; temporal answers are that day. */
  sessionStartedAt: number;
}

/** One topic of one conversation with the facts stated about it, oldest first. */
export interface TopicRecord {
  spec: TopicSpec;
  ownerName: string;
  facts: readonly StatedFact[];
}

/** LoCoMo's mix of the three categories the generator produces (563 : 214 : 192 in the released data). */
const CATEGORY_WEIGHTS: readonly (readonly [number, number])[] = [
  [QUESTION_CATEGORY.singleHop, 0.58],
  [QUESTION_CATEGORY.temporal, 0.22],
  [QUESTION_CATEGORY.multiHop, 0.2],
];

/** LoCoMo's evidence lists rarely exceed four turns; longer lists would make recall@k meaningless for small k. */
const MAX_EVIDENCE = 4;

const NUMBER_WORDS: readonly string[] = ['zero', 'one', 'two', 'three', 'four'];

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
  'October', 'November', 'December'];

/**
 * Draws up to `count` distinct questions over `topics` in LoCoMo's category proportions (largest-remainder quotas);
 * a category short of candidates passes its share to the others. Fewer come back only when the conversation
 * states too few facts (very short runs). With `who` (a group chat), "who did it?" questions, answered by the
 * owner's name, join the single-hop candidates.
 */
export function buildQuestions(rng: Prng, topics: readonly TopicRecord[], count: number, options: { readonly who?: boolean } = {}): Question[] {
  const pools = new Map<number, Question[]>(CATEGORY_WEIGHTS.map(([category]) => [category, []]));
  for (const topic of topics) collectCandidates(topic, pools);
  if (options.who === true) for (const topic of topics) collectWhoCandidates(topic, topics, pools);

  const quotas = new Map<number, number>();
  let wanted = count;
  let open = CATEGORY_WEIGHTS.filter(([category]) => (pools.get(category)?.length ?? 0) > 0);
  while (wanted > 0 && open.length > 0) {
    const total = open.reduce((sum, [, weight]) => sum + weight, 0);
    const shares = open.map(([category, weight]) => ({ category, exact: (wanted * weight) / total }));
    const floors = shares.map((share) => Math.floor(share.exact));
    let left = wanted - floors.reduce((a, b) => a + b, 0);
    // Largest remainder first; ties go to the category listed first.
    const order = shares.map((_, i) => i).sort((a, b) => {
      const ra = (shares[a]?.exact ?? 0) - (floors[a] ?? 0);
      const rb = (shares[b]?.exact ?? 0) - (floors[b] ?? 0);
      return rb - ra || a - b;
    });
    for (const i of order) {
      if (left === 0) break;
      floors[i] = (floors[i] ?? 0) + 1;
      left--;
    }
    shares.forEach(({ category }, i) => {
      const room = (pools.get(category)?.length ?? 0) - (quotas.get(category) ?? 0);
      const take = Math.min(room, floors[i] ?? 0);
      quotas.set(category, (quotas.get(category) ?? 0) + take);
      wanted -= take;
    });
    open = open.filter(([category]) => (pools.get(category)?.length ?? 0) > (quotas.get(category) ?? 0));
  }

  const questions: Question[] = [];
  for (const [category, pool] of pools) {
    questions.push(...rng.shuffle(pool).slice(0, quotas.get(category) ?? 0));
  }
  return rng.shuffle(questions);
}

function collectCandidates(topic: TopicRecord, pools: Map<number, Question[]>): void {
  const { spec, ownerName: o, facts } = topic;
  const last = facts[facts.length - 1];
  if (last === undefined) return;
  const add = (category: number, text: string, answer: string, evidence: readonly StatedFact[]): void => {
    pools.get(category)?.push({ question: text, answer, evidence: evidence.map((f) => f.turnId), category });
  };
  const q = spec.questions;

  for (const single of q.single) {
    const keyOf = (f: StatedFact): string => (single.answer === 'value' ? f.detail : f.value);
    for (const fact of single.current === true ? [last] : facts) {
      // A question keyed by a detail two items share ("hiked with Rosa" twice) has two right answers; skip it.
      if (single.current !== true && facts.filter((f) => keyOf(f) === keyOf(fact)).length > 1) continue;
      const answer = single.answer === 'value' ? fact.value : fact.detail;
      add(QUESTION_CATEGORY.singleHop, fill(single.text, { o, v: fact.value, d: fact.detail }), answer, [fact]);
    }
  }

  for (const fact of facts) {
    const text = fill(q.temporal, { o, v: fact.value, d: fact.detail });
    add(QUESTION_CATEGORY.temporal, text, formatDay(fact.sessionStartedAt), [fact]);
  }

  const addList = (template: string | undefined, subset: readonly StatedFact[]): void => {
    if (template === undefined) return;
    const text = fill(template, { o, k: NUMBER_WORDS[subset.length] ?? String(subset.length) });
    add(QUESTION_CATEGORY.multiHop, text, subset.map((f) => f.value).join(', '), subset);
  };
  const n = facts.length;
  if (n >= 2 && n <= MAX_EVIDENCE) addList(q.list, facts);
  for (let k = 2; k <= Math.min(MAX_EVIDENCE, n - 1); k++) {
    addList(q.first, facts.slice(0, k));
    addList(q.latest, facts.slice(n - k));
  }
  if (q.before !== undefined) {
    for (let i = 1; i < n; i++) {
      const previous = facts[i - 1];
      const current = facts[i];
      if (previous === undefined || current === undefined) continue;
      add(QUESTION_CATEGORY.multiHop, fill(q.before, { o, v: current.value }), previous.value, [previous, current]);
    }
  }
}

/**
 * "Who moved to Lisbon?": one question per fact whose value no other fact of the conversation shares (two people
 * who both moved to the same town would make it ambiguous), evidence the turn that stated it.
 */
function collectWhoCandidates(topic: TopicRecord, all: readonly TopicRecord[], pools: Map<number, Question[]>): void {
  for (const fact of topic.facts) {
    const sharing = all.reduce((n, t) => n + t.facts.filter((f) => f.value === fact.value).length, 0);
    if (sharing > 1) continue;
    pools.get(QUESTION_CATEGORY.singleHop)?.push({
      question: fill(topic.spec.questions.who, { v: fact.value, d: fact.detail }),
      answer: topic.ownerName,
      evidence: [fact.turnId],
      category: QUESTION_CATEGORY.singleHop,
    });
  }
}

/** The day in LoCoMo's answer style, e.g. "8 May 2023" (UTC, like the session times). */
export function formatDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTH_NAMES[d.getUTCMonth()] ?? ''} ${d.getUTCFullYear()}`;
}

/**
 * Replaces `{name}` placeholders. A placeholder without a value is a bug in a template, not bad input, so it
 * throws instead of leaking braces into the workload.
 */
export function fill(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`synthetic template needs {${name}}: ${template}`);
    return value;
  });
}

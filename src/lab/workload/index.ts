/**
 * Workloads for the demo, the recall evaluation and the benchmarks: LoCoMo conversations read from the user's own
 * copy, and a seeded generator of LoCoMo-shaped conversations at any scale.
 */
export { QUESTION_CATEGORY } from './conversation.js';
export type { Conversation, Question, QuestionCategory, Session, Turn } from './conversation.js';
export { loadLocomo, parseLocomo } from './locomo-loader.js';
export { parseLocomoDateTime } from './locomo-date.js';
export { createPrng, deriveSeed } from './prng.js';
export type { Prng } from './prng.js';
export {
  SYNTHETIC_DEFAULTS,
  generateSynthetic,
  iterateSynthetic,
  resolveSyntheticOptions,
  syntheticConversation,
} from './synthetic.js';
export type { ResolvedSyntheticOptions, SyntheticOptions } from './synthetic.js';
export { SYNTHETIC_STYLES } from './synthetic-styles.js';
export type { SyntheticStyle } from './synthetic-styles.js';
export { PHRASING_LISTS, SCENARIO_KINDS, generateUpdateScenarios, loadScenarioPhrasings, parseScenarioPhrasings } from './fact-update-scenarios.js';
export type { PhrasingList, ScenarioFact, ScenarioKind, ScenarioOptions, ScenarioPhrasings, ScenarioTurn, UpdateScenario } from './fact-update-scenarios.js';

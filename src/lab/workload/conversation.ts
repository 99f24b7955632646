/**
 * The shape every workload source produces: the LoCoMo loader, the synthetic generator, and anything the demo, the
 * recall evaluation or the benchmarks feed to the engine. It mirrors LoCoMo's released format closely enough that a
 * question's `evidence` can be checked against the turn ids of its conversation.
 */

/**
 * Question categories as LoCoMo numbers them. The numbers are LoCoMo's, not ours: results are compared with the
 * paper's tables, so they must never be renumbered.
 */
export const QUESTION_CATEGORY = {
  /** The answer needs facts from several turns, usually in different sessions. */
  multiHop: 1,
  /** The answer is a date or depends on the order of events. */
  temporal: 2,
  /** The answer needs world knowledge beyond the conversation. */
  openDomain: 3,
  /** The answer is in one turn (sometimes repeated in a second). */
  singleHop: 4,
  /** The question asks about something never said; the right reply is that it was not mentioned. */
  adversarial: 5,
} as const;

/** One of the values of {@link QUESTION_CATEGORY}. */
export type QuestionCategory = (typeof QUESTION_CATEGORY)[keyof typeof QUESTION_CATEGORY];

/** One utterance of one speaker. */
export interface Turn {
  /**
   * Unique within its conversation; LoCoMo's `dia_id` format `D<session>:<turn>`, e.g. `"D3:5"` is turn 5 of the
   * session `D3`. Question evidence refers to these ids.
   */
  turnId: string;
  /** One of the conversation's `speakers`. */
  speaker: string;
  /** What was said, as plain text. */
  text: string;
  /**
   * When it was said, ms since the epoch (UTC). Strictly increasing through the whole conversation, so sorting by
   * `at` restores the conversation's order.
   */
  at: number;
}

/** A sitting of the speakers: a run of turns that happened together. */
export interface Session {
  /** `"session_<index>"`, as LoCoMo names its keys. */
  id: string;
  /** 1-based position of the session in the conversation (LoCoMo's `N` of `session_N`). */
  index: number;
  /** When the session began, ms since the epoch (UTC). */
  startedAt: number;
  /** In the order they were said. */
  turns: Turn[];
}

/** A question about a conversation, with the turns that hold its answer. */
export interface Question {
  question: string;
  /**
   * The reference answer as text (numbers in the source become their decimal string). Empty when the source has
   * no answer, as for most LoCoMo adversarial questions.
   */
  answer: string;
  /** Ids of turns that hold the answer; every id names a turn of the same conversation. May be empty. */
  evidence: string[];
  /** A LoCoMo category number, see {@link QUESTION_CATEGORY}. */
  category: number;
  /**
   * The plausible-but-wrong answer LoCoMo gives for adversarial questions (category 5). A reply matching it means
   * the system was fooled. Absent when the source has none.
   */
  adversarialAnswer?: string;
  /**
   * Evidence ids from the source that name no turn of the conversation (annotation errors). They are kept here,
   * out of `evidence`, so recall metrics never look for turns that do not exist and the loss stays visible.
   * Absent when every id resolved.
   */
  missingEvidence?: string[];
}

/** A long-term, multi-session dialogue between two or more speakers, with questions about it. */
export interface Conversation {
  /** Unique among the conversations of one load or one generator run. */
  id: string;
  /**
   * The speakers, in LoCoMo's `speaker_a`, `speaker_b` order; a group chat (a synthetic style) has three or more.
   */
  speakers: [string, string, ...string[]];
  /** In order of `index`. */
  sessions: Session[];
  questions: Question[];
}

import type { AkashicMemory, RecallResult } from '../../memattention/index.js';
import type { Conversation, Question } from '../workload/conversation.js';

/** What happened when one question was asked during a replay. */
export interface AskedQuestion {
  readonly conversationId: string;
  readonly question: Question;
  readonly recall: RecallResult;
  /** Evidence turn ids carried by the recalled passages or in the returned active turns. */
  readonly evidenceFound: readonly string[];
}

export interface ReplayOptions {
  /** Recall scope of the questions. Default 'user': LoCoMo questions span sessions. */
  readonly scope?: 'session' | 'user';
  readonly topP?: number;
  readonly memoryBudgetTokens?: number;
  /** Called for every question, right after its recall. */
  readonly onQuestion?: (q: AskedQuestion) => void | Promise<void>;
  /** Called after each session ends (its partial active chunk compacted). */
  readonly onSessionEnd?: (sessionIndex: number) => void | Promise<void>;
}

/**
 * Replays one conversation through MemAttention as an agent would: each conversation is a user, each session a
 * session, each turn an `appendTurn` (the gate compacts on the way), each session closed by `endSession`.
 * A question is asked as soon as the session holding its last evidence turn has ended, so questions interleave
 * with ingestion; questions without evidence are asked at the end.
 */
export async function replayConversation(memory: AkashicMemory, conv: Conversation, opts: ReplayOptions = {}): Promise<AskedQuestion[]> {
  const sessionOfTurn = new Map<string, number>();
  for (const s of conv.sessions) for (const t of s.turns) sessionOfTurn.set(t.turnId, s.index);
  const due = new Map<number, Question[]>();
  const last = conv.sessions.length === 0 ? 0 : conv.sessions[conv.sessions.length - 1]!.index;
  for (const q of conv.questions) {
    const at = q.evidence.length === 0 ? last : Math.max(...q.evidence.map((e) => sessionOfTurn.get(e) ?? last));
    due.set(at, [...(due.get(at) ?? []), q]);
  }
  const asked: AskedQuestion[] = [];
  const user = conv.id;
  for (const s of conv.sessions) {
    for (const t of s.turns) {
      await memory.appendTurn({ user, session: s.id, role: t.speaker, text: t.text, at: t.at, turnId: t.turnId });
    }
    await memory.endSession({ user, session: s.id });
    await opts.onSessionEnd?.(s.index);
    for (const q of due.get(s.index) ?? []) {
      const recall = await memory.recall({
        user,
        session: s.id,
        query: q.question,
        scope: opts.scope ?? 'user',
        ...(opts.topP === undefined ? {} : { topP: opts.topP }),
        ...(opts.memoryBudgetTokens === undefined ? {} : { memoryBudgetTokens: opts.memoryBudgetTokens }),
      });
      const seen = new Set<string>();
      for (const p of recall.passages) for (const t of p.turnIds) seen.add(t);
      for (const t of recall.activeTurns) seen.add(t.turnId);
      const a: AskedQuestion = { conversationId: conv.id, question: q, recall, evidenceFound: q.evidence.filter((e) => seen.has(e)) };
      asked.push(a);
      await opts.onQuestion?.(a);
    }
  }
  return asked;
}

import type { AkashicStore } from '../../engine/akashic-store.js';
import { AkashicMemory } from '../../memattention/index.js';
import type { LineWriter } from '../../util/line-sink.js';

const DAY = 86_400_000;
/** The first session's day; the others follow a week apart. */
const START = Date.UTC(2024, 2, 4, 18, 0);

/** Three evenings of one person talking with an assistant; the second fact of the first evening changes later. */
const SESSIONS: readonly (readonly [string, string][])[] = [
  [
    ['Maya', 'Long day today. The train was packed again.'],
    ['assistant', 'That sounds tiring. How was work?'],
    ['Maya', 'Busy. I work at Acme as a data engineer, and we ship a release on Friday.'],
    ['assistant', 'Good luck with the release!'],
    ['Maya', 'My sister Lena lives in Porto, she wants me to visit in May.'],
    ['assistant', 'Porto in May is lovely.'],
  ],
  [
    ['Maya', 'I finally signed up for cello lessons on Tuesday evenings.'],
    ['assistant', 'How exciting. Is it your first string instrument?'],
    ['Maya', 'Yes. My teacher says my bowing is too stiff.'],
    ['assistant', 'That loosens up with practice.'],
  ],
  [
    ['Maya', 'Big news: I started at Globex last week, the team is great.'],
    ['assistant', 'Congratulations on the new job!'],
    ['Maya', 'Thanks. The office is near the river, so I walk to work now.'],
    ['assistant', 'A walk beats a packed train.'],
  ],
];

const QUESTIONS = ['Where does Maya work now?', 'Where does her sister live?', 'What instrument is Maya learning?'];

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The demo's first part: a short conversation stored through MemAttention, then questions asked from a new
 * session, each with the passages memory would put in the prompt (date and score), and the fact that changed shown
 * as changed (the reconciliation's reason, and the old statement kept in history, not in recall).
 */
export async function runMemoryDemo(store: AkashicStore, out: LineWriter): Promise<void> {
  const memory = new AkashicMemory(store, { relocateEveryRecalls: 0 });
  const user = 'maya';
  try {
    await out.line(`What memory does: three evenings of one conversation (user "${user}"), stored and recalled offline`);
    const changes: string[] = [];
    for (const [i, turns] of SESSIONS.entries()) {
      const session = `evening-${i + 1}`;
      const at = START + i * 7 * DAY;
      for (const [k, [role, text]] of turns.entries()) await memory.appendTurn({ user, session, role, text, at: at + k * 60_000 });
      const ended = await memory.endSession({ user, session });
      const reasons = ended.compacted.flatMap((c) => c.reasons.map((r) => r.reason));
      changes.push(...reasons);
      await out.line(`  ${day(at)}  ${session}: ${turns.length} turns → ${ended.compacted.length} chunk${ended.compacted.length === 1 ? '' : 's'}${reasons.length > 0 ? `; updated what was said before: ${reasons.join('; ')}` : ''}`);
    }
    for (const q of QUESTIONS) {
      const r = await memory.recall({ user, session: 'evening-4', query: q });
      const best = [...r.passages].sort((a, b) => b.score - a.score).slice(0, 2);
      await out.line(`  Q: ${q}`);
      if (best.length === 0) await out.line('     (nothing recalled)');
      for (const p of best) await out.line(`     [${day(p.createdAt)}, score ${p.score.toFixed(2)}] ${p.text.replace(/\s+/g, ' ').trim()}`);
    }
    if (changes.length > 0) {
      // The retired statement is still in the chunk's history (what was said then), never in a recall.
      const entries = [];
      for await (const e of store.list(user)) entries.push(e);
      for (const e of entries) {
        const h = await memory.history({ user, session: e.sessionId, chunkId: e.chunkId });
        const old = h.find((v) => v.cause === 'update' && v.reason !== null && v.reason !== undefined);
        if (old !== undefined) await out.line(`  changed: the ${day(old.record.createdAt)} version of that chunk is kept in history (${old.reason}), and recall no longer returns it`);
      }
    } else {
      await out.line('  no statement was found to have changed');
    }
  } finally {
    await memory.close();
  }
}

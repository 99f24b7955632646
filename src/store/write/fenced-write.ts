import { AkashicError } from '../../errors.js';
import type { BatchOp } from '../kv/batch-writer.js';
import { isFenceConflict } from '../kv/partition-fencing.js';
import type { TxnContext } from '../txn/txn-state.js';

/**
 * Times a write of one user is staged again after another process changed the user meanwhile (AKASHIC_CONFLICT
 * from the fenced batch), before the conflict is the caller's. Each retry rereads the user's state, so only a user
 * written by other processes without pause exhausts it.
 */
export const MAX_CONFLICT_RETRIES = 16;

/** The most a retry waits (ms): a random wait up to min(this, 2^attempt) spreads processes that keep colliding. */
const MAX_BACKOFF_MS = 64;

/**
 * Runs `attempt` and, on a partitioned backend with fencing, again after each conflict (at most
 * `MAX_CONFLICT_RETRIES` times): before each retry every state this process cached of the user is dropped
 * (`TxnContext.forgetUser`; the block id allocator rereads its own record when the conflict was its). Without
 * fencing nothing can conflict and `attempt` runs once. REQUIRES: the write lock, held across every attempt.
 */
export async function retryOnConflict<T>(ctx: TxnContext, userId: string, attempt: () => Promise<T>): Promise<T> {
  let freshTried = false;
  for (let tries = 0; ; tries++) {
    // Fenced: optimistic. What this process caches of the user is staged on as it is, and the batch's fence (checked
    // inside the atomic commit) rejects it if another process moved the user since: no version read before a write.
    // A user with nothing cached has any leftover caches (open blocks outlive an evicted state) dropped first; so
    // has a user whose cached state was read while its partition was empty (its '0' repeats: `UserStates.cached`).
    if (ctx.users.fenced && !ctx.users.cached(userId)) await ctx.forgetUser(userId);
    try {
      return await attempt();
    } catch (err) {
      if (!ctx.users.fenced) throw err;
      // An error while staging over state another process changed in between (a block it released, counters it
      // moved) is a conflict too: the user moved since the check above.
      if (!isFenceConflict(err) && (await ctx.users.current(userId))) {
        // Damage met while staging over what this process cached of the user, with the user's version unchanged:
        // staged once more from fresh reads with every cache of the user dropped; damage met again is real.
        if (!isCorruption(err) || freshTried) throw err;
        freshTried = true;
      }
      await ctx.forgetUser(userId);
      ctx.users.conflictsRetried++;
      if (tries === MAX_CONFLICT_RETRIES) {
        throw new AkashicError('AKASHIC_CONFLICT', `user ${JSON.stringify(userId)} kept changing under this write (${tries + 1} attempts); nothing of it was applied`, { cause: err });
      }
      // Processes that collided would collide again at once: each waits a random while (exponential, capped).
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** tries)));
    }
  }
}

/** True for AKASHIC_CORRUPTION (damage a read found). */
export function isCorruption(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'AKASHIC_CORRUPTION';
}

/**
 * Writes one batch of the user's partition that carries no accounting (co-access counts, active turns, posting
 * merges): `build` reads what it needs and returns the ops; the batch is fenced at the user's version, and on a
 * conflict `build` runs again over fresh reads. REQUIRES: the write lock.
 */
export function writeUserBatch(ctx: TxnContext, userId: string, build: () => Promise<readonly BatchOp[]>): Promise<void> {
  return retryOnConflict(ctx, userId, async () => {
    const fence = await ctx.users.fence(userId);
    const ops = await build();
    if (ops.length === 0) return;
    ctx.users.bumped(userId, await ctx.writer.write(ops, fence));
  });
}

/**
 * A read spanning several commands on a backend without snapshots is retried while other processes' commits land
 * between its commands, and reports damage only when it fails again with no commit in between.
 */
import { describe, expect, it } from 'vitest';
import { AkashicError } from '../../src/errors.js';
import { MAX_CONSISTENT_READ_ATTEMPTS, readConsistent } from '../../src/store/read/consistent-read.js';

const damage = (): AkashicError => new AkashicError('AKASHIC_CORRUPTION', 'block frame 000000000002.0001 is missing');

describe('readConsistent', () => {
  it('retries a read that met a commit, and returns what the retry read', async () => {
    let version = 10;
    let calls = 0;
    const out = await readConsistent(async () => String(version), 'u', async () => {
      calls++;
      if (calls === 1) {
        version++; // another process committed between two commands of this read
        throw damage();
      }
      return 'whole';
    });
    expect(out).toBe('whole');
    expect(calls).toBe(2);
  });

  it('reports damage that stays with no commit of the user in between', async () => {
    let calls = 0;
    const read = readConsistent(async () => '7', 'u', async () => {
      calls++;
      throw damage();
    });
    await expect(read).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    expect(calls).toBe(2);
  });

  it('gives up after a bounded number of attempts when commits keep landing', async () => {
    let version = 0;
    let calls = 0;
    const read = readConsistent(async () => String(version++), 'u', async () => {
      calls++;
      throw damage();
    });
    await expect(read).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    expect(calls).toBe(MAX_CONSISTENT_READ_ATTEMPTS);
  });

  it('does not retry other errors, nor anything without a version reader (one process, real snapshots)', async () => {
    let calls = 0;
    await expect(
      readConsistent(async () => String(calls), 'u', async () => {
        calls++;
        throw new AkashicError('AKASHIC_IO', 'connection lost');
      }),
    ).rejects.toMatchObject({ code: 'AKASHIC_IO' });
    expect(calls).toBe(1);
    await expect(
      readConsistent(null, 'u', async () => {
        calls++;
        throw damage();
      }),
    ).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    expect(calls).toBe(2);
  });
});

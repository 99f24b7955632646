/**
 * The model-usage rows of an Accounting record: they round-trip, a record written without them (before the field
 * existed) reads as none, adding and taking back rows is exact, and the checks verify runs name bad rows.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeAccounting, emptyAccounting, encodeAccounting } from '../../src/record/accounting.js';
import { addUsageRows, receiptRow, rowTotals, usageRowsProblem, USAGE_CALLS, USAGE_KINDS, type ModelUsageRow } from '../../src/record/model-usage-rows.js';

const figure = fc.integer({ min: 0, max: 2 ** 40 });
const row: fc.Arbitrary<ModelUsageRow> = fc
  .record({ kind: fc.constantFrom(...USAGE_KINDS), call: fc.constantFrom(...USAGE_CALLS), calls: figure, failed: figure, promptTokens: figure, completionTokens: figure, retries: figure, latencyUs: figure })
  .map(({ failed, ...r }) => ({ ...r, failedCalls: Math.min(failed, r.calls) }));
/** Sorted rows without repeats, as a record holds them. */
const rows = fc.array(row, { maxLength: 12 }).map((rs) => addUsageRows([], rs));

describe('model usage in the accounting record', () => {
  it('round-trips with the other counters', () => {
    fc.assert(
      fc.property(rows, figure, (modelUsage, liveBytes) => {
        const a = { ...emptyAccounting(), liveBytes, modelUsage };
        expect(decodeAccounting(encodeAccounting(a), 'test')).toEqual(a);
        expect(usageRowsProblem(modelUsage)).toBeNull();
      }),
    );
  });

  it('writes a record without usage exactly as before the field existed, and reads it as none', () => {
    const a = { ...emptyAccounting(), chunksWritten: 3 };
    const withUsage = { ...a, modelUsage: [receiptRow('recall', { call: 'select', model: 'm', promptTokens: 5, completionTokens: 1, usageSource: 'server', startedAt: 0, latencyMs: 1.25, retries: 0, ok: true })] };
    const plain = encodeAccounting(a);
    expect(decodeAccounting(plain, 'test').modelUsage).toEqual([]);
    expect(encodeAccounting(withUsage).length).toBeGreaterThan(plain.length);
    expect(decodeAccounting(encodeAccounting(withUsage), 'test').modelUsage).toEqual([
      { kind: 'recall', call: 'select', calls: 1, failedCalls: 0, promptTokens: 5, completionTokens: 1, retries: 0, latencyUs: 1250 },
    ]);
  });

  it('adds and takes back exactly, order-independently', () => {
    fc.assert(
      fc.property(rows, rows, (a, b) => {
        const sum = addUsageRows(a, b);
        expect(sum).toEqual(addUsageRows(b, a));
        expect(addUsageRows(sum, b, -1)).toEqual(a);
        expect(rowTotals(sum).calls).toBe(rowTotals(a).calls + rowTotals(b).calls);
        const us = (rs: readonly ModelUsageRow[]): number => rs.reduce((n, r) => n + r.latencyUs, 0);
        expect(us(sum)).toBe(us(a) + us(b));
      }),
    );
  });

  it('names rows verify must refuse', () => {
    const ok: ModelUsageRow = { kind: 'gc', call: 'group', calls: 2, failedCalls: 1, promptTokens: 0, completionTokens: 0, retries: 0, latencyUs: 10 };
    expect(usageRowsProblem([ok])).toBeNull();
    expect(usageRowsProblem([{ ...ok, kind: 'billing' }])).toMatch(/unknown usage kind "billing"/);
    expect(usageRowsProblem([{ ...ok, call: 'chat' }])).toMatch(/unknown model call "chat"/);
    expect(usageRowsProblem([{ ...ok, failedCalls: 3 }])).toMatch(/3 failed calls of 2/);
    expect(usageRowsProblem([{ ...ok, retries: -1 }])).toMatch(/retries is -1/);
    expect(usageRowsProblem([ok, ok])).toMatch(/out of order or repeated/);
    expect(usageRowsProblem([{ ...ok, kind: 'recall' }, ok])).toMatch(/out of order/);
  });
});

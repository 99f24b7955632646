import { describe, expect, it } from 'vitest';
import { parseLocomoDateTime } from '../../src/lab/workload/locomo-date.js';

describe('parseLocomoDateTime', () => {
  it.each([
    ['1:56 pm on 8 May, 2023', Date.UTC(2023, 4, 8, 13, 56)],
    ['10:04 am on 19 December, 2023', Date.UTC(2023, 11, 19, 10, 4)],
    ['12:19 am on 4 January, 2024', Date.UTC(2024, 0, 4, 0, 19)],
    ['12:05 pm on 1 March, 2023', Date.UTC(2023, 2, 1, 12, 5)],
    ['1:56pm on 8 May 2023', Date.UTC(2023, 4, 8, 13, 56)],
    ['1:56 p.m. on 8 May, 2023', Date.UTC(2023, 4, 8, 13, 56)],
    ['13:56 on 8 May, 2023', Date.UTC(2023, 4, 8, 13, 56)],
    ['May 8, 2023, 1:56 pm', Date.UTC(2023, 4, 8, 13, 56)],
    ['8th Sept 2023', Date.UTC(2023, 8, 8)],
    ['  8 May, 2023  ', Date.UTC(2023, 4, 8)],
    ['2023-05-08', Date.UTC(2023, 4, 8)],
    ['2023-05-08T13:56:00', Date.UTC(2023, 4, 8, 13, 56)],
    ['2023-05-08T13:56:00+02:00', Date.UTC(2023, 4, 8, 11, 56)],
  ])('reads %j as UTC', (text, expected) => {
    expect(parseLocomoDateTime(text)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '1:56 pm on 8 Smarch, 2023',
    '1:56 pm on 31 April, 2023',
    '13:56 pm on 8 May, 2023',
    '1:56 pm on May, 2023',
    '1:56 pm on 8 May',
  ])('rejects %j', (text) => {
    expect(parseLocomoDateTime(text)).toBeUndefined();
  });
});

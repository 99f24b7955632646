import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAkashicError } from '../../src/errors.js';
import { loadLocomo, parseLocomo } from '../../src/lab/workload/locomo-loader.js';

/** A tiny LoCoMo-shaped conversation, invented for these tests. */
function valid(): Record<string, unknown> {
  return {
    speaker_a: 'Ana',
    speaker_b: 'Ben',
    session_1_date_time: '9:00 am on 2 March, 2023',
    session_1: [
      { speaker: 'Ana', dia_id: 'D1:1', text: 'I adopted a parrot called Kiwi.' },
      { speaker: 'Ben', dia_id: 'D1:2', text: 'Look!', blip_caption: 'a photo of a green parrot' },
    ],
    session_2_date_time: '6:30 pm on 9 March, 2023',
    session_2: [{ speaker: 'Ben', dia_id: 'D2:1', text: 'How is Kiwi?' }],
    session_3_date_time: '6:30 pm on 19 March, 2023',
    qa: [
      { question: 'What is the name of Ana\'s parrot?', answer: 'Kiwi', evidence: ['D1:1', 'D7:7'], category: 4 },
      { question: 'How many parrots?', answer: 1, evidence: ['D1:1'], category: 1 },
      { question: 'What is Ben\'s dog called?', adversarial_answer: 'Rex', evidence: [], category: 5 },
    ],
  };
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'akashic-locomo-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAkashicError(err, 'AKASHIC_INVALID_ARGUMENT')).toBe(true);
  return err as Error;
}

describe('loadLocomo on well-formed input', () => {
  it('maps a minimal conversation', async () => {
    const [c] = await loadLocomo(await write('ok.json', valid()));
    expect(c?.id).toBe('ok');
    expect(c?.speakers).toEqual(['Ana', 'Ben']);
    expect(c?.sessions.map((s) => [s.id, s.index, s.turns.length])).toEqual([
      ['session_1', 1, 2],
      ['session_2', 2, 1],
    ]);
    expect(c?.sessions[0]?.turns[1]).toEqual({
      turnId: 'D1:2',
      speaker: 'Ben',
      text: 'Look! [shares a photo: a photo of a green parrot]',
      at: Date.UTC(2023, 2, 2, 9, 0, 1),
    });
    expect(c?.questions).toEqual([
      {
        question: "What is the name of Ana's parrot?",
        answer: 'Kiwi',
        evidence: ['D1:1'],
        category: 4,
        missingEvidence: ['D7:7'],
      },
      { question: 'How many parrots?', answer: '1', evidence: ['D1:1'], category: 1 },
      { question: "What is Ben's dog called?", answer: '', evidence: [], category: 5, adversarialAnswer: 'Rex' },
    ]);
  });

  it('reads the official nested form and arrays of conversations', () => {
    const { speaker_a, speaker_b, qa, ...rest } = valid();
    const nested = { sample_id: 'conv-1', conversation: { speaker_a, speaker_b, ...rest }, qa };
    const out = parseLocomo([nested, { ...valid() }], 'locomo10.json');
    expect(out.map((c) => c.id)).toEqual(['conv-1', 'locomo10-2']);
    expect(out[0]?.sessions).toEqual(out[1]?.sessions);
  });

  it('keeps turn times increasing when a session is dated before the previous one', () => {
    const doc = { ...valid(), session_2_date_time: '9:00 am on 2 March, 2023' };
    const [c] = parseLocomo(doc, 'x.json');
    const times = c?.sessions.flatMap((s) => s.turns.map((t) => t.at)) ?? [];
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
  });

  it('reads only *.json files of a folder, in numeric name order', async () => {
    const folder = join(dir, 'folder');
    await mkdir(folder);
    await writeFile(join(folder, '10.json'), JSON.stringify(valid()));
    await writeFile(join(folder, '9.json'), JSON.stringify(valid()));
    await writeFile(join(folder, 'README.md'), '# not data');
    expect((await loadLocomo(folder)).map((c) => c.id)).toEqual(['9', '10']);
  });
});

describe('loadLocomo on malformed input throws AKASHIC_INVALID_ARGUMENT naming the file and the problem', () => {
  const cases: [string, (doc: Record<string, unknown>) => unknown, RegExp][] = [
    ['a top-level value that is not an object', () => 42, /expected object/],
    ['a missing speaker', (d) => ({ ...d, speaker_b: undefined }), /speaker_b/],
    ['equal speakers', (d) => ({ ...d, speaker_b: 'Ana' }), /speaker_a and speaker_b are both "Ana"/],
    ['no sessions', (d) => ({ speaker_a: d['speaker_a'], speaker_b: d['speaker_b'], qa: [] }), /no session_N/],
    ['a session that is not a list', (d) => ({ ...d, session_2: 'hi' }), /session_2: .*expected array/],
    ['a missing session date', (d) => ({ ...d, session_2_date_time: undefined }), /session_2_date_time is missing/],
    [
      'an unreadable session date',
      (d) => ({ ...d, session_2_date_time: 'soon' }),
      /session_2_date_time is not a date: "soon"/,
    ],
    ['a turn without text', (d) => ({ ...d, session_2: [{ speaker: 'Ben', dia_id: 'D2:1' }] }), /session_2\[0\]\.text/],
    [
      'a turn by a third speaker',
      (d) => ({ ...d, session_2: [{ speaker: 'Cy', dia_id: 'D2:1', text: 'hi' }] }),
      /session_2\[0\]\.speaker "Cy" is neither/,
    ],
    [
      'a repeated dia_id',
      (d) => ({ ...d, session_2: [{ speaker: 'Ben', dia_id: 'D1:1', text: 'hi' }] }),
      /session_2\[0\]\.dia_id "D1:1" repeats session_1\[0\]/,
    ],
    ['a missing qa list', (d) => ({ ...d, qa: undefined }), /qa: .*expected array/],
    [
      'a question without text',
      (d) => ({ ...d, qa: [{ answer: 'x', evidence: [], category: 4 }] }),
      /qa\[0\]\.question/,
    ],
    [
      'a category out of range',
      (d) => ({ ...d, qa: [{ question: 'q', answer: 'x', evidence: [], category: 9 }] }),
      /qa\[0\]\.category/,
    ],
    [
      'evidence that is not a list of strings',
      (d) => ({ ...d, qa: [{ question: 'q', answer: 'x', evidence: 'D1:1', category: 4 }] }),
      /qa\[0\]\.evidence/,
    ],
    [
      'an answer that is an object',
      (d) => ({ ...d, qa: [{ question: 'q', answer: { a: 1 }, evidence: [], category: 4 }] }),
      /qa\[0\]\.answer/,
    ],
  ];

  it.each(cases)('%s', async (name, mutate, message) => {
    const file = `bad-${name.replace(/\W+/g, '-')}.json`;
    const err = await rejection(loadLocomo(await write(file, mutate(valid()))));
    expect(err.message).toContain(file);
    expect(err.message).toMatch(message);
  });

  it('text that is not JSON', async () => {
    const err = await rejection(loadLocomo(await write('broken.json', '{"speaker_a": ')));
    expect(err.message).toMatch(/broken\.json: not valid JSON/);
    expect(err.cause).toBeInstanceOf(SyntaxError);
  });

  it('a path that does not exist', async () => {
    const err = await rejection(loadLocomo(join(dir, 'nope')));
    expect(err.message).toContain('nope');
  });

  it('a folder without .json files', async () => {
    const empty = join(dir, 'empty');
    await mkdir(empty);
    await writeFile(join(empty, 'notes.txt'), 'nothing here');
    const err = await rejection(loadLocomo(empty));
    expect(err.message).toMatch(/holds no \.json files/);
  });

  it('two files with the same conversation id', async () => {
    const folder = join(dir, 'dupes');
    await mkdir(folder);
    await writeFile(join(folder, 'a.json'), JSON.stringify({ ...valid(), sample_id: 'same' }));
    await writeFile(join(folder, 'b.json'), JSON.stringify({ ...valid(), sample_id: 'same' }));
    const err = await rejection(loadLocomo(folder));
    expect(err.message).toMatch(/b\.json: conversation id "same" is also used by .*a\.json/);
  });

  it('an empty path', async () => {
    await rejection(loadLocomo(''));
  });
});

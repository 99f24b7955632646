import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { multiAnswerF1, scoreAnswer, tokenF1 } from '../../src/lab/eval/answer-f1.js';
import { startScriptedChatServer, type ScriptedChatServer } from '../model/scripted-chat-server.js';
import { asLocomoJson, handBuiltConversation, runEvalCommand } from './fixtures.js';

describe('answer F1 (LoCoMo protocol)', () => {
  it('normalizes case, punctuation, articles and word forms', () => {
    expect(tokenF1('The Cello!', 'cello')).toBe(1);
    expect(tokenF1('She adopted greyhounds', 'adopted a greyhound')).toBeCloseTo(0.8, 5);
    expect(tokenF1('', 'x')).toBe(0);
    expect(tokenF1('Paris', 'Lisbon')).toBe(0);
  });
  it('scores multi-hop lists item by item, open-domain on the first alternative, adversarial by "not mentioned"', () => {
    expect(multiAnswerF1('Lisbon, Porto', 'Porto, Lisbon')).toBe(1);
    expect(scoreAnswer(1, 'Lisbon', 'Porto, Lisbon')).toBe(0.5);
    expect(scoreAnswer(3, 'likely yes', 'likely yes; because she likes it')).toBe(1);
    expect(scoreAnswer(5, 'That was not mentioned.', '')).toBe(1);
    expect(scoreAnswer(5, 'In Paris', '')).toBe(0);
  });
});

describe('akashic eval qa (a scripted chat server on 127.0.0.1)', () => {
  let dir: string;
  let file: string;
  let server: ScriptedChatServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-qa-'));
    file = join(dir, 'hand.json');
    await writeFile(file, JSON.stringify(asLocomoJson(handBuiltConversation())));
    server = await startScriptedChatServer();
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());

  it('answers each question from the memory and from BM25 over turns, and reports F1 overall and per category', async () => {
    // Replay order: q1 and q5 after session 1, then q2; for each, the memory's answer first, then the baseline's.
    server.enqueue(
      { kind: 'content', content: 'Biscuit' },
      { kind: 'content', content: 'a dog' },
      { kind: 'content', content: 'calm companions' },
      { kind: 'content', content: 'not mentioned' },
      { kind: 'content', content: 'The cello.' },
      { kind: 'content', content: 'cello' },
    );
    const r = await runEvalCommand(['eval', 'qa', '--locomo', file, '--base-url', server.baseURL, '--model', 'reader-7b', '--limit', '3', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ questions: 3, f1: 1, requests: 6 });
    expect(json['bm25F1']).toBeCloseTo(1 / 3, 10);
    expect(json['byCategory']).toEqual([{ category: 4, name: 'single-hop', questions: 3, f1: 1, bm25F1: 1 / 3 }]);
    expect(server.remaining()).toBe(0);
    // The real protocol: the model named, temperature 0, the recalled memory and the question in the prompt.
    const first = server.requests[0]!.body;
    expect(first.model).toBe('reader-7b');
    expect(first.temperature).toBe(0);
    const prompt = first.messages?.at(-1)?.content ?? '';
    expect(prompt).toContain('Ana: I adopted a greyhound named Biscuit last weekend.');
    expect(prompt).toContain('Question: What is the name of the greyhound Ana adopted?');
    // The baseline's context carries each turn's day.
    expect(server.requests[1]!.body.messages?.at(-1)?.content).toMatch(/\[2023-05-\d\d\] Ana: I adopted a greyhound/);
  });

  it('prints a table without --json', async () => {
    server.enqueue({ kind: 'content', content: 'Biscuit' }, { kind: 'content', content: 'Biscuit' });
    const r = await runEvalCommand(['eval', 'qa', '--locomo', file, '--base-url', server.baseURL, '--model', 'm', '--limit', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^question answering · locomo /);
    expect(r.stdout).toMatch(/all\s+1\s+1\.000\s+1\.000/);
  });

  it('a failing chat server is a clear AKASHIC_MODEL failure (exit 1) after its retries', async () => {
    server.enqueue({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const r = await runEvalCommand(['eval', 'qa', '--locomo', file, '--base-url', server.baseURL, '--model', 'm', '--limit', '1', '--timeout-ms', '2000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/chat model m failed to answer after 3 request\(s\)/);
  }, 30_000);

  it('--base-url and --model are required (usage error)', async () => {
    const r = await runEvalCommand(['eval', 'qa', '--locomo', file, '--model', 'm']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--base-url/);
  });
});

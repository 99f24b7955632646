import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRecallEval } from '../../src/lab/eval/run-recall-eval.js';
import { asLocomoJson, handBuiltConversation, runEvalCommand } from './fixtures.js';

const SMALL = ['--users', '1', '--seed', '5'];

describe('akashic eval recall', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-eval-'));
    file = join(dir, 'hand.json');
    await writeFile(file, JSON.stringify(asLocomoJson(handBuiltConversation())));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('runs through the library function into a sink: one JSON line with the report', async () => {
    const lines: string[] = [];
    const report = await runRecallEval({ kind: 'locomo', path: file }, (l) => lines.push(l), { json: true });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual(JSON.parse(JSON.stringify(report)));
    expect(report).toMatchObject({ questions: 5, evidenceRecallAt5: 0.75, turnRecall: 0.8, bm25EvidenceRecall: 0.75 });
    expect(report.dataset).toBe(`locomo ${file}`);
  });

  it('--locomo --json prints the report object', async () => {
    const r = await runEvalCommand(['eval', 'recall', '--locomo', file, '--json', '--top-p', '3', '--budget', '1000', '--gate', '512']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ questions: 5, evidenceRecallAt5: 0.75, bm25EvidenceRecall: 0.75 });
    expect(json['config']).toMatchObject({ topP: 3, memoryBudgetTokens: 1000, chunkGateTokens: 512 });
  });

  it('without --locomo runs on the synthetic generator and prints a table', async () => {
    const r = await runEvalCommand(['eval', 'recall', ...SMALL]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('recall quality · synthetic users=1');
    expect(r.stdout).toMatch(/^all\s+\d+/m);
    expect(r.stdout).toContain('mean blocks touched');
  });

  it('--style picks the synthetic conversations\' shape; an unknown style or --style with --locomo is a usage error', async () => {
    const r = await runEvalCommand(['eval', 'recall', ...SMALL, '--style', 'diary', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json['dataset']).toContain('style=diary');
    expect(json['questions']).toBeGreaterThan(0);
    const bad = await runEvalCommand(['eval', 'recall', ...SMALL, '--style', 'sonnet']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('sonnet');
    const mixed = await runEvalCommand(['eval', 'recall', '--style', 'assistant', '--locomo', file]);
    expect(mixed.code).toBe(2);
  });

  it('rejects --synthetic together with --locomo as a usage error', async () => {
    const r = await runEvalCommand(['eval', 'recall', '--synthetic', '--locomo', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('a missing LoCoMo path is a usage error naming it', async () => {
    const r = await runEvalCommand(['eval', 'recall', '--locomo', join(dir, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nope');
  });
});

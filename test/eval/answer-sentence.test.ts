import { describe, expect, it } from 'vitest';
import { holdsAnswerSentence } from '../../src/lab/eval/answer-sentence.js';

const TURN = "Hey! How's it going? I adopted a greyhound called Biscuit last week. The weather is awful.";

describe('the answer sentence of a recalled evidence turn', () => {
  it('counts the turn only when its kept part holds the sentence sharing most words with question and answer', () => {
    const q = 'What is the name of the dog Alice adopted?';
    expect(holdsAnswerSentence(TURN, 'Alice: … I adopted a greyhound called Biscuit last week.', q, 'Biscuit')).toBe(true);
    expect(holdsAnswerSentence(TURN, "Alice: Hey! How's it going?", q, 'Biscuit')).toBe(false);
    expect(holdsAnswerSentence(TURN, 'Alice: … The weather is awful.', q, 'Biscuit')).toBe(false);
    // The whole turn always counts; so does a turn of one sentence, kept at all.
    expect(holdsAnswerSentence(TURN, `Alice: ${TURN}`, q, 'Biscuit')).toBe(true);
    expect(holdsAnswerSentence('I adopted Biscuit.', 'Alice: I adopted Biscuit.', q, 'Biscuit')).toBe(true);
  });

  it('requires the whole turn when no sentence shares a word with the question or the answer', () => {
    const q = 'When did Bob sail to Crete?';
    expect(holdsAnswerSentence(TURN, "Alice: Hey! How's it going? … The weather is awful.", q, '7 May 2023')).toBe(false);
    expect(holdsAnswerSentence(TURN, `Alice: ${TURN}`, q, '7 May 2023')).toBe(true);
  });

  it('accepts any of the sentences tied for the most shared words', () => {
    const turn = 'I love the sea. I sailed to Crete. I sailed to Rhodes.';
    expect(holdsAnswerSentence(turn, '… I sailed to Rhodes.', 'Where did Bob sail?', '')).toBe(true);
    expect(holdsAnswerSentence(turn, 'I love the sea.', 'Where did Bob sail?', '')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { factOf, questionSlot, sameValue } from '../../src/model/fact-reading.js';

describe('facts read from statements', () => {
  it('reads the kind of fact, whose it is and its value', () => {
    expect(factOf('I work at Acme as an engineer.')).toEqual({ slot: 'employer', subject: 'self', value: 'Acme', addition: false });
    expect(factOf('Home is Seattle now.')).toMatchObject({ slot: 'home', subject: 'self', value: 'Seattle' });
    expect(factOf('My brother works at Initech.')).toMatchObject({ slot: 'employer', subject: 'brother', value: 'Initech' });
    expect(factOf('I drive a Honda Civic.')).toMatchObject({ slot: 'car', value: 'Honda Civic' });
    expect(factOf("I'm dating Priya now.")).toMatchObject({ slot: 'partner', subject: 'self', value: 'Priya' });
    expect(factOf('My favourite food is sushi.')).toMatchObject({ slot: 'favourite food', value: 'sushi' });
    // A role at a named place of work is a job; a role at an unnamed place, or of another person, is not the speaker's.
    expect(factOf("Starting next week I'm a data analyst at Hirnpar Health!")).toMatchObject({ slot: 'employer', subject: 'self', value: 'Hirnpar Health' });
    expect(factOf("I'm a regular at the gym.")).toBeNull();
    expect(factOf('My sister is a nurse at Mercy.')).toBeNull();
  });

  it('reads no fact from questions, hedges, plans, negations, the past or unrelated sentences', () => {
    for (const s of [
      'Do you work at Acme?',
      'I might move to Denver next year.',
      "I'm thinking about a job at Initech.",
      "I don't live in Boston anymore.",
      'I used to live in Rome.',
      'My brother plays tennis on Fridays.',
      'The weather has been grey all week.',
      'He works at Globex.',
    ]) {
      expect(factOf(s), s).toBeNull();
    }
    expect(factOf('I also work at a café on weekends.')).toMatchObject({ addition: true });
  });

  it('reads the clause that holds the fact: a hedge, a question or a negation elsewhere in the sentence does not undo it', () => {
    expect(factOf('My employer is Initech, if you need it for the form.')).toMatchObject({ slot: 'employer', subject: 'self', value: 'Initech' });
    expect(factOf('At my job at Globex we wear suits, any tips on ties?')).toMatchObject({ slot: 'employer', subject: 'self', value: 'Globex' });
    expect(factOf("I didn't get the job at Globex, I work at Initech.")).toMatchObject({ slot: 'employer', value: 'Initech' });
    expect(factOf('If the offer comes through I will move to Denver.')).toBeNull();
    expect(factOf('I live in Lyon no longer.')).toBeNull();
  });

  it('takes a noun phrase as given, whatever the clause does with it, unless the noun is no longer current', () => {
    expect(factOf("I'm planning a surprise party for my wife Priya.")).toMatchObject({ slot: 'partner', subject: 'self', value: 'Priya' });
    expect(factOf('Could the squeak come from the brakes of my Kia Niro?')).toMatchObject({ slot: 'car', subject: 'self', value: 'Kia Niro' });
    expect(factOf('my gf Lena says hi')).toMatchObject({ slot: 'partner', subject: 'self', value: 'Lena' });
    expect(factOf('Kurt, my husband, does the cooking.')).toMatchObject({ slot: 'partner', subject: 'self', value: 'Kurt' });
    expect(factOf('Lena and I got engaged!')).toMatchObject({ slot: 'partner', subject: 'self', value: 'Lena' });
    expect(factOf('Globex, which is where I work, has a gym.')).toMatchObject({ slot: 'employer', subject: 'self', value: 'Globex' });
    for (const s of ['My ex-girlfriend Lena called.', 'Sold my Honda Civic to a student.', 'I saw a Tesla Model 3 in the lot.', 'There was an ad for a Jeep Wrangler on TV.', 'My old manager at Globex retired.']) {
      expect(factOf(s), s).toBeNull();
    }
  });

  it('finds whose fact it is from the word nearest the verb, and the past from the verb and the clause', () => {
    expect(factOf("Since June I've been working at Globex.")).toMatchObject({ subject: 'self', value: 'Globex' });
    expect(factOf('My sister broke up with her ex and is seeing Tomas now.')).toMatchObject({ slot: 'partner', subject: 'sister', value: 'Tomas' });
    expect(factOf('Maria told me she works at Globex.')).toBeNull();
    expect(factOf('The weather was awful. i finally caved and bought a Mazda 3')).toMatchObject({ slot: 'car', subject: 'self', value: 'Mazda 3' });
    expect(factOf('I lived in Lyon for two years after school.')).toBeNull();
    expect(factOf("I've lived in Lyon for two years.")).toMatchObject({ slot: 'home', subject: 'self', value: 'Lyon' });
    expect(factOf('I quit last month and moved over to Globex.')).toMatchObject({ slot: 'employer', value: 'Globex' });
    expect(factOf('I got a new job, so we moved to Denver.')).toMatchObject({ slot: 'home', value: 'Denver' });
    expect(factOf('Not quitting my job, just a few hours a week at Globex.')?.addition ?? true).toBe(true);
  });

  it('reads profile labels, workplaces that took the speaker on and subject-less openers', () => {
    expect(factOf('job: Initech. commute: 20 min.')).toMatchObject({ slot: 'employer', subject: 'self', value: 'Initech' });
    expect(factOf('new bf = Marco, early days')).toMatchObject({ slot: 'partner', subject: 'self', value: 'Marco' });
    expect(factOf('Initech hired me in May and I love it.')).toMatchObject({ slot: 'employer', subject: 'self', value: 'Initech' });
    expect(factOf("Changed jobs over the summer, it's Initech now.")).toMatchObject({ slot: 'employer', value: 'Initech' });
    expect(factOf('Having relocated to Porto in spring, I need a new dentist.')).toMatchObject({ slot: 'home', subject: 'self', value: 'Porto' });
    expect(factOf("Just signed the lease on a flat in Porto.")).toMatchObject({ slot: 'home', subject: 'self', value: 'Porto' });
    expect(factOf("We're officially Porto residents now!")).toMatchObject({ slot: 'home', subject: 'self', value: 'Porto' });
    expect(factOf('The Kia Niro needs new wipers.')).toMatchObject({ slot: 'car', subject: 'self', value: 'Kia Niro' });
    expect(factOf('Third week at Initech and I finally know where the coffee is.')).toMatchObject({ slot: 'employer', subject: 'self', value: 'Initech' });
    // Not the speaker's, not current, not a replacement.
    expect(factOf('My cousin told me their wife Marta is a pilot.')).toBeNull();
    expect(factOf('Initech just hired my dad as a driver.')).toBeNull();
    for (const t of ['Sunday works for me!', 'He has brought me so much luck.', 'I lost my job at Initech last month.', 'I just joined a new Bristol chess club.', 'We got to work with some great people from church.']) {
      expect(factOf(t), t).toBeNull();
    }
    expect(factOf("I'd love to live in Porto someday.")).toBeNull();
    expect(factOf('The Kia Niro is only for weekend trips, my daily car is the same as always.')?.addition ?? true).toBe(true);
  });

  it('compares values by their words', () => {
    expect(sameValue('Acme', 'Acme Corp')).toBe(true);
    expect(sameValue('the Acme', 'acme')).toBe(true);
    expect(sameValue('Acme', 'Globex')).toBe(false);
  });

  it('knows which fact a question asks about', () => {
    expect(questionSlot('Where does Bob work now?')).toBe('employer');
    expect(questionSlot('Where does Alice live?')).toBe('home');
    expect(questionSlot('Who is Uma dating?')).toBe('partner');
    expect(questionSlot('What car does Bob drive?')).toBe('car');
    // Any tense, and a question about every value the fact has had.
    expect(questionSlot('Which companies has Gael worked for?')).toBe('employer');
    expect(questionSlot('Which towns has Soren lived in?')).toBe('home');
    expect(questionSlot('Which schools has Farid attended?')).toBe('school');
    expect(questionSlot('What cars has Ines owned?')).toBe('car');
    expect(questionSlot('I work at Acme.')).toBeNull();
    expect(questionSlot('What did Bob cook?')).toBeNull();
  });
});

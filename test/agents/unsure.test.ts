/**
 * The plain lines a character says when the model is unsure of its best one: of the kind the heard
 * line calls for, never one already said in the conversation, and spread across speakers.
 */
import { describe, expect, it } from 'vitest';
import { isPlainLine, unsureKind, unsureLine } from '../../server/agents/unsure.js';
import { asksAboutYou, lineKind, yesNoToWh } from '../../server/agents/line-kind.js';

describe('the kind of plain line a heard line calls for', () => {
  it.each([
    ['Well, I should be going. Take care!', 'farewell'],
    ['Thank you kindly.', 'thanks'],
    ["Sorry, I didn't mean to bother you.", 'sorry'],
    ["Good evening! Cold tonight, isn't it?", 'tag'],
    ['Are you married?', 'personal'],
    ['Do you believe in magic?', 'personal'],
    ['Do you like fish?', 'opinion'],
    ['Do you need any help?', 'offer'],
    ['Would you like some bread?', 'offer'],
    ['Do you like to dance?', 'opinion'],
    ['Have you heard any news?', 'exists'],
    ['Is there an inn nearby?', 'exists'],
    ['Can you read and write?', 'ability'],
    ['Do you know how to play dice?', 'ability'],
    ['Can you help me?', 'yesno'],
    ['I miss home a little more than I expected.', 'sad'],
    ['I got caught in a downpour on the road yesterday.', 'mishap'],
    ['You are very easy to talk to, you know.', 'compliment'],
    ['Should I write to my family more often, do you think?', 'shouldI'],
    ['What should I call you?', 'personal'],
    ['What should I do about the rats?', 'advice'],
    ['Should I go now?', 'yesno'],
    ["I've been thinking about learning a proper trade.", 'plans'],
    ["If you're ever short of hands, I learn quickly.", 'offered'],
    ['Do you ever remember your dreams?', 'ever'],
    ['Have you ever been to a big wedding?', 'ever'],
    ['Have you ever been married?', 'personal'],
    ['Do you usually start your day this early?', 'usually'],
    ['What would you give someone as a wedding gift?', 'opinion'],
    ["Any advice for someone who's hopeless in the kitchen?", 'advice'],
    ['I tried cooking for myself yesterday and burned everything.', 'mishap'],
    ["If I pass this way again, I'll tell you how it went.", 'promise'],
    ['You seem like someone who works very hard.', 'compliment'],
    ["You've got a good head on your shoulders.", 'compliment'],
    ['Hi there. Mind if I sit with you a while?', 'permission'],
    ['May I ask you something?', 'permission'],
    ['Can I help you with that?', 'offer'],
    ["I'm looking for work. Do you know anyone hiring?", 'exists'],
    ['Do folk here usually welcome newcomers?', 'folk'],
    ['Are people friendly around here?', 'folk'],
    ['Do people here know the way to the mill?', 'yesno'],
    ['Want to hear a riddle I just thought of?', 'willTell'],
    ['Would you like to hear a song?', 'willTell'],
    ['What do you honestly think of me so far?', 'aboutMe'],
    ['If you ever want company on a walk, just ask.', 'offered'],
    ["Good luck to you. I'm off now!", 'farewell'],
    ["I'm off to the market tomorrow, need anything?", 'yesno'],
    ["I'm sorry to hear that.", 'remark'],
    ["You're very kind.", 'thanks'],
    ['I cut my hand earlier and it still stings.', 'hurt'],
    ["I've got a terrible headache.", 'hurt'],
    ['My back aches from the road.', 'hurt'],
    ["I'm sick of waiting.", 'remark'],
    ['I think I dropped a ring somewhere near here.', 'lostThing'],
    ["I've already gotten lost twice since I got here.", 'lost'],
    ['I lost my way in the woods.', 'lost'],
    ['I lost my wife last winter.', 'sad'],
    ['My brother drowned out there last winter.', 'sad'],
    ['My father was killed on the road.', 'sad'],
    ["I'm a bit nervous around strangers, to be honest.", 'nervous'],
    ["It's been a long day.", 'sad'],
    ["I'm afraid I don't know.", 'remark'],
    ["I'm afraid of the dark.", 'sad'],
    ['I got married last spring!', 'goodNews'],
    ['My sister is getting married next month.', 'theirNews'],
    ["My little brother's having a baby!", 'theirNews'],
    ["I won't go there.", 'remark'],
    ["I'm glad to meet you.", 'remark'],
    ["I'm thinking of staying here for a few weeks.", 'plans'],
    ['Hello there! You look like a thoughtful sort.', 'greeting'],
    ['You look like a thoughtful sort.', 'compliment'],
    ['You have a very kind way of speaking.', 'compliment'],
    ['I like your boots.', 'compliment'],
    ['Did you find where they went?', 'yesno'],
    ['Did you ever marry?', 'personal'],
    ['Is there a well nearby?', 'exists'],
    ['Who is in charge around here?', 'wh'],
    ['You there, what do you want?', 'personal'],
    ['Where is the well?', 'wh'],
    ['What do people eat around here?', 'wh'],
    ['Where are you from?', 'personal'],
    ['What makes you laugh?', 'personal'],
    ['What colour do you like best?', 'opinion'],
    ['Do you pray to any gods?', 'personal'],
    ['Hello, drover! How are you today?', 'wellbeing'],
    ["How's life treating you?", 'wellbeing'],
    ['Hello, cloth man! You well this morning?', 'wellbeing'],
    ['Are you keeping well?', 'wellbeing'],
    ['All well with you?', 'wellbeing'],
    ['How goes it?', 'wellbeing'],
    ['Are you well enough to walk?', 'personal'],
    ['Are you all right with that?', 'personal'],
    ['How do you know my name?', 'wh'],
    ["I'm so tired. I've been walking all day.", 'tired'],
    ['Hello there!', 'greeting'],
    ['The crows are loud today.', 'remark'],
  ])('%s -> %s', (heard, kind) => {
    expect(unsureKind(heard)).toBe(kind);
  });

  it('reads the last sentence of a line', () => {
    expect(lineKind('Good evening! Where are you from?')).toBe('where');
    expect(lineKind('Are you married?')).toBe('yesno');
    expect(lineKind('Married! Well, bless you.')).toBe('remark');
  });
});

describe('a question about the one asked', () => {
  it.each([
    ['Where are you from?', true],
    ['Hello! How are you today?', true],
    ['Do you believe in magic?', true],
    ["What's your favourite thing about this place?", true],
    ['What would you do with a bag of gold?', true],
    ['Could you give me something to eat?', false],
    ['Can you tell me the way to the chapel?', false],
    ['Do you need any help?', false],
    ['Do you know anyone hiring?', false],
    ['Have you heard any news?', false],
    ['Mind if I sit with you a while?', false],
    ['Who is in charge around here?', false],
    ['Tell me about yourself.', false],
  ])('%s -> %s', (heard, about) => {
    expect(asksAboutYou(heard)).toBe(about);
  });
});

describe('a yes or no to a question that asks who, what, where...', () => {
  it.each([
    ['Who is in charge around here?', 'Yes. Everybody wants you to bend the rules.', true],
    ['Good evening! Where are you from?', 'No, not from here.', true],
    ['How are you today?', 'Aye, well enough.', true],
    ['How about a drink?', 'Yes, please.', false],
    ['Why not sit down?', 'No, I must be going.', false],
    ["Cold tonight, isn't it?", 'Yes, bitter.', false],
    ['Are you married?', 'No.', false],
    ['Who is in charge around here?', 'The baroness, up at the castle.', false],
    ['Where can I get some milk?', "I would. I've not had fresh milk in a month.", true],
    ['What do you do all day?', 'I do my best, mostly.', false],
  ])('%s -> %s: %s', (heard, reply, bad) => {
    expect(yesNoToWh(heard, reply)).toBe(bad);
  });
});

describe('a plain line', () => {
  it('is never one said already, and none is left when all were said', () => {
    const said = new Set<string>();
    const got: string[] = [];
    for (;;) {
      const l = unsureLine('Thank you!', said, 'dockhand');
      if (!l) break;
      expect(said.has(l.toLowerCase())).toBe(false);
      said.add(l.toLowerCase());
      got.push(l);
    }
    expect(got.length).toBe(3);
  });

  it('differs between speakers, so a room does not answer in chorus', () => {
    const lines = new Set(['dockhand', 'lighthouse keeper', 'reed cutter', 'drover', 'hunter', 'innkeeper'].map((n) => unsureLine('Who is in charge around here?', new Set(), n)));
    expect(lines.size).toBeGreaterThan(1);
  });
});

describe('a plain line heard', () => {
  it('is known as one, whatever its case and spacing; a line that only starts like one is not', () => {
    expect(isPlainLine('Is that so?')).toBe(true);
    expect(isPlainLine('  hm. i couldn\'t say. ')).toBe(true);
    expect(isPlainLine('Is that so? Then the mill is closed.')).toBe(false);
  });
});

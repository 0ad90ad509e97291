/**
 * The rules on retrieved lines: who a line was written to, names, claims about one's own things,
 * repeats and echoes; vocatives become the partner's name. Table-driven, with metadata from a small
 * corpus set in the bundled world.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
import { DEFAULT_WORLD, loadWorld } from '../../server/world-io/load-world.js';
import { dropVocative, echoes, fill, handingOnly, GENERIC_VOCATIVES, LineJudge, PoolLines, pointedAt, properNouns, tellsOwnLife, vocativeTemplate, worldProperNames, type Scene } from '../../server/agents/line-judge.js';
import type { Episode } from '../../server/episodes/episode.js';

const world = new World(loadWorld(DEFAULT_WORLD, { seed: 1 }).state);

// Lines of a corpus episode in the market square: the crier speaks to the pie seller and back.
const episode: Episode = {
  id: 't-1', room: 'town-square', characters: ['town-crier', 'town-pie-seller'],
  turns: [
    { speaker: 'town-crier', say: 'Pie seller, is that basket full already?' },
    { speaker: 'town-pie-seller', say: "You're loud this morning, crier." },
    { speaker: 'town-crier', say: 'The pie seller always has the best crusts.' },
  ],
};
const texts = [...episode.turns.map((t) => t.say), 'Take my lantern, it is dark out.', "I don't have any brass handbell.", 'Goodbye, Gwen!', 'Is it safe around here?', 'I told Brannoc to wait.', 'Brannoc sold me a bad sack of flour.', 'The town crier is loud today.', "I'm the town crier of this square.", "I'm just a poor pie seller."];
const lines = new PoolLines(texts, [episode], world);
const judge = new LineJudge(lines, worldProperNames(world));

function scene(over: Partial<Scene> = {}): Scene {
  return { selfName: 'town crier', partnerName: 'street urchin', present: [], objects: ['brass handbell', 'stone well'], held: ['brass handbell'], said: new Set(), ...over };
}

describe('vocatives become slots for the partner', () => {
  it.each([
    ['Tinker, they tell me you sharpen knives.', ['tinker'], '{partner}, they tell me you sharpen knives.', 'Guard, they tell me you sharpen knives.', 'They tell me you sharpen knives.'],
    ["You're a long way from the water, boy.", ['boy'], "You're a long way from the water, {partner}.", "You're a long way from the water, guard.", "You're a long way from the water."],
    ['Good morning, baker. Fresh bread?', ['baker'], 'Good morning, {partner}. Fresh bread?', 'Good morning, guard. Fresh bread?', 'Good morning. Fresh bread?'],
    ["Hello again, great dog. I'm crossing today.", ['dog'], "Hello again, {partner}. I'm crossing today.", "Hello again, guard. I'm crossing today.", "Hello again. I'm crossing today."],
    ['Little one, I need your help.', GENERIC_VOCATIVES, '{partner}, I need your help.', 'Guard, I need your help.', 'I need your help.'],
    ['Hello again, little mistress. How is your village?', GENERIC_VOCATIVES, 'Hello again, {partner}. How is your village?', 'Hello again, guard. How is your village?', 'Hello again. How is your village?'],
  ])('%s', (text, names, template, filled, dropped) => {
    const t = vocativeTemplate(text, names)!;
    expect(t).toBe(template);
    expect(fill(t, 'the guard')).toBe(filled);
    expect(dropVocative(t)).toBe(dropped);
  });
  it('a greeting calls its addressee by one or two words; words that fit anyone stay', () => {
    const pool = new PoolLines(['Good morning, smith! How are you today?', 'Good morning, friend! How are you today?', 'Hello, little creature. Have you seen the serpent?', 'Hello, cloth man! You well this morning?', 'Hello, good sir! Fine day.'], [], world);
    const j = new LineJudge(pool, worldProperNames(world));
    const said = (t: string) => j.judge(t, scene({ selfName: 'innkeeper', partnerName: 'lost pilgrim', objects: [], held: [] }));
    expect(said('Good morning, smith! How are you today?')).toEqual({ ok: true, text: 'Good morning, lost pilgrim! How are you today?' });
    expect(said('Good morning, friend! How are you today?')).toEqual({ ok: true, text: 'Good morning, friend! How are you today?' });
    expect(said('Hello, little creature. Have you seen the serpent?')).toEqual({ ok: true, text: 'Hello, lost pilgrim. Have you seen the serpent?' });
    // Said to an apothecary in a model-vs-model episode: the line was written to a cloth merchant.
    expect(said('Hello, cloth man! You well this morning?')).toEqual({ ok: true, text: 'Hello, lost pilgrim! You well this morning?' });
    expect(said('Hello, good sir! Fine day.')).toEqual({ ok: true, text: 'Hello, good sir! Fine day.' });
  });

  it('a line that only mentions the name is no vocative', () => {
    expect(vocativeTemplate('The baker says hello.', ['baker'])).toBeUndefined();
  });
});

describe('a line that is only the words of a hand-over', () => {
  it.each([
    ['There.', true],
    ['Here you go!', true],
    ['Take it.', true],
    ["I'm sure. Here.", true],
    ["Here. Mind, it's strong stuff.", true],
    ['There, the bell is rung for the day.', false],
    ['Here is where I work.', false],
  ])('%s -> %s', (line, only) => {
    expect(handingOnly(line)).toBe(only);
  });
});

describe('the judge', () => {
  it.each<[string, string, Partial<Scene>, string]>([
    ['written to the pie seller, said by a pie seller', "You're loud this morning, crier.", { selfName: 'pie seller', partnerName: 'town crier' }, 'ok'],
    ['written to a crier, said by the crier', "You're loud this morning, crier.", {}, 'wrong_role'],
    ['names its own speaker', 'The town crier is loud today.', {}, 'self_naming'],
    ['says what it is, in the first person', "I'm the town crier of this square.", {}, 'ok'],
    ['says it is what it is not', "I'm just a poor pie seller.", {}, 'wrong_role'],
    ['written to a pie seller, said by another seller', 'Pie seller, is that basket full already?', { selfName: 'flower seller' }, 'wrong_role'],
    ['claims a lantern it does not hold', 'Take my lantern, it is dark out.', {}, 'contradiction'],
    ['denies holding what it holds', "I don't have any brass handbell.", {}, 'contradiction'],
    ['calls an absent person by name', 'Goodbye, Gwen!', {}, 'absent_name'],
    ['a name that is no place of the world, at the start of a sentence', 'Brannoc sold me a bad sack of flour.', {}, 'absent_name'],
    ['a name of the speaker\'s own life, from its persona', 'Brannoc sold me a bad sack of flour.', { selfPersona: 'I cry the news. Captain Brannoc is my cousin.' }, 'ok'],
    ['asks the partner\'s question back', 'Is it safe around here?', { partnerLine: 'Is it safe here?' }, 'echo'],
    ['introduces itself by its own name', 'I am Edric Holloway, and this farm has been in my family for years.', { selfName: 'Edric Holloway' }, 'ok'],
    ['introduces itself by name and kind', 'I am Garrick the drover, and I walk cattle to market.', { selfName: 'drover' }, 'ok'],
    ['introduces itself by a name the world does not know', 'I am Wenna Tallowby, keeper of this inn.', { selfName: 'innkeeper' }, 'ok'],
    ['a perfect tense is no claim of having', 'I have hauled crates and coiled rope here since I was twelve.', {}, 'ok'],
    ['names a thing that is not here', 'The salted herring was fresh this morning.', {}, 'absent_name'],
    ['names a thing the partner just spoke of', "Sorry, I don't have a salted herring.", { partnerLine: 'Give me the salted herring.' }, 'ok'],
    ['says what was said before', 'Take my lantern, it is dark out.', { held: ['old lantern'], objects: ['old lantern'], said: new Set(['take my lantern, it is dark out.']) }, 'repeat'],
  ])('%s', (_what, text, over, want) => {
    const v = judge.judge(text, scene(over));
    expect(v.ok ? 'ok' : v.reason).toBe(want);
  });

  it('fills the vocative with the real partner', () => {
    const v = judge.judge('Pie seller, is that basket full already?', scene({ selfName: 'street urchin', partnerName: 'cattle drover', objects: ['wicker basket'] }));
    expect(v).toEqual({ ok: true, text: 'Cattle drover, is that basket full already?' });
  });

  it('names things in the scene freely', () => {
    expect(judge.judge('Fetch water from the stone well.', scene()).ok).toBe(true);
  });
});

describe('helpers', () => {
  it('finds proper nouns inside sentences only', () => {
    expect(properNouns('I saw Jory at the docks. Harl is a fool, said Mother Brin.')).toEqual(['Jory', 'Mother', 'Brin']);
  });
  it('an echo is a question asked back, not an answer', () => {
    expect(echoes('Is it safe?', 'Is it safe around here?')).toBe(true);
    expect(echoes('It is safe enough by day.', 'Is it safe around here?')).toBe(false);
    expect(echoes("Starving. I haven't eaten since yesterday morning.", "I'm starving, I haven't eaten in days.")).toBe(true);
    expect(echoes("I'm so parched I could drink the well dry.", "I'm parched. Haven't had a drop all day.")).toBe(true);
    expect(echoes('Here, have some bread.', "I'm starving, I haven't eaten in days.")).toBe(false);
    expect(echoes("I'm sure it will pass.", "I'm sure I saw a ghost.")).toBe(false);
  });
});

describe('things pointed at must be at hand', () => {
  // "cap", "crate" and "trough" are heads of the world's objects; "fire" and "door" are things the
  // corpus speaks of anywhere (GENERIC_THINGS)
  const pool = new PoolLines(['Here, try the cap.', 'Keep your hands off that crate.', 'There you are, back by the trough.', "I'll miss you by the fire tonight.", 'Shut the door behind you.', 'A cap keeps the rain off.'], [], world);
  const j = new LineJudge(pool, worldProperNames(world));
  const at = (over: Partial<Scene>) => scene({ selfName: 'reed cutter', partnerName: 'lost pilgrim', objects: ['bundle of reeds'], held: [], known: new Set(['reeds', 'water', 'thatch']), ...over });
  it.each<[string, Partial<Scene>, boolean]>([
    ['Here, try the cap.', {}, false],
    ['Here, try the cap.', { objects: ['tarred cap'] }, true],
    ['Here, try the cap.', { known: new Set(['my', 'old', 'cap']) }, true],
    ['Keep your hands off that crate.', {}, false],
    ['Keep your hands off that crate.', { objects: ['herring crate'] }, true],
    ['There you are, back by the trough.', {}, false],
    ["I'll miss you by the fire tonight.", {}, true],
    ['Shut the door behind you.', {}, true],
    ['A cap keeps the rain off.', {}, true],
    ['Here, try the cap.', { known: undefined }, true],
  ])('%s (%j) -> %s', (text, over, ok) => {
    const v = j.judge(text, at(over));
    expect(v.ok).toBe(ok);
    if (!v.ok) expect(v.reason).toBe('absent_name');
  });

  it('finds the first object word after the determiner, within the phrase', () => {
    const heads = new Set(['cap', 'crate', 'rock']);
    expect(pointedAt('Try the old tarred cap.', heads)).toEqual(['cap']);
    expect(pointedAt('That is the castle on its rock.', heads)).toEqual([]);
    expect(pointedAt('Mind those crates!', heads)).toEqual(['crate']);
  });
});

describe('things a line names that are not at hand', () => {
  const pool = new PoolLines([], [], world);
  const j = new LineJudge(pool, worldProperNames(world));
  it('lists the object words of the world that the scene lacks, and none without what the scene knows', () => {
    const sc = scene({ selfName: 'dockhand', objects: ['herring crate'], held: [], known: new Set(['crates', 'rope', 'docks']) });
    expect(j.absentThings("No thanks, you'd need waders. The water's up to my chest.", sc)).toEqual(['waders']);
    expect(j.absentThings('Take a herring from the crate.', sc)).toEqual([]);
    expect(j.absentThings("I'll miss you by the fire tonight.", sc)).toEqual([]);
    expect(j.absentThings("No thanks, you'd need waders.", scene({ known: undefined }))).toEqual([]);
  });
});

describe("lines that tell the speaker's own life", () => {
  it.each<[string, boolean]>([
    ["Since I married. Before that I lived in the town, over a weaver's shop.", true],
    ['Pay a proper doctor for my mother. Then buy my father a new plough.', true],
    ["No wife, no children. Just the road and whatever beasts I'm driving.", true],
    ["I grew up on the coast, in a fisherman's hut.", true],
    ["I'm not married, and glad of it.", true],
    ["No, it's only me and the hens now. That's why I can't lose the land.", true],
    ["It's only me and you out here, friend.", false],
    ['Cold and damp, as always. Come in by the fire.', false],
    ['The reeds are wet and heavy as lead.', false],
    ['Is your mother well?', false],
  ])('%s -> %s', (line, tells) => {
    expect(tellsOwnLife(line)).toBe(tells);
  });
});

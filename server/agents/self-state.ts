/**
 * Truthful answers about a character's own state, built from the world graph (never retrieved: a
 * retrieved line could claim a sword the character does not have).
 *
 *   describeHoldings(world, 'town-smith')   -> "I'm carrying a rusty key and a lantern, wearing a wool cloak, and wielding a hammer."
 *   answerSelfQuestion(world, id, 'What are you carrying?')  -> the same sentence
 *   answerSelfQuestion(world, id, 'Do you have a sword?')    -> "No, I don't have a sword."
 *   answerSelfQuestion(world, id, "What's in your sack?")   -> "My sack holds a seed and a pebble."
 *   answerSelfQuestion(world, id, 'Nice weather.')           -> null (not a question about itself)
 */
import type { NodeId, ObjectNode } from '../engine/types.js';
import type { World } from '../engine/world.js';

/** "a shovel", "an apple", "Maud's ring" (proper prefix ""), as the engine names things. */
export function withArticle(o: { name: string; prefix?: string }): string {
  if (o.prefix === '') return o.name;
  const prefix = o.prefix ?? (/^[aeiou]/i.test(o.name) ? 'an' : 'a');
  return `${prefix} ${o.name}`;
}

/** "a, b and c" */
export function listing(items: string[], conj = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conj} ${items[items.length - 1]}`;
}

/** Everything inside or on an object, at any depth, in placement order. */
function contentsOf(world: World, id: NodeId): ObjectNode[] {
  const out: ObjectNode[] = [];
  for (const c of world.children(id)) {
    const o = world.object(c);
    if (!o) continue;
    out.push(o);
    out.push(...contentsOf(world, c));
  }
  return out;
}

/** "a sack with a seed in it", "a tray with two cups on it" (direct contents only). */
function describeHeld(world: World, o: ObjectNode): string {
  const inside = world.objectsIn(o.id, 'in').map(withArticle);
  const on = world.objectsIn(o.id, 'on').map(withArticle);
  let s = withArticle(o);
  if (inside.length) s += ` with ${listing(inside)} in it`;
  else if (on.length) s += ` with ${listing(on)} on it`;
  return s;
}

export interface Holdings {
  carrying: ObjectNode[];
  wearing: ObjectNode[];
  wielding: ObjectNode[];
}

export function holdingsOf(world: World, self: NodeId): Holdings {
  return { carrying: world.objectsIn(self, 'carried'), wearing: world.objectsIn(self, 'worn'), wielding: world.objectsIn(self, 'wielded') };
}

/** One first-person sentence saying exactly what the graph holds for `self`. */
export function describeHoldings(world: World, self: NodeId, parts: { carrying?: boolean; wearing?: boolean; wielding?: boolean } = {}): string {
  const h = holdingsOf(world, self);
  const want = { carrying: parts.carrying ?? true, wearing: parts.wearing ?? true, wielding: parts.wielding ?? true };
  const clauses: string[] = [];
  if (want.carrying && h.carrying.length) clauses.push(`carrying ${listing(h.carrying.map((o) => describeHeld(world, o)))}`);
  if (want.wearing && h.wearing.length) clauses.push(`wearing ${listing(h.wearing.map(withArticle))}`);
  if (want.wielding && h.wielding.length) clauses.push(`wielding ${listing(h.wielding.map(withArticle))}`);
  if (!clauses.length) {
    const what = [want.carrying && 'carrying', want.wearing && 'wearing', want.wielding && 'wielding'].filter(Boolean) as string[];
    return `I'm not ${listing(what, 'or')} anything.`;
  }
  // "carrying a, b and c, wearing d, and wielding e"
  const joined = clauses.length === 1 ? clauses[0]! : clauses.length === 2 ? `${clauses[0]} and ${clauses[1]}` : `${clauses.slice(0, -1).join(', ')}, and ${clauses[clauses.length - 1]}`;
  return `I'm ${joined}.`;
}

const QUESTION = /\?|^\s*(what|which|do|does|did|are|is|have|has|got|show|tell)\b/i;

/** Normalised, lower case, curly quotes straightened. */
function norm(text: string): string {
  return text.toLowerCase().replace(/[\u2018\u2019]/g, "'").replace(/\s+/g, ' ').trim();
}

/** Words of a noun phrase without articles and possessives. */
function nounWords(phrase: string): string[] {
  return phrase
    .toLowerCase()
    .replace(/[^a-z0-9'\- ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !['a', 'an', 'the', 'any', 'some', 'your', 'my', 'that', 'this', 'one', 'on', 'you', 'with', 'there', 'here', 'now', 'today', 'by', 'chance'].includes(w));
}

/** Objects among `objects` that `phrase` names: every word of the phrase is a prefix of a name word (or a plural of one). */
function named(objects: ObjectNode[], phrase: string): ObjectNode[] {
  const words = nounWords(phrase);
  if (!words.length) return [];
  return objects.filter((o) => {
    const nameWords = o.name.toLowerCase().split(/[^a-z0-9'-]+/).filter(Boolean);
    return words.every((w) => nameWords.some((n) => n.startsWith(w) || (w.endsWith('s') && n === w.slice(0, -1)) || (w.endsWith('es') && n === w.slice(0, -2))));
  });
}

const ALL_HELD = [
  /\bwhat(?:'ve| have) (?:you|ya) got\b(?! to\b)/,
  /\bwhat(?:'s| is| are| have| do| did)? (?:you|ya) (?:got|have|carry|carrying|holding|hold|bring|bringing|brought|have got)\b(?! to\b)/,
  /\bwhat (?:have|do|did) you (?:got|have|carry|hold|bring)(?: on you| with you)?\b(?! to\b)/,
  /\bwhat(?:'s| is) (?:in )?your (?:pack|bag|pockets?|hands?|purse|inventory|belongings)\b/,
  /\bwhat(?:'s| is| are) (?:you )?(?:carrying|holding)\b/,
  /\bshow me what you(?:'ve| have)?(?: got)?\b/,
  /\b(?:empty|turn out) your pockets\b/,
  /\bwhat (?:things|goods|wares|stuff|items) (?:do )?you (?:have|carry|got)\b/,
];
const WEARING = [/\bwhat(?:'s| is| are| have)? (?:you )?(?:wearing|got on(?! (?:you|ye)\b))\b/, /\bwhat are you dressed in\b/];
const WIELDING = [/\bare you armed\b/, /\bwhat(?:'s| is| are)? (?:you )?(?:wielding|armed with)\b/, /\bwhat weapons? (?:do )?you (?:have|carry|wield|got)\b/, /\bdo you (?:have|carry) (?:a |any )?weapons?\b/];
const HAVE_X = /\b(?:do|did) you (?:have|carry|own|got|happen to have)(?: on you| with you)? (.+?)(?: on you| with you| there| by chance)?\s*[?.!]*$/;
const HAVE_X2 = /\b(?:have you got|have you|are you carrying|are you holding|got) (.+?)(?: on you| with you| there)?\s*[?.!]*$/;
const WEARING_X = /\bare you wearing (.+?)\s*[?.!]*$/;
const WIELDING_X = /\bare you (?:wielding|holding) (.+?)\s*[?.!]*$/;
const INSIDE_X = /\bwhat(?:'s| is| do you have| have you got| do you keep) in (?:your|that|the) (.+?)\s*[?.!]*$/;

/** The last sentence of an utterance that is a question (or the whole text). */
function questionSentences(text: string): string[] {
  const parts = text.split(/(?<=[.!?])\s+/).map((s) => s.trim()).filter(Boolean);
  return parts.filter((s) => QUESTION.test(s));
}

/**
 * A truthful reply when `text` asks `self` what it carries, wears or wields, whether it has some
 * thing, or what is in something it carries; null when it asks none of these.
 */
export function answerSelfQuestion(world: World, self: NodeId, text: string): string | null {
  for (const sentence of questionSentences(norm(text))) {
    const answer = answerOne(world, self, sentence);
    if (answer) return answer;
  }
  return null;
}

function answerOne(world: World, self: NodeId, s: string): string | null {
  const h = holdingsOf(world, self);
  const held = [...h.carrying, ...h.wearing, ...h.wielding];
  const heldDeep = held.flatMap((o) => [o, ...contentsOf(world, o.id)]);

  const inside = INSIDE_X.exec(s);
  if (inside) {
    const [bag] = named(held, inside[1]!);
    if (bag) {
      const inner = world.objectsIn(bag.id).map(withArticle);
      return inner.length ? `My ${bag.name} holds ${listing(inner)}.` : `My ${bag.name} is empty.`;
    }
  }
  if (WIELDING.some((r) => r.test(s))) {
    if (h.wielding.length) return `I'm wielding ${listing(h.wielding.map(withArticle))}.`;
    const weapons = h.carrying.filter((o) => o.weapon);
    return weapons.length ? `I'm not wielding anything, but I carry ${listing(weapons.map(withArticle))}.` : "I'm not armed.";
  }
  if (WEARING.some((r) => r.test(s))) return describeHoldings(world, self, { carrying: false, wielding: false });
  const wearingX = WEARING_X.exec(s);
  if (wearingX && nounWords(wearingX[1]!).length) {
    const [worn] = named(h.wearing, wearingX[1]!);
    if (worn) return `Yes, I'm wearing ${withArticle(worn)}.`;
    const [other] = named(heldDeep, wearingX[1]!);
    if (other) return `No, but I have ${withArticle(other)} with me.`;
    return `No, I'm not wearing ${phraseWithArticle(wearingX[1]!)}.`;
  }
  const wieldingX = WIELDING_X.exec(s);
  if (wieldingX && nounWords(wieldingX[1]!).length && !/\b(anything|something)\b/.test(wieldingX[1]!)) {
    const [w] = named(h.wielding, wieldingX[1]!);
    if (w) return `Yes, I'm wielding ${withArticle(w)}.`;
  }
  if (ALL_HELD.some((r) => r.test(s))) return describeHoldings(world, self);
  const haveX = HAVE_X.exec(s) ?? HAVE_X2.exec(s);
  if (haveX) {
    const phrase = haveX[1]!;
    if (/^(anything|something|any ?thing)\b/.test(phrase)) return describeHoldings(world, self);
    if (!nounWords(phrase).length || /^(to|been|seen|heard|ever|any idea|a moment|time)\b/.test(phrase) || !holdable(world, phrase)) return null;
    const found = named(heldDeep, phrase);
    if (found.length) {
      const o = found[0]!;
      const p = world.placement(o.id);
      const where = p?.rel === 'worn' ? "I'm wearing it." : p?.rel === 'wielded' ? "I'm wielding it." : p?.parent !== self && world.object(p?.parent ?? '') ? `It's ${p!.rel} my ${world.object(p!.parent)!.name}.` : '';
      return `Yes, I have ${withArticle(o)}.${where ? ` ${where}` : ''}`;
    }
    return `No, I don't have ${phraseWithArticle(phrase)}.`;
  }
  return null;
}

/** Things anyone might carry, whether or not this world has one ("Do you have a sword?" -> "No, ..."). */
const COMMON_THINGS = new Set(
  ('sword knife dagger axe bow spear shield club weapon food bread water drink ale beer wine mead money coin gold silver copper penny ' +
    'key map rope torch lantern candle book letter hat cloak coat boots shoes apple cheese meat fish pie stew soup cake ring necklace')
    .split(' '),
);

/** Verbs in a perfect tense after "have you": "Have you always lived here?" asks nothing about having. */
const PERFECT = /^(?:always|ever|never|already|just|been|seen|heard|lived|met|done|made|worked|tried|found|lost|known|had|gone|come|eaten|drunk|spoken|thought|told|read|walked|travelled|traveled|\w+ed)\b/;

const objectHeads = new WeakMap<World, Set<string>>();

/**
 * Does `phrase` name a kind of thing one carries: a word of one of the world's objects' names, or a
 * common thing? "Do you have any family?" asks about no thing, and must not get "No, I don't have
 * any family." from the graph (the model answers it).
 */
function holdable(world: World, phrase: string): boolean {
  const words = nounWords(phrase);
  const last = words[words.length - 1];
  if (!last || PERFECT.test(words[0]!)) return false;
  let heads = objectHeads.get(world);
  if (!heads) {
    heads = new Set(world.nodes().flatMap((n) => (n.kind === 'object' ? n.name.toLowerCase().split(/[^a-z0-9'-]+/).filter(Boolean) : [])));
    objectHeads.set(world, heads);
  }
  const forms = [last, last.replace(/s$/, ''), last.replace(/es$/, '')];
  return forms.some((f) => heads!.has(f) || COMMON_THINGS.has(f));
}

/** "sword" -> "a sword", "any bread" -> "any bread", "the key" -> "the key". */
function phraseWithArticle(phrase: string): string {
  const p = phrase.replace(/[?.!]+$/, '').trim().replace(/^your /, 'a ');
  if (/^(a|an|any|the|some)\s/.test(p)) return p;
  return `${/^[aeiou]/.test(p) ? 'an' : 'a'} ${p}`;
}

/**
 * The things a request names, looked up in the graph, and the words for why a character cannot
 * hand one over: requests by kind ("something to eat" -> a food it has), the object a phrase names
 * wherever it is ("the apples" -> the apple), and refusals in plain grammar ("I don't have any
 * firewood.", "I don't have anything to eat.", "The guard has the key, not me.").
 */
import { capitalize, the } from '../engine/names.js';
import { resolve } from '../engine/resolve.js';
import type { NodeId, ObjectNode } from '../engine/types.js';
import type { World } from '../engine/world.js';

/** What a request by kind asks for: an object with this affordance. */
export type Kind = 'food' | 'drink' | 'weapon' | 'wearable';

const KIND_PHRASES: [RegExp, Kind][] = [
  [/^(?:(?:some|any|a)\s+)?(?:(?:some|any)\s*thing|bite|morsel|mouthful)(?:\s+\w+)?\s+(?:to|i\s+(?:can|could))\s+eat$/, 'food'],
  [/^(?:(?:some|any|your|the|a\s+bit\s+of|a\s+little)\s+)?(?:food|grub|victuals|provisions)$|^(?:a\s+)?(?:bite|snack|meal)$/, 'food'],
  [/^(?:(?:some|any)\s*thing)(?:\s+\w+)?\s+(?:to|i\s+(?:can|could))\s+drink$/, 'drink'],
  [/^(?:a|some|another)\s+(?:drink|sip|swig|tipple)(?:\s+of\s+something)?$|^(?:some|any)thing\s+to\s+wet\s+my\s+(?:throat|whistle)$/, 'drink'],
  [/^(?:a|some|any|your)\s+weapons?$|^(?:some|any)\s*thing\s+to\s+(?:fight|defend\s+myself)\s+with$/, 'weapon'],
  [/^(?:(?:some|any)\s*thing)(?:\s+\w+)?\s+to\s+(?:wear|put\s+on)$|^(?:some|any)\s+(?:clothes|clothing)$/, 'wearable'],
];

/** "something to eat" -> 'food'; an ordinary noun phrase -> undefined. */
export function kindOf(phrase: string): Kind | undefined {
  const p = phrase.trim().replace(/\s+/g, ' ');
  return KIND_PHRASES.find(([re]) => re.test(p))?.[1];
}

/** How a character comes to hand over a thing of a kind. */
export interface KindPick {
  object: ObjectNode;
  /** carried: hand it over; reach: get it first; worn: it is worn or wielded. */
  how: 'carried' | 'reach' | 'worn';
}

/** An object of the kind that the character has: carried, then in its own containers, then within reach, then worn. */
export function pickByKind(world: World, self: NodeId, kind: Kind): KindPick | undefined {
  const room = world.roomOf(self);
  const mine = world.objectsIn(self).filter((o) => o[kind]);
  const carried = mine.find((o) => world.placement(o.id)?.rel === 'carried');
  if (carried) return { object: carried, how: 'carried' };
  const reachable = world.visibleFrom(self).map((id) => world.object(id)).filter((o): o is ObjectNode => !!o && o[kind] && o.gettable);
  const inMyThings = reachable.find((o) => world.holderOf(o.id) === self && world.placement(o.id)?.parent !== self);
  if (inMyThings) return { object: inMyThings, how: 'reach' };
  const loose = reachable.find((o) => !world.holderOf(o.id) && world.roomOf(o.id) === room);
  if (loose) return { object: loose, how: 'reach' };
  const worn = mine[0];
  return worn ? { object: worn, how: 'worn' } : undefined;
}

/** "apples" -> "apple"; "boxes" -> "box"; other words unchanged. */
function singular(word: string): string {
  return singulars(word)[0] ?? word;
}

/** What a plural may be the plural of, likeliest first: "pies" -> pie, "berries" -> berry, "boxes" -> box. */
function singulars(word: string): string[] {
  if (/(?:ss|us|is)$/.test(word) || word.length < 4 || !word.endsWith('s')) return [];
  const out = [word.slice(0, -1)];
  if (/(?:ches|shes|xes|sses|oes)$/.test(word)) out.push(word.slice(0, -2));
  if (/ies$/.test(word)) out.push(`${word.slice(0, -3)}y`);
  return out;
}

/** What a phrase names: one object, or a question when it could be differently named things. */
export interface Named {
  object?: ObjectNode;
  /** "Which knife do you mean: the gutting knife or the filleting knife?" */
  which?: string;
}

/**
 * The object a phrase names among what the character can see: the one it holds first, then one
 * lying within reach that it can pick up (the one whose last word is the phrase's, "herring" ->
 * the salted herring rather than the herring crate), then any lying here, then one someone else
 * holds. Plurals name the singular ("the apples"). Differently named things equally good: a question.
 */
export function objectNamed(world: World, self: NodeId, phrase: string): Named {
  const words = phrase.trim().split(/\s+/);
  const found = namedBy(world, self, words);
  if (found.object || found.which) return found;
  // "the little rag" for the polishing rag: words that only describe (size, age, liking) name nothing.
  const plain = words.filter((w) => !DESCRIBING.has(w.toLowerCase()));
  return plain.length && plain.length < words.length ? namedBy(world, self, plain) : found;
}

/** Words a person adds to a thing's name that tell nothing of which thing: "that little rag". */
const DESCRIBING = new Set(['little', 'small', 'tiny', 'wee', 'big', 'large', 'huge', 'old', 'nice', 'lovely', 'pretty', 'fine', 'good', 'shiny', 'that', 'this', 'those', 'these']);

function namedBy(world: World, self: NodeId, words: string[]): Named {
  const pool = world.visibleFrom(self).filter((id) => world.object(id));
  const last = words[words.length - 1] ?? '';
  const heads = [last, ...singulars(last)];
  for (const head of heads) {
    const r = resolve(world, [...words.slice(0, -1), head].join(' '), pool);
    if (r.kind !== 'found') continue;
    const tier = (id: NodeId) => reachTier(world, self, world.object(id)!, heads);
    const best = Math.min(...r.ids.map(tier));
    const objects = r.ids.filter((id) => tier(id) === best).map((id) => world.object(id)!);
    const names = [...new Set(objects.map((o) => o.name))];
    return names.length === 1 ? { object: objects[0]! } : { which: whichQuestion(names) };
  }
  return {};
}

/** 0 held by the character, 1 within reach and named by its last word, 2 within reach, 3 lying here, 4 someone else's. */
function reachTier(world: World, self: NodeId, o: ObjectNode, heads: string[]): number {
  const holder = world.holderOf(o.id);
  if (holder) return holder === self ? 0 : 4;
  if (!o.gettable) return 3;
  const lastWord = o.name.toLowerCase().split(/\s+/).pop() ?? '';
  return heads.includes(lastWord) ? 1 : 2;
}

/** "Which scroll do you mean: the old scroll or the torn scroll?" */
function whichQuestion(names: string[]): string {
  const lastWords = new Set(names.map((n) => n.split(/\s+/).pop()));
  const noun = lastWords.size === 1 ? [...lastWords][0]! : 'one';
  const listed = names.map((n) => `the ${n}`);
  return `Which ${noun} do you mean: ${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}?`;
}

/** Nouns that take "any" rather than "a": "I don't have any firewood." */
const MASS_NOUNS = new Set([
  'firewood', 'wood', 'kindling', 'charcoal', 'coal', 'bread', 'cheese', 'meat', 'fish', 'bacon', 'mutton', 'pork', 'beef',
  'stew', 'soup', 'broth', 'porridge', 'food', 'fruit', 'honey', 'butter', 'salt', 'sugar', 'flour', 'grain', 'rice', 'ale',
  'beer', 'wine', 'mead', 'cider', 'rum', 'gin', 'brandy', 'whisky', 'whiskey', 'grog', 'water', 'milk', 'buttermilk', 'tea',
  'brew', 'gold', 'silver', 'money', 'iron', 'steel', 'cloth', 'lace', 'silk', 'wool', 'leather', 'linen', 'rope', 'twine',
  'hay', 'straw', 'sage', 'ginger', 'cinnamon', 'oil', 'wax', 'ink', 'paper', 'parchment', 'bait', 'tobacco',
  'medicine', 'ointment', 'poison', 'sand', 'mud', 'clothing', 'armour', 'armor', 'jewellery', 'jewelry',
]);

/** "the apples" -> "any apples"; "your firewood" -> "any firewood"; "the sword" -> "a sword". */
export function indefinite(phrase: string): string {
  const bare = phrase.trim().replace(/^(?:the|a|an|some|any|my|your|that|this|those|these)\s+/, '');
  const head = (bare.split(/\s+of\s+/)[0] ?? bare).split(/\s+/).pop() ?? '';
  if (MASS_NOUNS.has(head) || singular(head) !== head) return `any ${bare}`;
  return `${/^[aeiou]/.test(bare) ? 'an' : 'a'} ${bare}`;
}

/** "I don't have a sword." / "I don't have any apples." */
export function dontHave(phrase: string): string {
  return `I don't have ${indefinite(phrase)}.`;
}

const NONE_OF_KIND: Record<Kind, string> = {
  food: "I don't have anything to eat.",
  drink: "I don't have anything to drink.",
  weapon: "I don't have a weapon.",
  wearable: "I don't have anything to wear.",
};

/** The refusal for a request by kind when the character has nothing of the kind. */
export function noneOfKind(kind: Kind): string {
  return NONE_OF_KIND[kind];
}

/** "I'm wearing the cloak; I'd have to take it off first." */
export function wornReason(world: World, object: ObjectNode): string {
  const wielded = world.placement(object.id)?.rel === 'wielded';
  return wielded ? `I'm wielding ${the(object)}; I'd have to put it away first.` : `I'm wearing ${the(object)}; I'd have to take it off first.`;
}

/** Why a thing held by someone else cannot be handed over: "The guard has the key, not me." */
export function heldByOther(world: World, holder: NodeId, partner: NodeId, object: ObjectNode): string {
  if (holder === partner) return `You have ${the(object)}, not me.`;
  const who = world.character(holder);
  return `${capitalize(who ? the(who) : 'someone')} has ${the(object)}, not me.`;
}

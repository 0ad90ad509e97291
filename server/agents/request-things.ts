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
  if (/(?:ss|us|is)$/.test(word) || word.length < 4) return word;
  if (/(?:ches|shes|xes|sses)$/.test(word)) return word.slice(0, -2);
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  return word.replace(/s$/, '');
}

/**
 * The object a phrase names among what the character can see, the one it holds first, then one
 * lying within reach, then one someone else holds; plurals name the singular ("the apples").
 */
export function objectNamed(world: World, self: NodeId, phrase: string): ObjectNode | undefined {
  const pool = world.visibleFrom(self).filter((id) => world.object(id));
  const words = phrase.trim().split(/\s+/);
  const tries = [phrase, [...words.slice(0, -1), singular(words[words.length - 1] ?? '')].join(' ')];
  for (const text of tries) {
    const r = resolve(world, text, pool);
    if (r.kind !== 'found') continue;
    const rank = (id: NodeId) => {
      const holder = world.holderOf(id);
      return holder === self ? 0 : holder ? 2 : 1;
    };
    const best = [...r.ids].sort((a, b) => rank(a) - rank(b))[0]!;
    return world.object(best);
  }
  return undefined;
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

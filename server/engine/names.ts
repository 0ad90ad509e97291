/** How nodes are named in messages: "the shovel", "a shovel", "Maud", "You". */
import type { GraphNode } from './types.js';

type Named = Pick<GraphNode, 'name'> & { prefix?: string };

const isProper = (n: Named) => n.prefix === '';

/** Definite: "the shovel"; proper names stay bare. */
export function the(n: Named): string {
  return isProper(n) ? n.name : `the ${n.name}`;
}

/** Indefinite: "a shovel", "an orc", "some bread"; proper names stay bare. */
export function a(n: Named): string {
  if (isProper(n)) return n.name;
  const prefix = n.prefix ?? (/^[aeiou]/i.test(n.name) ? 'an' : 'a');
  return prefix === 'the' ? `the ${n.name}` : `${prefix} ${n.name}`;
}

export function capitalize(s: string): string {
  return s.length ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** "a, b and c" */
export function listing(items: string[], conj = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conj} ${items[items.length - 1]}`;
}

/** Third-person singular of a verb: "get" -> "gets", "carry" -> "carries", "wish" -> "wishes". */
export function thirdPerson(verb: string): string {
  if (/(s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

const COUNT_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** "two", "twelve", "13". */
export function countWord(n: number): string {
  return COUNT_WORDS[n] ?? String(n);
}

const IRREGULAR: Record<string, string> = {
  man: 'men', woman: 'women', child: 'children', foot: 'feet', tooth: 'teeth', goose: 'geese', mouse: 'mice',
  louse: 'lice', ox: 'oxen', person: 'people', die: 'dice', knife: 'knives', wife: 'wives', life: 'lives',
  leaf: 'leaves', loaf: 'loaves', wolf: 'wolves', shelf: 'shelves', half: 'halves', thief: 'thieves', elf: 'elves',
  calf: 'calves', scarf: 'scarves', hoof: 'hooves', sheaf: 'sheaves', self: 'selves', dwarf: 'dwarves',
  potato: 'potatoes', tomato: 'tomatoes', hero: 'heroes', torpedo: 'torpedoes', echo: 'echoes', cactus: 'cacti',
  fungus: 'fungi', staff: 'staves',
};
const UNCHANGED = new Set(['sheep', 'deer', 'fish', 'moose', 'swine', 'bison', 'salmon', 'trout', 'cod', 'aircraft', 'series', 'species', 'clothes', 'scissors', 'tongs', 'trousers', 'pliers', 'shears', 'bellows', 'armour', 'armor', 'bread', 'hay', 'straw', 'grain', 'wheat', 'barley', 'corn', 'rice', 'flour', 'salt', 'sand', 'water', 'wine', 'ale', 'beer', 'mead', 'milk', 'honey', 'meat', 'cheese', 'wool', 'silk', 'cloth', 'gold', 'silver', 'iron', 'steel', 'wood', 'rope', 'mail']);
const NOT_MEN = new Set(['human', 'shaman', 'talisman', 'caiman', 'ottoman', 'german', 'doberman', 'walkman']);
/** Words after which the head noun has already come: "flask of ale" -> "flasks of ale". */
const AFTER_HEAD = new Set(['of', 'from', 'in', 'on', 'with', 'for', 'to', 'by', 'at', 'that', 'which', 'made', 'full', 'filled', 'covered', 'under', 'without']);

function pluralWord(w: string): string {
  const lower = w.toLowerCase();
  const keep = (p: string) => (w === lower ? p : w.slice(0, 1) + p.slice(1));
  if (IRREGULAR[lower]) return keep(IRREGULAR[lower]!);
  if (UNCHANGED.has(lower)) return w;
  if (lower.endsWith('man') && lower.length > 5 && !NOT_MEN.has(lower)) return `${w.slice(0, -3)}men`; // fisherman, watchman
  if (/(s|x|z|ch|sh)$/i.test(w)) return `${w}es`;
  if (/[^aeiou]y$/i.test(w)) return `${w.slice(0, -1)}ies`;
  return `${w}s`;
}

/** The plural of a noun phrase: "candle" -> "candles", "flask of ale" -> "flasks of ale", "old knife" -> "old knives". */
export function plural(name: string): string {
  const words = name.split(' ');
  let head = words.findIndex((w, i) => i > 0 && AFTER_HEAD.has(w.toLowerCase())) - 1;
  if (head < 0) head = words.length - 1;
  words[head] = pluralWord(words[head]!);
  return words.join(' ');
}

/**
 * Identical things counted: ["a candle", "a candle", "an apple"] -> ["two candles", "an apple"], in order of
 * first appearance. `one` is how a single item reads; `many` how n of them read, or null where they
 * cannot be counted (proper names, "some bread").
 */
export function counted<T>(items: T[], key: (x: T) => string, one: (x: T) => string, many: (x: T, n: number) => string | null): string[] {
  const groups = new Map<string, T[]>();
  for (const x of items) {
    const k = key(x);
    const g = groups.get(k);
    if (g) g.push(x);
    else groups.set(k, [x]);
  }
  const out: string[] = [];
  for (const g of groups.values()) {
    const text = g.length > 1 ? many(g[0]!, g.length) : null;
    if (text) out.push(text);
    else out.push(...g.map(one));
  }
  return out;
}

/** "two candles"; null for a proper name or a mass noun ("some bread"), which are not counted. */
export function countedName(n: Named, count: number): string | null {
  if (isProper(n) || n.prefix === 'some') return null;
  return `${countWord(count)} ${plural(n.name)}`;
}

/** "you" for "I", "your" for "my": a first-person persona read back to its own character. */
export function secondPerson(text: string): string {
  const map: Record<string, string> = {
    "i'm": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd", i: 'you', me: 'you', my: 'your', mine: 'yours',
    myself: 'yourself', am: 'are', was: 'were',
  };
  let prevI = false;
  return text.replace(/[\p{L}']+/gu, (word, offset: number) => {
    const lower = word.toLowerCase();
    const wasI = prevI;
    prevI = lower === 'i';
    // "am" and "was" change only after "I" ("I was" -> "you were"; "it was" stays)
    if ((lower === 'am' || lower === 'was') && !wasI) return word;
    const rep = map[lower];
    if (!rep || (lower !== 'i' && word !== lower && word !== capitalize(lower))) return word;
    const start = offset === 0 || /[.!?]\s*$/.test(text.slice(0, offset)) || /["(]\s*$/.test(text.slice(Math.max(0, offset - 2), offset));
    return start ? capitalize(rep) : rep;
  });
}

/** How to point or look along an exit: "north", "up", "at the back door" (one article). */
export function exitWay(label: string): string {
  const l = label.trim();
  if (/^(north|south|east|west|northeast|northwest|southeast|southwest|up|down|in|out)$/i.test(l)) return l;
  return `at the ${l.replace(/^(the|a|an)\s+/i, '')}`;
}

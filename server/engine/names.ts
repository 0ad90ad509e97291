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

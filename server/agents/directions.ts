/**
 * The way somewhere, from the graph: "What's the best way to the town?", "How do I get to the
 * chapel?", "Where is the tavern?" -> "Go north to South Gate, then north again to Market Square."
 *
 * A place is named by the words of a room's name ("chapel", "Crooked Lantern"), of its category
 * ("town", "tavern", "castle") or of its area (the world file it came from: "town", "coast"). The
 * nearest room that matches most of the asked words is the answer; the path is the shortest by
 * exits. Retrieved lines answered these with another place's roads ("That's the town, with the
 * castle on its rock", said on an inland farm).
 */
import type { NodeId } from '../engine/types.js';
import type { World } from '../engine/world.js';

const ASKS = [
  /\b(?:way|road|path|route|directions?)\s+(?:to|for|towards?)\s+(.+)$/,
  /\bhow\s+(?:do|can|could|would|might|should|will)\s+(?:i|we|one|you)\s+(?:get|go|reach|find|come)\s+(?:to\s+|back to\s+)?(.+)$/,
  /\bwhich\s+way\s+(?:is|to|for|lies)\s+(.+)$/,
  /\bwhere(?:'s|\s+is|\s+are|\s+can\s+i\s+find|\s+would\s+i\s+find|\s+do\s+i\s+find)\s+(.+)$/,
  /\bis\s+(?:it|the)\s+far\s+to\s+(.+)$/,
];

/** Words that do not name a place. */
const NOT_PLACE = new Set(
  'a an the this that these those here there around near nearest closest best quickest shortest way from of to in on at and or please any some you i me my your it good old nice little big new'.split(' '),
);

const words = (s: string): string[] => s.toLowerCase().match(/[a-z']+/g) ?? [];
/** "cottages" -> "cottage", "the castle's" -> "castle". */
const stem = (w: string): string => w.replace(/'s$/, '').replace(/(?<=[a-z]{3})s$/, '');

/** The place words of a question asking the way, if it asks the way; `where` says it asked "where is X" (which may be a thing). */
export function placeAsked(text: string): { place: string[]; where: boolean } | undefined {
  const s = text.toLowerCase().replace(/\s+/g, ' ').trim();
  for (const re of ASKS) {
    const m = re.exec(s);
    if (!m) continue;
    // up to the end of the clause: "to the town, please?" / "to the chapel from here?"
    const phrase = m[1]!.split(/[?.!,;]|\s+(?:from|please|if|so|before|after|because|now|today|tonight)\b/)[0]!;
    const place = words(phrase).filter((w) => !NOT_PLACE.has(w)).map(stem);
    if (place.length && place.length <= 4) return { place, where: re === ASKS[3] };
  }
  return undefined;
}

/** Other words people use for kinds of place ("Where is the inn?" finds the tavern). */
const ALSO_CALLED: Record<string, string[]> = {
  tavern: ['inn', 'pub', 'alehouse', 'taproom'],
  inn: ['tavern', 'pub', 'alehouse'],
  chapel: ['church', 'kirk', 'shrine'],
  temple: ['church', 'shrine'],
  forge: ['smithy', 'blacksmith'],
  smithy: ['forge', 'blacksmith'],
  market: ['marketplace', 'bazaar'],
  harbour: ['harbor', 'port'],
  dock: ['harbour', 'harbor', 'port', 'quay', 'wharf'],
  graveyard: ['cemetery', 'churchyard'],
  mill: ['watermill'],
};

/** The words a room answers to: its name, its category, the area its id starts with, and other words for its kind. */
function roomWords(world: World, id: NodeId): Set<string> {
  const r = world.room(id)!;
  const area = /^([a-z]+)-/.exec(id)?.[1];
  const own = [...words(r.name), ...words(r.category ?? ''), ...(area ? [area] : [])].map(stem);
  return new Set([...own, ...own.flatMap((w) => ALSO_CALLED[w] ?? [])]);
}

/** Rooms by distance from `from`, each with the exit taken first on the way from the previous room. */
function shortestPaths(world: World, from: NodeId): Map<NodeId, { prev?: NodeId; label?: string; steps: number }> {
  const seen = new Map<NodeId, { prev?: NodeId; label?: string; steps: number }>([[from, { steps: 0 }]]);
  const queue = [from];
  while (queue.length) {
    const at = queue.shift()!;
    const steps = seen.get(at)!.steps;
    for (const e of world.room(at)?.exits ?? []) {
      if (seen.has(e.to) || !world.room(e.to)) continue;
      seen.set(e.to, { prev: at, label: e.label, steps: steps + 1 });
      queue.push(e.to);
    }
  }
  return seen;
}

const COMPASS = /^(?:north|south|east|west|northeast|northwest|southeast|southwest|up|down|in|out)$/;

/** "north" -> "north", "up the headland path" -> "up the headland path", "the causeway" -> "along the causeway". */
function going(label: string): string {
  if (COMPASS.test(label) || /^(?:up|down|in|out|into|through|over|across|along|past|round|around|east|west|north|south)\b/.test(label)) return label;
  return `along ${label}`;
}

/**
 * A truthful answer when `text` asks the way to a place of this world, from where `self` stands;
 * undefined when it does not ask the way or names no place the world has.
 */
export function answerWay(world: World, self: NodeId, text: string): string | undefined {
  const q = placeAsked(text);
  const here = world.roomOf(self);
  if (!q || !here) return undefined;
  const asked = q.place;
  // "Where is the lantern?" asks for a thing, not the Crooked Lantern
  if (q.where && world.nodes().some((n) => n.kind === 'object' && stem(words(n.name).pop() ?? '') === asked[asked.length - 1])) return undefined;
  const paths = shortestPaths(world, here);
  let best: { id: NodeId; hits: number; steps: number } | undefined;
  for (const [id, p] of paths) {
    const rw = roomWords(world, id);
    const hits = asked.filter((w) => rw.has(w)).length;
    if (!hits) continue;
    if (!best || hits > best.hits || (hits === best.hits && p.steps < best.steps)) best = { id, hits, steps: p.steps };
  }
  // every asked word a place word must match, but one ("the old mill" has "mill"; "the town well" may be in no room's name)
  if (!best || best.hits < Math.max(1, asked.length - 1)) return undefined;
  const name = world.room(best.id)!.name.replace(/^The\s/, 'the ');
  if (best.id === here) return `You're in the ${asked.join(' ')} already: this is ${name}.`;
  const legs: { label: string; to: NodeId }[] = [];
  for (let at: NodeId | undefined = best.id; at && at !== here; at = paths.get(at)!.prev) legs.unshift({ label: paths.get(at)!.label!, to: at });
  const leg = (l: { label: string; to: NodeId }, again: boolean) => `${going(l.label)}${again ? ' again' : ''} to ${world.room(l.to)!.name.replace(/^The\s/, 'the ')}`;
  const said = legs.slice(0, 3).map((l, i) => leg(l, i > 0 && l.label === legs[i - 1]!.label));
  const text1 = said.length === 1 ? said[0]! : `${said.slice(0, -1).join(', ')}, then ${said[said.length - 1]}`;
  const more = legs.length > 3 ? ` From there it's ${legs.length - 3 === 1 ? 'one more step' : `${legs.length - 3} more steps`} to ${name}.` : '';
  return `Go ${text1}.${more}`;
}

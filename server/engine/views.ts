/** What a character sees when it looks around, examines something or checks its inventory. */
import { a, capitalize, counted, countedName, countWord, listing, secondPerson, the } from './names.js';
import { DEFAULT_CAPACITY, DEFAULT_SIZE, MAX_WIELDED, MAX_WORN } from './actions/common.js';
import { conditionWord, healthOf, otherCondition } from './health.js';
import type { CharacterNode, Exit } from './types.js';
import type { NodeId, ObjectNode } from './types.js';
import type { World } from './world.js';

/** "a chest (in it: a coin and a ring)" — contents one level deep, recursively. */
export function describeObject(w: World, o: ObjectNode, depth = 0): string {
  const inside = w.objectsIn(o.id, 'in');
  const onTop = w.objectsIn(o.id, 'on');
  const parts: string[] = [];
  if (depth < 3) {
    if (inside.length) parts.push(`in it: ${listObjects(w, inside, depth + 1)}`);
    if (onTop.length) parts.push(`on it: ${listObjects(w, onTop, depth + 1)}`);
  }
  return parts.length ? `${a(o)} (${parts.join('; ')})` : a(o);
}

/** "two candles, an apple and a chest (in it: a coin)": identical things counted, the rest listed. */
export function listObjects(w: World, objects: ObjectNode[], depth = 0): string {
  return listing(objectPhrases(w, objects, depth));
}

function objectPhrases(w: World, objects: ObjectNode[], depth = 0): string[] {
  return counted(
    objects,
    (o) => `${o.prefix}\u0000${describeObject(w, o, depth)}`,
    (o) => describeObject(w, o, depth),
    // only things with nothing in or on them are counted: "two chests" would hide what each holds
    (o, n) => (describeObject(w, o, depth) === a(o) ? countedName(o, n) : null),
  );
}

/** "Two guards and Maud": people of one name counted, proper names listed. */
function peoplePhrases(people: CharacterNode[]): string[] {
  return counted(people, (c) => `${c.prefix}\u0000${c.name}`, (c) => a(c), (c, n) => countedName(c, n));
}

export function exitsLine(w: World, room: NodeId): string {
  const exits = w.room(room)?.exits ?? [];
  if (!exits.length) return 'There is no way out.';
  return `Exits: ${exits.map((e) => `${e.label} (${w.room(e.to)?.name ?? '?'})`).join(', ')}.`;
}

export function look(w: World, actor: NodeId): string {
  const roomId = w.roomOf(actor);
  const room = roomId ? w.room(roomId) : undefined;
  if (!room) return 'You are nowhere at all.';
  const lines = [room.name, room.description, exitsLine(w, room.id)];
  const objects = w.objectsIn(room.id, 'in');
  if (objects.length) lines.push(`You see ${listObjects(w, objects)}.`);
  const people = w.charactersIn(room.id).filter((c) => c.id !== actor);
  if (people.length) lines.push(`${capitalize(listing(peoplePhrases(people)))} ${people.length === 1 ? 'is' : 'are'} here.`);
  return lines.join('\n');
}

function heldLines(w: World, who: NodeId, self: boolean): string[] {
  const carried = w.objectsIn(who, 'carried');
  const worn = w.objectsIn(who, 'worn');
  const wielded = w.objectsIn(who, 'wielded');
  const subj = self ? 'You are' : 'They are';
  const lines: string[] = [];
  if (carried.length) lines.push(`${subj} carrying ${listObjects(w, carried)}.`);
  if (worn.length) lines.push(`${subj} wearing ${listObjects(w, worn)}.`);
  if (wielded.length) lines.push(`${subj} wielding ${listObjects(w, wielded)}.`);
  return lines;
}

export function inventory(w: World, actor: NodeId): string {
  const lines = heldLines(w, actor, true);
  return lines.length ? lines.join('\n') : 'You are carrying nothing.';
}

/** "North: Tool Shed." and that room's description: what one sees looking through an exit. */
export function lookToward(w: World, exit: Exit): string {
  const there = w.room(exit.to)!;
  const lead = `${capitalize(exit.label.replace(/^(a|an)\s+/i, 'the '))}: ${there.name}.`;
  return [lead, there.description].filter(Boolean).join('\n');
}

export function examine(w: World, viewer: NodeId, id: NodeId): string {
  const n = w.node(id);
  if (!n) return 'There is nothing like that here.';
  if (n.kind === 'room') return [n.name, n.description, n.backstory, exitsLine(w, n.id)].join('\n');
  if (n.kind === 'character') {
    // yourself: your persona in the second person, not the description others read
    if (id === viewer) {
      const self = n.persona.trim() ? secondPerson(n.persona.trim()) : '';
      const intro = /^I am\b/i.test(n.persona.trim()) ? [] : [`You are ${a(n)}.`];
      return [...intro, ...(self ? [self] : []), ...heldLines(w, id, true)].join('\n');
    }
    return [capitalize(a(n)) + '.', n.description, otherCondition(n), ...heldLines(w, id, false)].join('\n');
  }
  const lines = [n.description];
  const inside = w.objectsIn(id, 'in');
  const onTop = w.objectsIn(id, 'on');
  if (n.container) lines.push(inside.length ? `In ${the(n)}: ${listObjects(w, inside)}.` : `${capitalize(the(n))} is empty.`);
  else if (inside.length) lines.push(`In ${the(n)}: ${listObjects(w, inside)}.`);
  if (n.surface) lines.push(onTop.length ? `On ${the(n)}: ${listObjects(w, onTop)}.` : `There is nothing on ${the(n)}.`);
  return lines.join('\n');
}

/**
 * `score` (lightmud's, not LIGHT's: what MUD players expect): who and where you are, your health in
 * figures and words, how much you carry, wear and wield against the limits, whom you follow and block.
 */
export function score(w: World, actor: NodeId): string {
  const c = w.character(actor)!;
  const room = w.room(w.roomOf(actor)!)!;
  const count = (rel: 'carried' | 'worn' | 'wielded') => w.objectsIn(actor, rel).length;
  const things = (n: number) => (n === 0 ? 'nothing' : n === 1 ? 'one thing' : `${countWord(n)} things`);
  const load = w.objectsIn(actor).reduce((sum, o) => sum + (o.size ?? DEFAULT_SIZE), 0);
  const lines = [
    `You are ${the(c)}, in ${room.name}.`,
    `Health: ${healthOf(c)}. You are feeling ${conditionWord(healthOf(c))}.`,
    `You carry ${things(count('carried'))}, wear ${count('worn')} of ${MAX_WORN} and wield ${count('wielded')} of ${MAX_WIELDED}; ` +
      `they take ${load} of the ${c.capacity ?? DEFAULT_CAPACITY} you can hold.`,
  ];
  const ties: string[] = [];
  if (c.following && w.character(c.following)) ties.push(`You are following ${the(w.character(c.following)!)}.`);
  if (c.blocking && w.character(c.blocking)) ties.push(`You are blocking ${the(w.character(c.blocking)!)}.`);
  const blockers = w.characters().filter((b) => b.blocking === actor && w.roomOf(b.id) === room.id);
  if (blockers.length) ties.push(`${capitalize(listing(blockers.map((b) => the(b))))} ${blockers.length === 1 ? 'is' : 'are'} blocking you.`);
  return [...lines, ...ties].join('\n');
}

/** What a character sees when it looks around, examines something or checks its inventory. */
import { a, capitalize, listing, the } from './names.js';
import type { NodeId, ObjectNode } from './types.js';
import type { World } from './world.js';

/** "a chest (in it: a coin and a ring)" — contents one level deep, recursively. */
export function describeObject(w: World, o: ObjectNode, depth = 0): string {
  const inside = w.objectsIn(o.id, 'in');
  const onTop = w.objectsIn(o.id, 'on');
  const parts: string[] = [];
  if (depth < 3) {
    if (inside.length) parts.push(`in it: ${listing(inside.map((c) => describeObject(w, c, depth + 1)))}`);
    if (onTop.length) parts.push(`on it: ${listing(onTop.map((c) => describeObject(w, c, depth + 1)))}`);
  }
  return parts.length ? `${a(o)} (${parts.join('; ')})` : a(o);
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
  if (objects.length) lines.push(`You see ${listing(objects.map((o) => describeObject(w, o)))}.`);
  const people = w.charactersIn(room.id).filter((c) => c.id !== actor);
  if (people.length) lines.push(`${capitalize(listing(people.map((c) => a(c))))} ${people.length === 1 ? 'is' : 'are'} here.`);
  return lines.join('\n');
}

function heldLines(w: World, who: NodeId, self: boolean): string[] {
  const carried = w.objectsIn(who, 'carried');
  const worn = w.objectsIn(who, 'worn');
  const wielded = w.objectsIn(who, 'wielded');
  const subj = self ? 'You are' : 'They are';
  const lines: string[] = [];
  if (carried.length) lines.push(`${subj} carrying ${listing(carried.map((o) => describeObject(w, o)))}.`);
  if (worn.length) lines.push(`${subj} wearing ${listing(worn.map((o) => describeObject(w, o)))}.`);
  if (wielded.length) lines.push(`${subj} wielding ${listing(wielded.map((o) => describeObject(w, o)))}.`);
  return lines;
}

export function inventory(w: World, actor: NodeId): string {
  const lines = heldLines(w, actor, true);
  return lines.length ? lines.join('\n') : 'You are carrying nothing.';
}

export function examine(w: World, viewer: NodeId, id: NodeId): string {
  const n = w.node(id);
  if (!n) return 'There is nothing like that here.';
  if (n.kind === 'room') return [n.name, n.description, n.backstory, exitsLine(w, n.id)].join('\n');
  if (n.kind === 'character') {
    if (id === viewer) return [`You are ${a(n)}.`, n.description, ...heldLines(w, id, true)].join('\n');
    return [capitalize(a(n)) + '.', n.description, ...heldLines(w, id, false)].join('\n');
  }
  const lines = [n.description];
  const inside = w.objectsIn(id, 'in');
  const onTop = w.objectsIn(id, 'on');
  if (n.container) lines.push(inside.length ? `In ${the(n)}: ${listing(inside.map((o) => describeObject(w, o)))}.` : `${capitalize(the(n))} is empty.`);
  else if (inside.length) lines.push(`In ${the(n)}: ${listing(inside.map((o) => describeObject(w, o)))}.`);
  if (n.surface) lines.push(onTop.length ? `On ${the(n)}: ${listing(onTop.map((o) => describeObject(w, o)))}.` : `There is nothing on ${the(n)}.`);
  return lines.join('\n');
}

/**
 * Health, harm and death, as LIGHT's agents have them: a character has a small number of health
 * points (DEFAULT_HEALTH when its world gives none); `hit` may take some away; at 0 the character
 * dies: its body becomes a container in the room holding everything it carried, wore and wielded,
 * and the character leaves play (its node is gone, as when a world reload drops it).
 * Pure: reads and changes the World, returns events.
 */
import { seenInRoom, type GameEvent } from './events.js';
import { capitalize, the } from './names.js';
import { DEFAULT_FOOD_ENERGY, DEFAULT_HEALTH, MAX_HEALTH, type CharacterNode, type NodeId, type ObjectNode } from './types.js';
import type { World } from './world.js';

/** A character's health now (DEFAULT_HEALTH when its world never set one). */
export function healthOf(c: CharacterNode): number {
  return c.health ?? DEFAULT_HEALTH;
}

/**
 * How a health figure reads ("You are feeling fine." / "The orc looks badly hurt."). One word or
 * phrase per point up to 7, as LIGHT reads its own scale from 0 to 8 (higher reads as the top).
 */
const CONDITION = ['dead', 'close to death', 'badly hurt', 'hurt', 'bruised', 'a little bruised', 'fine', 'fine', 'very strong'];

export function conditionWord(health: number): string {
  return CONDITION[Math.max(0, Math.min(CONDITION.length - 1, Math.floor(health)))]!;
}

/** "You are feeling fine." */
export function selfCondition(c: CharacterNode): string {
  return `You are feeling ${conditionWord(healthOf(c))}.`;
}

/** "The orc looks badly hurt." */
export function otherCondition(c: CharacterNode): string {
  return `${capitalize(the(c))} looks ${conditionWord(healthOf(c))}.`;
}

/**
 * LIGHT's hit with its default stats (damage 1, defence 0): a roll of 0, 1 or 2 from the world's
 * seeded generator; 0 misses, 1 is blocked, 2 harms for 2 points. Advances the world's rng state.
 */
export type HitRoll = { kind: 'miss' } | { kind: 'blocked' } | { kind: 'harm'; damage: number };

export const HIT_DAMAGE = 2;

export function rollHit(w: World): HitRoll {
  const roll = Math.floor(w.random() * 3);
  if (roll === 0) return { kind: 'miss' };
  if (roll === 1) return { kind: 'blocked' };
  return { kind: 'harm', damage: HIT_DAMAGE };
}

/** The health food or drink gives (LIGHT's food_energy; below 0 it is poisoned). */
export function foodEnergyOf(o: ObjectNode): number {
  return o.foodEnergy ?? DEFAULT_FOOD_ENERGY;
}

/**
 * LIGHT's ingest effect: the eater's health changes by the food's energy (not below 0, not above
 * MAX_HEALTH). Returns what the eater is told after "You eat the apple.": LIGHT's "Gross!" when it
 * harmed, and how the eater now feels when that changed in words (LIGHT's health event on ingest);
 * "" when nothing shows. At 0 health the caller follows with death (game.ts). Nobody else is told.
 */
export function ingestEffect(w: World, eater: NodeId, food: ObjectNode): string {
  const c = w.character(eater)!;
  const energy = foodEnergyOf(food);
  if (energy === 0) return '';
  const before = healthOf(c);
  const after = Math.max(0, Math.min(MAX_HEALTH, before + energy));
  if (after !== before) w.setHealth(eater, after);
  const words: string[] = [];
  if (energy < 0) words.push('Gross!');
  if (after > 0 && conditionWord(after) !== conditionWord(before)) words.push(selfCondition(c));
  return words.join(' ');
}

/** The id a body gets: LIGHT's `<id>__dead__`, or a fresh one if that is taken. */
function bodyId(w: World, id: NodeId): NodeId {
  const want = `${id}__dead__`;
  return w.has(want) ? w.newId(`${id}-body`) : want;
}

/** The body of a dead character, if it lies anywhere in the world (to tell its player why it cannot act). */
export function bodyOf(w: World, id: NodeId): ObjectNode | undefined {
  return w.object(`${id}__dead__`);
}

/**
 * The character dies: the room (and it) see it, its body (a container, not gettable) is left in
 * the room holding what it carried, wore and wielded, in that order; whoever followed it follows
 * no one; its node leaves the world. Returns the `death` event (actor: the dead character).
 */
export function die(w: World, id: NodeId): GameEvent {
  const c = w.character(id)!;
  const room = w.roomOf(id)!;
  const The = capitalize(the(c));
  const seen = seenInRoom(w, room, id, { actor: 'You die.', others: `${The} dies.` });
  const body: ObjectNode = {
    kind: 'object', id: bodyId(w, id), name: `body of ${the(c)}`, prefix: 'the',
    description: `${The} lies here dead and still.`,
    gettable: false, container: true, surface: false, weapon: false, wearable: false, food: false, drink: false,
  };
  w.add(body, { parent: room, rel: 'in' });
  const held = [...w.children(id, 'carried'), ...w.children(id, 'worn'), ...w.children(id, 'wielded')];
  for (const thing of held) w.move(thing, body.id, 'in');
  for (const other of w.characters()) {
    if (other.following === id) w.setFollowing(other.id, undefined);
    if (other.blocking === id) w.setBlocking(other.id, undefined);
  }
  w.destroy(id);
  return { type: 'death', actor: id, room, object: body.id, seen };
}

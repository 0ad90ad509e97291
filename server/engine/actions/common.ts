/** Constraint building blocks shared by the action rules. */
import { a, capitalize, listing, the } from '../names.js';
import type { GraphNode, NodeId, ObjectNode } from '../types.js';
import type { World } from '../world.js';
import type { ActionArgs, Constraint } from './rule.js';

export const nameOf = (w: World, id: NodeId | undefined): string => (id ? w.node(id)?.name ?? '?' : '?');
export const theOf = (w: World, id: NodeId | undefined): string => {
  const n = id ? w.node(id) : undefined;
  return n ? the(n) : 'it';
};
export const aOf = (w: World, id: NodeId | undefined): string => {
  const n = id ? w.node(id) : undefined;
  return n ? a(n) : 'something';
};
export const The = (w: World, id: NodeId | undefined) => capitalize(theOf(w, id));

/** Is `id` held directly by `actor` with relation `carried`? */
export function carries(w: World, actor: NodeId, id: NodeId | undefined): boolean {
  if (!id) return false;
  const p = w.placement(id);
  return p?.parent === actor && p.rel === 'carried';
}

/** Where an object that the actor does not carry is, in words: "You are wearing the cloak." */
export function whereInstead(w: World, actor: NodeId, id: NodeId | undefined): string {
  if (!id || !w.node(id)) return "You don't have that.";
  const p = w.placement(id);
  const name = theOf(w, id);
  if (p?.parent === actor && p.rel === 'worn') return `You are wearing ${name}; remove it first.`;
  if (p?.parent === actor && p.rel === 'wielded') return `You are wielding ${name}; remove it first.`;
  if (w.holderOf(id) === actor) return `${capitalize(name)} is ${p?.rel} ${theOf(w, p?.parent)}; get it out first.`;
  const holder = w.holderOf(id);
  if (holder) return `You aren't carrying ${name}; ${theOf(w, holder)} has it.`;
  return `You aren't carrying ${name}.`;
}

/** In the actor's room at any depth and not held by another character, or held by the actor. */
export function withinReach(w: World, actor: NodeId, id: NodeId | undefined): boolean {
  if (!id || !w.object(id)) return false;
  const holder = w.holderOf(id);
  if (holder) return holder === actor;
  return w.roomOf(id) === w.roomOf(actor);
}

/** The container or surface Y is within the actor's reach (in the room, or held by the actor). */
export function containerWithinReach(): Constraint {
  return {
    id: 'same_room',
    holds: (w, actor, x) => withinReach(w, actor, x.container),
    failure: (w, actor, x) => {
      const holder = x.container ? w.holderOf(x.container) : undefined;
      if (holder && holder !== actor) return `${The(w, holder)} has ${theOf(w, x.container)}.`;
      return `${The(w, x.container)} is not here.`;
    },
  };
}

/** Another character in the actor's room. */
export function targetHere(): Constraint {
  return {
    id: 'same_room',
    holds: (w, actor, args) => !!args.target && args.target !== actor && !!w.character(args.target) && w.roomOf(args.target) === w.roomOf(actor),
    failure: (w, actor, args) => {
      if (args.target === actor) return "You can't do that to yourself.";
      if (!args.target || !w.character(args.target)) return `${The(w, args.target)} is not someone you can do that to.`;
      return `${The(w, args.target)} is not here.`;
    },
  };
}

export function objectCarried(): Constraint {
  return { id: 'carried', holds: (w, actor, x) => carries(w, actor, x.object), failure: (w, actor, x) => whereInstead(w, actor, x.object) };
}

export function objectIs(flag: keyof Pick<ObjectNode, 'gettable' | 'wearable' | 'weapon' | 'food' | 'drink'>, id: string, why: (name: string) => string): Constraint {
  return {
    id,
    holds: (w, _actor, x) => !!x.object && !!w.object(x.object)?.[flag],
    failure: (w, _actor, x) => why(theOf(w, x.object)),
  };
}

/** Candidate bindings: each of the actor's directly carried objects. */
export function carriedObjects(w: World, actor: NodeId): ActionArgs[] {
  return w.objectsIn(actor, 'carried').map((o) => ({ object: o.id }));
}

export function otherCharactersHere(w: World, actor: NodeId): GraphNode[] {
  const room = w.roomOf(actor);
  return room ? w.charactersIn(room).filter((c) => c.id !== actor) : [];
}

/** A node's name as it appears in canonical action text: lower case, as commands are matched without case. */
export const cname = (w: World, id: NodeId | undefined): string => (id ? w.node(id)?.name.toLowerCase() ?? '?' : '?');

// ---- limits and traits (LIGHT's defaults) ------------------------------------------------------

/** LIGHT's limits on what one character has on: worn things, and wielded things. */
export const MAX_WORN = 3;
export const MAX_WIELDED = 1;
/** LIGHT's default size of an object, and what a container, surface or character holds. */
export const DEFAULT_SIZE = 1;
export const DEFAULT_CAPACITY = 20;

export const sizeOf = (w: World, id: NodeId): number => w.object(id)?.size ?? DEFAULT_SIZE;
/** What a character or a container/surface can hold; Infinity for rooms. */
export function capacityOf(w: World, id: NodeId): number {
  const n = w.node(id);
  if (!n || n.kind === 'room') return Infinity;
  return n.capacity ?? DEFAULT_CAPACITY;
}
/** The room its direct contents take (for a character: carried, worn and wielded together). */
export const loadOf = (w: World, id: NodeId): number => w.objectsIn(id).reduce((sum, o) => sum + (o.size ?? DEFAULT_SIZE), 0);
/** Would `object` fit in `holder` beside what it holds already? */
export const fits = (w: World, holder: NodeId, object: NodeId): boolean => loadOf(w, holder) + sizeOf(w, object) <= capacityOf(w, holder);

/** The actor can take X without going over what it can hold (LIGHT: "you can't carry that much more"). */
export function actorCanHold(): Constraint {
  return {
    id: 'capacity',
    holds: (w, actor, x) => !!x.object && fits(w, actor, x.object),
    failure: (w, _actor, x) => `You can't carry ${theOf(w, x.object)}: you can't carry that much more.`,
  };
}

/** How many things a character has on with the relation. */
export const onBody = (w: World, actor: NodeId, rel: 'worn' | 'wielded'): ObjectNode[] => w.objectsIn(actor, rel);

const NUMBER = ['no', 'one', 'two', 'three', 'four', 'five', 'six'];

/** LIGHT's limits: at most MAX_WORN worn things and MAX_WIELDED wielded ones. */
export function bodyLimit(rel: 'worn' | 'wielded'): Constraint {
  const max = rel === 'worn' ? MAX_WORN : MAX_WIELDED;
  return {
    id: rel === 'worn' ? 'wear_limit' : 'wield_limit',
    holds: (w, actor) => onBody(w, actor, rel).length < max,
    failure: (w, actor) => {
      const on = listing(onBody(w, actor, rel).map((o) => the(o)), 'and');
      return rel === 'worn'
        ? `You can't wear any more: you are already wearing ${on} (${NUMBER[max] ?? max} things at most). Remove one first.`
        : `You can't wield any more: you are already wielding ${on}. Remove it first.`;
    },
  };
}

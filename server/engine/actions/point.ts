/**
 * point X — X something the actor can see: an object here (held by anyone present, or in or on
 * something), another character here, or a room next door. Effect: none on the graph; the room
 * sees it, and whoever holds the object or is pointed at is told so (LIGHT's point).
 */
import { seenInRoom } from '../events.js';
import type { NodeId } from '../types.js';
import type { World } from '../world.js';
import { exitWay } from '../names.js';
import { The, theOf, cname } from './common.js';
import type { ActionArgs, ActionRule } from './rule.js';

/** Everything one can point at from where the actor stands. */
export function pointable(w: World, actor: NodeId): NodeId[] {
  const room = w.roomOf(actor);
  if (!room) return [];
  const here = w.visibleFrom(actor).filter((id) => id !== actor && (w.object(id) || w.character(id)));
  return [...here, ...w.neighbours(room).filter((r) => r !== room)];
}

const HELD: Record<string, string> = { carried: 'carrying', worn: 'wearing', wielded: 'wielding' };

export const point: ActionRule = {
  name: 'point',
  slots: ['thing'],
  extra: true,
  constraints: [
    {
      id: 'same_room',
      holds: (w, actor, x) => !!x.thing && pointable(w, actor).includes(x.thing),
      failure: (w, _a, x) => `You don't see ${theOf(w, x.thing)} from here.`,
    },
  ],
  apply(w, actor, x) {
    const room = w.roomOf(actor)!;
    const thing = x.thing!;
    const Me = The(w, actor);
    let ev;
    if (w.room(thing)) {
      const exit = w.room(room)!.exits.find((e) => e.to === thing)!;
      const way = `${exitWay(exit.label)}, toward ${w.room(thing)!.name}`;
      ev = { actor: `You point ${way}.`, others: `${Me} points ${way}.` };
    } else if (w.character(thing)) {
      ev = { actor: `You point at ${theOf(w, thing)}.`, target: `${Me} points at you.`, others: `${Me} points at ${theOf(w, thing)}.` };
    } else {
      const p = w.placement(thing)!;
      const holder = w.character(p.parent) ? p.parent : undefined;
      const name = theOf(w, thing);
      if (!holder) ev = { actor: `You point at ${name}.`, others: `${Me} points at ${name}.` };
      else if (holder === actor) ev = { actor: `You point at ${name} you are ${HELD[p.rel]}.`, others: `${Me} points at ${name} they are ${HELD[p.rel]}.` };
      else {
        const by = `${name} ${p.rel} by ${theOf(w, holder)}`;
        const seen = seenInRoom(w, room, actor, { actor: `You point at ${by}.`, target: `${Me} points at ${name} you are ${HELD[p.rel]}.`, others: `${Me} points at ${by}.` }, holder);
        return { type: 'point', actor, room, object: thing, target: holder, action: this.canonical(w, x), seen };
      }
    }
    const seen = seenInRoom(w, room, actor, ev, w.character(thing) ? thing : undefined);
    const out = { type: 'point', actor, room, action: this.canonical(w, x), seen } as ReturnType<ActionRule['apply']>;
    if (w.character(thing)) out.target = thing;
    else if (w.object(thing)) out.object = thing;
    return out;
  },
  canonical: (w, x) => `point ${cname(w, x.thing)}`,
  candidates: (w, actor): ActionArgs[] => pointable(w, actor).map((thing) => ({ thing })),
};

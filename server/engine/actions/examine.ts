/**
 * examine X — LIGHT's examine: X anything the actor can see: an object here (at any depth, held by
 * anyone present), a character here (the actor too), the room itself or a room next door. Effect:
 * none on the graph. The actor reads X's description (views.ts: a character's with how hurt it
 * looks and what it has); as in LIGHT the room sees that it happened ("The gardener examines the
 * orc.") and a character examined is told ("The gardener examines you.").
 */
import { seenInRoom } from '../events.js';
import { exitWay } from '../names.js';
import type { NodeId } from '../types.js';
import { examine as describe, lookToward } from '../views.js';
import type { World } from '../world.js';
import { The, theOf, cname } from './common.js';
import type { ActionArgs, ActionRule } from './rule.js';

/** Everything the actor can examine from where it stands. */
export function examinable(w: World, actor: NodeId): NodeId[] {
  const room = w.roomOf(actor);
  if (!room) return [];
  const here = w.visibleFrom(actor).filter((id) => w.object(id) || w.character(id));
  return [...here, room, ...w.neighbours(room).filter((r) => r !== room)];
}

export const examine: ActionRule = {
  name: 'examine',
  slots: ['thing'],
  extra: true,
  constraints: [
    {
      id: 'same_room',
      holds: (w, actor, x) => !!x.thing && examinable(w, actor).includes(x.thing),
      failure: (w, _a, x) => `You don't see ${theOf(w, x.thing)} from here.`,
    },
  ],
  apply(w, actor, x) {
    const room = w.roomOf(actor)!;
    const thing = x.thing!;
    const Me = The(w, actor);
    let text: string;
    let others: string;
    if (thing === room) {
      text = describe(w, actor, room);
      others = `${Me} looks around.`;
    } else if (w.room(thing)) {
      const exit = w.room(room)!.exits.find((e) => e.to === thing)!;
      text = lookToward(w, exit);
      others = `${Me} looks ${exitWay(exit.label)}.`;
    } else if (thing === actor) {
      text = describe(w, actor, actor);
      others = `${Me} looks themself over.`;
    } else {
      text = describe(w, actor, thing);
      others = `${Me} examines ${theOf(w, thing)}.`;
    }
    const target = w.character(thing) && thing !== actor ? thing : undefined;
    const seen = seenInRoom(w, room, actor, { actor: text, target: `${Me} examines you.`, others }, target);
    const ev: ReturnType<ActionRule['apply']> = { type: 'examine', actor, room, action: this.canonical(w, x), seen };
    if (target) ev.target = target;
    else if (w.object(thing)) ev.object = thing;
    return ev;
  },
  canonical: (w, x) => `examine ${cname(w, x.thing)}`,
  candidates: (w, actor): ActionArgs[] => examinable(w, actor).map((thing) => ({ thing })),
};

/**
 * get X from Y — actor and Y in the same room (Y in the room or carried); X gettable;
 * Y is a container or surface; X is in/on Y; X fits in what the actor can carry. Effect: actor carries X.
 */
import { actorCanHold, aOf, The, theOf, withinReach, cname, containerWithinReach } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const getFrom: ActionRule = {
  name: 'get_from',
  slots: ['object', 'container'],
  constraints: [
    containerWithinReach(),
    {
      id: 'container',
      holds: (w, _a, x) => !!w.object(x.container!)?.container || !!w.object(x.container!)?.surface,
      failure: (w, _a, x) => `${The(w, x.container)} can't hold anything.`,
    },
    {
      id: 'in_container',
      holds: (w, _a, x) => !!x.object && w.placement(x.object)?.parent === x.container && ['in', 'on'].includes(w.placement(x.object)!.rel),
      failure: (w, _a, x) => `${The(w, x.object)} is not ${w.object(x.container!)?.container ? 'in' : 'on'} ${theOf(w, x.container)}.`,
    },
    { id: 'gettable', holds: (w, _a, x) => !!w.object(x.object!)?.gettable, failure: (w, _a, x) => `You can't pick up ${theOf(w, x.object)}.` },
    actorCanHold(),
  ],
  apply(w, actor, x) {
    w.move(x.object!, actor, 'carried');
    return actionEvent(w, 'get_from', actor, x, this.canonical(w, x), {
      actor: `You get ${theOf(w, x.object)} from ${theOf(w, x.container)}.`,
      others: `${The(w, actor)} gets ${aOf(w, x.object)} from ${aOf(w, x.container)}.`,
    });
  },
  canonical: (w, x) => `get ${cname(w, x.object)} from ${cname(w, x.container)}`,
  candidates(w, actor) {
    const out = [];
    for (const id of w.visibleFrom(actor)) {
      const y = w.object(id);
      if (!y || !(y.container || y.surface) || !withinReach(w, actor, id)) continue;
      for (const o of w.objectsIn(id)) out.push({ object: o.id, container: id });
    }
    return out;
  },
};

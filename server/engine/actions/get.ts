/** get X — actor and X in the same room; X gettable; X fits in what the actor can carry. Effect: actor carries X. */
import { actorCanHold, aOf, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const get: ActionRule = {
  name: 'get',
  slots: ['object'],
  constraints: [
    {
      id: 'same_room',
      holds: (w, actor, x) => !!x.object && !!w.object(x.object) && w.placement(x.object)?.parent === w.roomOf(actor) && w.placement(x.object)?.rel === 'in',
      failure: (w, actor, x) => {
        const p = x.object ? w.placement(x.object) : undefined;
        const holder = x.object ? w.holderOf(x.object) : undefined;
        if (holder === actor && p?.parent === actor) return `You already have ${theOf(w, x.object)}.`;
        if (holder && holder !== actor) return `${The(w, holder)} has ${theOf(w, x.object)}. You could try to steal it.`;
        if (p && w.object(p.parent)) return `${The(w, x.object)} is ${p.rel} ${theOf(w, p.parent)}. Try: get ${cname(w, x.object)} from ${w.node(p.parent)!.name}`;
        return `${The(w, x.object)} is not here.`;
      },
    },
    { id: 'gettable', holds: (w, _a, x) => !!w.object(x.object!)?.gettable, failure: (w, _a, x) => `You can't pick up ${theOf(w, x.object)}.` },
    actorCanHold(),
  ],
  apply(w, actor, x) {
    w.move(x.object!, actor, 'carried');
    return actionEvent(w, 'get', actor, x, this.canonical(w, x), {
      actor: `You get ${theOf(w, x.object)}.`,
      others: `${The(w, actor)} gets ${aOf(w, x.object)}.`,
    });
  },
  canonical: (w, x) => `get ${cname(w, x.object)}`,
  candidates: (w, actor) => w.objectsIn(w.roomOf(actor)!, 'in').map((o) => ({ object: o.id })),
};

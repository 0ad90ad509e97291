/**
 * steal X from A — A in the same room; A carries X. Effect: actor carries X.
 * What A wears or wields cannot be stolen: it is on A's body or in A's hand, and taking it is
 * a fight, not a theft (LIGHT's table says "A carries X"; we keep that strictly).
 */
import { aOf, carries, otherCharactersHere, targetHere, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionArgs, ActionRule } from './rule.js';

export const steal: ActionRule = {
  name: 'steal',
  slots: ['object', 'target'],
  constraints: [
    targetHere(),
    {
      id: 'target_carries',
      holds: (w, _a, x) => carries(w, x.target!, x.object),
      failure: (w, _a, x) => {
        const p = x.object ? w.placement(x.object) : undefined;
        if (p?.parent === x.target && p?.rel === 'worn') return `${The(w, x.target)} is wearing ${theOf(w, x.object)}; you can't steal it.`;
        if (p?.parent === x.target && p?.rel === 'wielded') return `${The(w, x.target)} is wielding ${theOf(w, x.object)}; you can't steal it.`;
        return `${The(w, x.target)} isn't carrying ${theOf(w, x.object)}.`;
      },
    },
  ],
  apply(w, actor, x) {
    w.move(x.object!, actor, 'carried');
    return actionEvent(w, 'steal', actor, x, this.canonical(w, x), {
      actor: `You steal ${theOf(w, x.object)} from ${theOf(w, x.target)}.`,
      target: `${The(w, actor)} steals ${aOf(w, x.object)} from you!`,
      others: `${The(w, actor)} steals ${aOf(w, x.object)} from ${theOf(w, x.target)}.`,
    });
  },
  canonical: (w, x) => `steal ${cname(w, x.object)} from ${cname(w, x.target)}`,
  candidates(w, actor) {
    const out: ActionArgs[] = [];
    for (const c of otherCharactersHere(w, actor)) for (const o of w.objectsIn(c.id, 'carried')) out.push({ object: o.id, target: c.id });
    return out;
  },
};

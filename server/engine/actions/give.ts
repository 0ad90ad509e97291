/** give X to A — A in the same room; actor carries X; X fits in what A can carry. Effect: A carries X. */
import { aOf, fits, objectCarried, otherCharactersHere, targetHere, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionArgs, ActionRule } from './rule.js';

export const give: ActionRule = {
  name: 'give',
  slots: ['object', 'target'],
  constraints: [
    targetHere(),
    objectCarried(),
    {
      id: 'capacity',
      holds: (w, _a, x) => fits(w, x.target!, x.object!),
      failure: (w, _a, x) => `${The(w, x.target)} can't carry ${theOf(w, x.object)}: they can't carry that much more.`,
    },
  ],
  apply(w, actor, x) {
    w.move(x.object!, x.target!, 'carried');
    return actionEvent(w, 'give', actor, x, this.canonical(w, x), {
      actor: `You give ${theOf(w, x.object)} to ${theOf(w, x.target)}.`,
      target: `${The(w, actor)} gives you ${aOf(w, x.object)}.`,
      others: `${The(w, actor)} gives ${aOf(w, x.object)} to ${theOf(w, x.target)}.`,
    });
  },
  canonical: (w, x) => `give ${cname(w, x.object)} to ${cname(w, x.target)}`,
  candidates(w, actor) {
    const out: ActionArgs[] = [];
    for (const o of w.objectsIn(actor, 'carried')) for (const c of otherCharactersHere(w, actor)) out.push({ object: o.id, target: c.id });
    return out;
  },
};

/** remove X — actor wears or wields X. Effect: actor carries X. */
import { aOf, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const remove: ActionRule = {
  name: 'remove',
  slots: ['object'],
  constraints: [
    {
      id: 'worn_or_wielded',
      holds: (w, actor, x) => {
        const p = x.object ? w.placement(x.object) : undefined;
        return p?.parent === actor && (p.rel === 'worn' || p.rel === 'wielded');
      },
      failure: (w, _a, x) => `You are not wearing or wielding ${theOf(w, x.object)}.`,
    },
  ],
  apply(w, actor, x) {
    w.move(x.object!, actor, 'carried');
    return actionEvent(w, 'remove', actor, x, this.canonical(w, x), {
      actor: `You remove ${theOf(w, x.object)}.`,
      others: `${The(w, actor)} removes ${aOf(w, x.object)}.`,
    });
  },
  canonical: (w, x) => `remove ${cname(w, x.object)}`,
  candidates: (w, actor) => [...w.objectsIn(actor, 'worn'), ...w.objectsIn(actor, 'wielded')].map((o) => ({ object: o.id })),
};

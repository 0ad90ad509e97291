/** eat X — actor carries X; X is food. Effect: X is consumed (gone from the world). */
import { aOf, carriedObjects, objectCarried, objectIs, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const eat: ActionRule = {
  name: 'eat',
  slots: ['object'],
  constraints: [objectCarried(), objectIs('food', 'food', (n) => `You can't eat ${n}.`)],
  apply(w, actor, x) {
    const ev = actionEvent(w, 'eat', actor, x, this.canonical(w, x), {
      actor: `You eat ${theOf(w, x.object)}.`,
      others: `${The(w, actor)} eats ${aOf(w, x.object)}.`,
    });
    w.destroy(x.object!);
    return ev;
  },
  canonical: (w, x) => `eat ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

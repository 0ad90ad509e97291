/** drink X — actor carries X; X is a drink. Effect: X is consumed (gone from the world). */
import { aOf, carriedObjects, objectCarried, objectIs, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const drink: ActionRule = {
  name: 'drink',
  slots: ['object'],
  constraints: [objectCarried(), objectIs('drink', 'drink', (n) => `You can't drink ${n}.`)],
  apply(w, actor, x) {
    const ev = actionEvent(w, 'drink', actor, x, this.canonical(w, x), {
      actor: `You drink ${theOf(w, x.object)}.`,
      others: `${The(w, actor)} drinks ${aOf(w, x.object)}.`,
    });
    w.destroy(x.object!);
    return ev;
  },
  canonical: (w, x) => `drink ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

/** wear X — actor carries X; X wearable; actor wears fewer than 3 things (LIGHT's limit). Effect: actor wears X. */
import { aOf, bodyLimit, carriedObjects, objectCarried, objectIs, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const wear: ActionRule = {
  name: 'wear',
  slots: ['object'],
  constraints: [objectCarried(), objectIs('wearable', 'wearable', (n) => `You can't wear ${n}.`), bodyLimit('worn')],
  apply(w, actor, x) {
    w.move(x.object!, actor, 'worn');
    return actionEvent(w, 'wear', actor, x, this.canonical(w, x), {
      actor: `You put on ${theOf(w, x.object)}.`,
      others: `${The(w, actor)} puts on ${aOf(w, x.object)}.`,
    });
  },
  canonical: (w, x) => `wear ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

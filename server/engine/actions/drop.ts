/** drop X — actor carries X. Effect: X is in the room. */
import { aOf, carriedObjects, objectCarried, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const drop: ActionRule = {
  name: 'drop',
  slots: ['object'],
  constraints: [objectCarried()],
  apply(w, actor, x) {
    w.move(x.object!, w.roomOf(actor)!, 'in');
    return actionEvent(w, 'drop', actor, x, this.canonical(w, x), {
      actor: `You drop ${theOf(w, x.object)}.`,
      others: `${The(w, actor)} drops ${aOf(w, x.object)}.`,
    });
  },
  canonical: (w, x) => `drop ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

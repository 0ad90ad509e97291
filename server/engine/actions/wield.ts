/** wield X — actor carries X; X is a weapon; actor wields nothing yet (LIGHT's limit: 1). Effect: actor wields X. */
import { aOf, bodyLimit, carriedObjects, objectCarried, objectIs, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const wield: ActionRule = {
  name: 'wield',
  slots: ['object'],
  constraints: [objectCarried(), objectIs('weapon', 'weapon', (n) => `You can't wield ${n}; it is not a weapon.`), bodyLimit('wielded')],
  apply(w, actor, x) {
    w.move(x.object!, actor, 'wielded');
    return actionEvent(w, 'wield', actor, x, this.canonical(w, x), {
      actor: `You wield ${theOf(w, x.object)}.`,
      others: `${The(w, actor)} wields ${aOf(w, x.object)}.`,
    });
  },
  canonical: (w, x) => `wield ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

/**
 * equip X — LIGHT's verb for wear or wield: actor carries X; X can be worn or wielded. Effect: a
 * weapon is wielded, anything else wearable worn (a wearable weapon, LIGHT's "wieldable" first, is wielded).
 */
import { aOf, carriedObjects, objectCarried, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const equip: ActionRule = {
  name: 'equip',
  slots: ['object'],
  extra: true,
  constraints: [
    objectCarried(),
    {
      id: 'equippable',
      holds: (w, _a, x) => !!x.object && (!!w.object(x.object)?.weapon || !!w.object(x.object)?.wearable),
      failure: (w, _a, x) => `You can't equip ${theOf(w, x.object)}: it can be neither worn nor wielded.`,
    },
  ],
  apply(w, actor, x) {
    const weapon = !!w.object(x.object!)?.weapon;
    w.move(x.object!, actor, weapon ? 'wielded' : 'worn');
    return actionEvent(w, weapon ? 'wield' : 'wear', actor, x, this.canonical(w, x), weapon
      ? { actor: `You wield ${theOf(w, x.object)}.`, others: `${The(w, actor)} wields ${aOf(w, x.object)}.` }
      : { actor: `You put on ${theOf(w, x.object)}.`, others: `${The(w, actor)} puts on ${aOf(w, x.object)}.` });
  },
  canonical: (w, x) => `equip ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

/**
 * equip X — LIGHT's verb for wear or wield: actor carries X; X can be worn or wielded. Effect: a
 * weapon is wielded, anything else wearable worn, within LIGHT's limits (3 worn, 1 wielded) (a wearable weapon, LIGHT's "wieldable" first, is wielded).
 */
import { aOf, bodyLimit, carriedObjects, objectCarried, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionArgs, ActionRule } from './rule.js';
import type { World } from '../world.js';

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
    // the limit of what it would be: worn or wielded
    ...(['worn', 'wielded'] as const).map((rel) => {
      const limit = bodyLimit(rel);
      const applies = (w: World, id: string | undefined) => !!id && (rel === 'wielded') === !!w.object(id)?.weapon;
      return { id: limit.id, holds: (w: World, a: string, x: ActionArgs) => !applies(w, x.object) || limit.holds(w, a, x), failure: limit.failure };
    }),
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

/**
 * drink X — actor carries X; X is a drink. Effect: X is consumed (gone from the world), and the
 * drinker's health changes by its food energy (LIGHT's food_energy, default 1; below 0 it is
 * poisoned: the drinker is told "Gross!", and at 0 health dies).
 */
import { aOf, carriedObjects, objectCarried, objectIs, The, theOf, cname } from './common.js';
import { ingestEffect } from '../health.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const drink: ActionRule = {
  name: 'drink',
  slots: ['object'],
  constraints: [objectCarried(), objectIs('drink', 'drink', (n) => `You can't drink ${n}.`)],
  apply(w, actor, x) {
    const effect = ingestEffect(w, actor, w.object(x.object!)!);
    const ev = actionEvent(w, 'drink', actor, x, this.canonical(w, x), {
      actor: `You drink ${theOf(w, x.object)}.${effect ? ` ${effect}` : ''}`,
      others: `${The(w, actor)} drinks ${aOf(w, x.object)}.`,
    });
    w.destroy(x.object!);
    return ev;
  },
  canonical: (w, x) => `drink ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

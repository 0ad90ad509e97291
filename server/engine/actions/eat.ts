/**
 * eat X — actor carries X; X is food. Effect: X is consumed (gone from the world), and the eater's
 * health changes by its food energy (LIGHT's food_energy, default 1; below 0 it is poisoned: the
 * eater is told "Gross!", and at 0 health dies).
 */
import { aOf, carriedObjects, objectCarried, objectIs, The, theOf, cname } from './common.js';
import { ingestEffect } from '../health.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const eat: ActionRule = {
  name: 'eat',
  slots: ['object'],
  constraints: [objectCarried(), objectIs('food', 'food', (n) => `You can't eat ${n}.`)],
  apply(w, actor, x) {
    const effect = ingestEffect(w, actor, w.object(x.object!)!);
    const ev = actionEvent(w, 'eat', actor, x, this.canonical(w, x), {
      actor: `You eat ${theOf(w, x.object)}.${effect ? ` ${effect}` : ''}`,
      others: `${The(w, actor)} eats ${aOf(w, x.object)}.`,
    });
    w.destroy(x.object!);
    return ev;
  },
  canonical: (w, x) => `eat ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

/**
 * ingest X — LIGHT's verb for eat or drink: actor carries X; X is food or drink. Effect: X is
 * consumed (gone from the world; its contents stay with the actor), as eat or drink, with their
 * effect on health (food energy; poisoned food harms).
 */
import { aOf, carriedObjects, objectCarried, The, theOf, cname } from './common.js';
import { ingestEffect } from '../health.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const ingest: ActionRule = {
  name: 'ingest',
  slots: ['object'],
  extra: true,
  constraints: [
    objectCarried(),
    {
      id: 'ingestible',
      holds: (w, _a, x) => !!x.object && (!!w.object(x.object)?.food || !!w.object(x.object)?.drink),
      failure: (w, _a, x) => `You can't eat or drink ${theOf(w, x.object)}.`,
    },
  ],
  apply(w, actor, x) {
    const food = !!w.object(x.object!)?.food;
    const verb = food ? 'eat' : 'drink';
    const effect = ingestEffect(w, actor, w.object(x.object!)!);
    const ev = actionEvent(w, verb, actor, x, this.canonical(w, x), {
      actor: `You ${verb} ${theOf(w, x.object)}.${effect ? ` ${effect}` : ''}`,
      others: `${The(w, actor)} ${verb}s ${aOf(w, x.object)}.`,
    });
    w.destroy(x.object!);
    return ev;
  },
  canonical: (w, x) => `ingest ${cname(w, x.object)}`,
  candidates: carriedObjects,
};

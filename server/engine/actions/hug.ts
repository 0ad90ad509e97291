/** hug A — A in the same room. Effect: none on the graph; A is told and the room sees it. */
import { otherCharactersHere, targetHere, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const hug: ActionRule = {
  name: 'hug',
  slots: ['target'],
  constraints: [targetHere()],
  apply(w, actor, x) {
    return actionEvent(w, 'hug', actor, x, this.canonical(w, x), {
      actor: `You hug ${theOf(w, x.target)}.`,
      target: `${The(w, actor)} hugs you.`,
      others: `${The(w, actor)} hugs ${theOf(w, x.target)}.`,
    });
  },
  canonical: (w, x) => `hug ${cname(w, x.target)}`,
  candidates: (w, actor) => otherCharactersHere(w, actor).map((c) => ({ target: c.id })),
};

/** hit A — A in the same room; the actor is not a pacifist (LIGHT's flag). Effect: none on the graph; A is told and the room sees it. */
import { otherCharactersHere, targetHere, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const hit: ActionRule = {
  name: 'hit',
  slots: ['target'],
  constraints: [
    targetHere(),
    { id: 'not_pacifist', holds: (w, actor) => !w.character(actor)?.pacifist, failure: () => "You can't do that: you are a pacifist." },
  ],
  apply(w, actor, x) {
    const weapon = w.objectsIn(actor, 'wielded')[0];
    const withWhat = weapon ? ` with ${theOf(w, weapon.id)}` : '';
    const withA = weapon ? ` with a ${weapon.name}` : '';
    return actionEvent(w, 'hit', actor, x, this.canonical(w, x), {
      actor: `You hit ${theOf(w, x.target)}${withWhat}.`,
      target: `${The(w, actor)} hits you${withA}!`,
      others: `${The(w, actor)} hits ${theOf(w, x.target)}${withA}.`,
    });
  },
  canonical: (w, x) => `hit ${cname(w, x.target)}`,
  candidates: (w, actor) => otherCharactersHere(w, actor).map((c) => ({ target: c.id })),
};

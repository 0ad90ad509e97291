/**
 * steal X from A — A in the same room; A carries X; X fits in what the actor can carry.
 * Effect: actor carries X — unless the dexterity roll fails (LIGHT's): then the thief is caught in
 * the act, everyone in the room sees it, and nothing moves. The roll happens only when the thief or
 * the victim has a dexterity (absent on both: the theft always works, as in the bundled world and
 * its corpus); it draws from the world's seeded random state, so a world replays exactly.
 * What A wears or wields cannot be stolen: it is on A's body or in A's hand, and taking it is
 * a fight, not a theft (LIGHT's table says "A carries X"; we keep that strictly).
 */
import { actorCanHold, aOf, carries, otherCharactersHere, targetHere, The, theOf, cname } from './common.js';
import { actionEvent } from './event.js';
import type { ActionArgs, ActionRule } from './rule.js';
import type { NodeId } from '../types.js';
import type { World } from '../world.js';

export const steal: ActionRule = {
  name: 'steal',
  slots: ['object', 'target'],
  constraints: [
    targetHere(),
    {
      id: 'target_carries',
      holds: (w, _a, x) => carries(w, x.target!, x.object),
      failure: (w, _a, x) => {
        const p = x.object ? w.placement(x.object) : undefined;
        if (p?.parent === x.target && p?.rel === 'worn') return `${The(w, x.target)} is wearing ${theOf(w, x.object)}; you can't steal it.`;
        if (p?.parent === x.target && p?.rel === 'wielded') return `${The(w, x.target)} is wielding ${theOf(w, x.object)}; you can't steal it.`;
        return `${The(w, x.target)} isn't carrying ${theOf(w, x.object)}.`;
      },
    },
    actorCanHold(),
  ],
  apply(w, actor, x) {
    if (!stealRoll(w, actor, x.target!)) {
      const ev = actionEvent(w, 'steal', actor, x, this.canonical(w, x), {
        actor: `You try to steal ${theOf(w, x.object)} from ${theOf(w, x.target)}, but you are caught in the act!`,
        target: `${The(w, actor)} tries to steal ${aOf(w, x.object)} from you, but you catch them in the act!`,
        others: `${The(w, actor)} tries to steal ${aOf(w, x.object)} from ${theOf(w, x.target)}, but is caught in the act!`,
      });
      ev.failed = true;
      return ev;
    }
    w.move(x.object!, actor, 'carried');
    return actionEvent(w, 'steal', actor, x, this.canonical(w, x), {
      actor: `You steal ${theOf(w, x.object)} from ${theOf(w, x.target)}.`,
      target: `${The(w, actor)} steals ${aOf(w, x.object)} from you!`,
      others: `${The(w, actor)} steals ${aOf(w, x.object)} from ${theOf(w, x.target)}.`,
    });
  },
  canonical: (w, x) => `steal ${cname(w, x.object)} from ${cname(w, x.target)}`,
  candidates(w, actor) {
    const out: ActionArgs[] = [];
    for (const c of otherCharactersHere(w, actor)) for (const o of w.objectsIn(c.id, 'carried')) out.push({ object: o.id, target: c.id });
    return out;
  },
};

/**
 * LIGHT's roll: chance = max(1, 1 + thief's dexterity - victim's), r uniform in 0..20, success
 * when r <= chance. No roll (success) when neither has a dexterity.
 */
export function stealRoll(w: World, thief: NodeId, victim: NodeId): boolean {
  const a = w.character(thief)?.dexterity;
  const v = w.character(victim)?.dexterity;
  if (a === undefined && v === undefined) return true;
  const chance = Math.max(1, 1 + (a ?? 0) - (v ?? 0));
  const r = Math.floor(w.random() * 21);
  return r <= chance;
}

/**
 * put X in/on Y — actor and Y in the same room (or Y carried); Y a container (in) or a surface
 * (on); actor carries X; X is not Y (nor holds Y); X fits beside what Y holds. Effect: X in/on Y.
 */
import { aOf, carries, fits, objectCarried, The, theOf, withinReach, cname, containerWithinReach } from './common.js';
import { actionEvent } from './event.js';
import type { ActionArgs, ActionRule } from './rule.js';

export const put: ActionRule = {
  name: 'put',
  slots: ['object', 'container'],
  constraints: [
    containerWithinReach(),
    {
      id: 'container',
      holds: (w, _a, x) => (x.prep === 'on' ? !!w.object(x.container!)?.surface : !!w.object(x.container!)?.container),
      failure: (w, _a, x) => {
        const y = w.object(x.container!);
        if (x.prep === 'on' && y?.container) return `You can't put things on ${theOf(w, x.container)}; try putting them in it.`;
        if (x.prep !== 'on' && y?.surface) return `You can't put things in ${theOf(w, x.container)}; try putting them on it.`;
        return `You can't put things ${x.prep ?? 'in'} ${theOf(w, x.container)}.`;
      },
    },
    objectCarried(),
    {
      id: 'not_self',
      holds: (w, _a, x) => x.object !== x.container && !w.isInside(x.container!, x.object!),
      failure: (w, _a, x) => (x.object === x.container ? `You can't put ${theOf(w, x.object)} ${x.prep ?? 'in'} itself.` : `${The(w, x.container)} is inside ${theOf(w, x.object)}.`),
    },
    {
      id: 'capacity',
      holds: (w, _a, x) => fits(w, x.container!, x.object!),
      failure: (w, _a, x) => `You can't put ${theOf(w, x.object)} ${x.prep ?? 'in'} ${theOf(w, x.container)}: there's no room left for it.`,
    },
  ],
  apply(w, actor, x) {
    w.move(x.object!, x.container!, x.prep ?? 'in');
    return actionEvent(w, 'put', actor, x, this.canonical(w, x), {
      actor: `You put ${theOf(w, x.object)} ${x.prep} ${theOf(w, x.container)}.`,
      others: `${The(w, actor)} puts ${aOf(w, x.object)} ${x.prep} ${aOf(w, x.container)}.`,
    });
  },
  canonical: (w, x) => `put ${cname(w, x.object)} ${x.prep ?? 'in'} ${cname(w, x.container)}`,
  candidates(w, actor) {
    const out: ActionArgs[] = [];
    const held = w.objectsIn(actor, 'carried');
    for (const id of w.visibleFrom(actor)) {
      const y = w.object(id);
      if (!y || !withinReach(w, actor, id)) continue;
      for (const prep of ['in', 'on'] as const) {
        if (prep === 'in' ? !y.container : !y.surface) continue;
        for (const o of held) if (carries(w, actor, o.id)) out.push({ object: o.id, container: id, prep });
      }
    }
    return out;
  },
};

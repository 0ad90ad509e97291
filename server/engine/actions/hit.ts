/**
 * hit A — A in the same room; the actor is not a pacifist (LIGHT's flag). Effect: as LIGHT's hit with
 * its default stats, a roll from the world's seeded generator misses, is blocked, or harms A for
 * HIT_DAMAGE health points (a wielded weapon is named, as in LIGHT, but adds nothing). A is told, and
 * so is the room; the two of them learn how A now looks. At 0 health A dies: the engine follows the
 * hit with A's death (game.ts).
 */
import { healthOf, otherCondition, rollHit, selfCondition } from '../health.js';
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
    const A = The(w, actor);
    const t = theOf(w, x.target);
    const roll = rollHit(w);
    const canonical = this.canonical(w, x);
    if (roll.kind === 'miss') {
      return actionEvent(w, 'hit', actor, x, canonical, {
        actor: `You swing at ${t}${withWhat} but miss.`,
        target: `${A} swings at you${withA} but misses.`,
        others: `${A} swings at ${t}${withA} but misses.`,
      });
    }
    if (roll.kind === 'blocked') {
      return actionEvent(w, 'hit', actor, x, canonical, {
        actor: `You hit ${t}${withWhat}, but the blow does no harm.`,
        target: `${A} hits you${withA}, but the blow does no harm.`,
        others: `${A} hits ${t}${withA}, but the blow does no harm.`,
      });
    }
    const target = w.character(x.target!)!;
    const left = Math.max(0, healthOf(target) - roll.damage);
    w.setHealth(target.id, left);
    const ev = actionEvent(w, 'hit', actor, x, canonical, {
      actor: left > 0 ? `You hit ${t}${withWhat}. ${otherCondition(target)}` : `You hit ${t}${withWhat}.`,
      target: left > 0 ? `${A} hits you${withA}! ${selfCondition(target)}` : `${A} hits you${withA}!`,
      others: `${A} hits ${t}${withA}.`,
    });
    ev.damage = roll.damage;
    return ev;
  },
  canonical: (w, x) => `hit ${cname(w, x.target)}`,
  candidates: (w, actor) => otherCharactersHere(w, actor).map((c) => ({ target: c.id })),
};

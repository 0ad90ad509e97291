/**
 * block A — LIGHT's block: A another character in the room; the actor is not already blocking A.
 * Effect: the actor blocks A (and stops blocking whoever it blocked before): while both stay in one
 * room, each time A tries to leave, a roll decides whether the actor stops it (see blockRoll in
 * health.ts; the go in game.ts). The block ends with unblock, a new block, either leaving the other's
 * room (noticed when A next tries to leave, as in LIGHT), or a death. Seen, as in LIGHT, by the two
 * of them only (and by whoever the actor stopped blocking).
 */
import { otherCharactersHere, targetHere, The, theOf, cname } from './common.js';
import type { ActionRule } from './rule.js';
import type { NodeId } from '../types.js';
import type { World } from '../world.js';

export const block: ActionRule = {
  name: 'block',
  slots: ['target'],
  extra: true,
  constraints: [
    targetHere(),
    {
      id: 'not_blocking',
      holds: (w, actor, x) => w.character(actor)?.blocking !== x.target,
      failure: (w, _a, x) => `You are already blocking ${theOf(w, x.target)}.`,
    },
  ],
  apply(w, actor, x) {
    const room = w.roomOf(actor)!;
    const old = w.character(actor)!.blocking;
    const seen: Record<string, string> = {};
    if (old && w.character(old)) seen[old] = `${The(w, actor)} stops blocking you.`;
    seen[x.target!] = `${The(w, actor)} starts blocking you.`;
    seen[actor] = old && w.character(old)
      ? `You stop blocking ${theOf(w, old)} and start blocking ${theOf(w, x.target)}.`
      : `You start blocking ${theOf(w, x.target)}.`;
    w.setBlocking(actor, x.target);
    return { type: 'block', actor, room, target: x.target!, action: this.canonical(w, x), seen };
  },
  canonical: (w, x) => `block ${cname(w, x.target)}`,
  candidates: (w, actor) => otherCharactersHere(w, actor).map((c) => ({ target: c.id })),
};

/**
 * Whoever stops `mover` leaving its room now, if anyone: each character blocking it, in the world's
 * order; one no longer in the mover's room stops blocking it (LIGHT notices this only here, too);
 * for one that is there, a roll: chance = max(1, 1 + mover's dexterity - blocker's) (absent
 * dexterity is 0), r uniform in 0..20 from the world's seeded random state, and the mover is
 * stopped when r > chance (19 in 21 at equal dexterity; a mover 19 or more defter always escapes).
 * Unlike steal, the roll happens whatever the dexterities, as in LIGHT: a block is never certain.
 * LIGHT's code puts the dexterities the other way round (1 + blocker's - mover's: a defter blocker
 * blocks less often, steal's formula copied); at equal dexterity the two agree.
 */
export function blockerOf(w: World, mover: NodeId): NodeId | undefined {
  const room = w.roomOf(mover);
  for (const b of w.characters()) {
    if (b.blocking !== mover) continue;
    if (w.roomOf(b.id) !== room) {
      w.setBlocking(b.id, undefined);
      continue;
    }
    const chance = Math.max(1, 1 + (w.character(mover)!.dexterity ?? 0) - (b.dexterity ?? 0));
    const r = Math.floor(w.random() * 21);
    if (r > chance) return b.id;
  }
  return undefined;
}

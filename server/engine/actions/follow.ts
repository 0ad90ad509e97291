/**
 * follow A — A another character in the room; the actor is not already following A. Effect: the
 * actor follows A (following no one else): when A leaves a room the actor is in, the actor goes too.
 * Seen, as in LIGHT, by the actor and A only (and by whoever it stopped following, if here).
 */
import { otherCharactersHere, targetHere, The, theOf, cname } from './common.js';
import type { ActionRule } from './rule.js';

export const follow: ActionRule = {
  name: 'follow',
  slots: ['target'],
  extra: true,
  constraints: [
    targetHere(),
    {
      id: 'not_following',
      holds: (w, actor, x) => w.character(actor)?.following !== x.target,
      failure: (w, _a, x) => `You are already following ${theOf(w, x.target)}.`,
    },
  ],
  apply(w, actor, x) {
    const room = w.roomOf(actor)!;
    const old = w.character(actor)!.following;
    const seen: Record<string, string> = {};
    if (old && w.character(old) && w.roomOf(old) === room) seen[old] = `${The(w, actor)} stops following you.`;
    seen[x.target!] = `${The(w, actor)} starts following you.`;
    seen[actor] = old && w.character(old) ? `You stop following ${theOf(w, old)} and start following ${theOf(w, x.target)}.` : `You start following ${theOf(w, x.target)}.`;
    w.setFollowing(actor, x.target);
    return { type: 'follow', actor, room, target: x.target!, action: this.canonical(w, x), seen };
  },
  canonical: (w, x) => `follow ${cname(w, x.target)}`,
  candidates: (w, actor) => otherCharactersHere(w, actor).map((c) => ({ target: c.id })),
};

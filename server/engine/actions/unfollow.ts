/** unfollow — the actor follows someone. Effect: it follows no one. Seen by the actor, and by the one it followed if here. */
import { The, theOf } from './common.js';
import type { ActionRule } from './rule.js';

export const unfollow: ActionRule = {
  name: 'unfollow',
  slots: [],
  extra: true,
  constraints: [
    {
      id: 'following',
      holds: (w, actor) => !!w.character(actor)?.following,
      failure: () => "You aren't following anyone.",
    },
  ],
  apply(w, actor) {
    const room = w.roomOf(actor)!;
    const leader = w.character(actor)!.following!;
    const seen: Record<string, string> = {};
    if (w.character(leader) && w.roomOf(leader) === room) seen[leader] = `${The(w, actor)} stops following you.`;
    seen[actor] = `You stop following ${w.character(leader) ? theOf(w, leader) : 'anyone'}.`;
    w.setFollowing(actor, undefined);
    return { type: 'unfollow', actor, room, action: 'unfollow', seen };
  },
  canonical: () => 'unfollow',
  candidates: () => [{}],
};

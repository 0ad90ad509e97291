/**
 * unblock — LIGHT's unblock: the actor is blocking someone. Effect: it blocks no one. Seen by the
 * actor and by the one it blocked (wherever that one is, as in LIGHT).
 */
import { The, theOf } from './common.js';
import type { ActionRule } from './rule.js';

export const unblock: ActionRule = {
  name: 'unblock',
  slots: [],
  extra: true,
  constraints: [
    {
      id: 'blocking',
      holds: (w, actor) => !!w.character(actor)?.blocking,
      failure: () => "You aren't blocking anyone.",
    },
  ],
  apply(w, actor) {
    const room = w.roomOf(actor)!;
    const blocked = w.character(actor)!.blocking!;
    const seen: Record<string, string> = {};
    if (w.character(blocked)) seen[blocked] = `${The(w, actor)} stops blocking you.`;
    seen[actor] = `You stop blocking ${w.character(blocked) ? theOf(w, blocked) : 'anyone'}.`;
    w.setBlocking(actor, undefined);
    const ev = { type: 'unblock', actor, room, action: 'unblock', seen };
    return w.character(blocked) ? { ...ev, target: blocked } : ev;
  },
  canonical: () => 'unblock',
  candidates: () => [{}],
};

/** wait — no constraints. Effect: none; the room sees the actor wait (LIGHT's wait, a turn spent). */
import { The } from './common.js';
import { actionEvent } from './event.js';
import type { ActionRule } from './rule.js';

export const wait: ActionRule = {
  name: 'wait',
  slots: [],
  extra: true,
  constraints: [],
  apply(w, actor, x) {
    return actionEvent(w, 'wait', actor, x, this.canonical(w, x), { actor: 'You wait.', others: `${The(w, actor)} waits.` });
  },
  canonical: () => 'wait',
  candidates: () => [{}],
};

// @ts-check
// Small pieces shared by the game client (client.js) and the crowd task page (crowd.js).

/** @typedef {import('../../server/net/protocol.ts').CharacterState} CharacterState */

/** How a person is marked: played by a person, or driven by a model or a script. @param {import('../../server/net/protocol.ts').PersonView} p */
export function personMark(p) {
  if (p.driver === 'model') return { badge: 'model', title: 'a model-driven character' };
  if (p.driver === 'script') return { badge: 'script', title: 'a scripted character' };
  if (p.driver === 'agent') return { badge: 'agent', title: 'played by an outside agent (MCP or the step API)' };
  if (p.player) return { badge: 'person', title: 'played by a person' };
  return { badge: '', title: '' };
}

/**
 * Things in view, split: in the room (at any depth, not held by anyone) and carried, worn or
 * wielded by others. Your own are in state.character.
 * @param {CharacterState} s
 */
export function splitThings(s) {
  const people = new Map(s.people.map((p) => [p.id, p.name]));
  /** @type {(id: string) => string | undefined} */
  const holder = (id) => {
    // climb to the holder: an object in a sack carried by the orc is the orc's
    let at = id;
    for (let i = 0; i < 20; i++) {
      const o = s.objects.find((x) => x.id === at);
      if (!o) return people.get(at);
      if (people.has(o.parent)) return people.get(o.parent);
      at = o.parent;
    }
    return undefined;
  };
  const room = [];
  const others = [];
  for (const o of s.objects) {
    const who = holder(o.id);
    if (who) others.push({ ...o, holder: who });
    else room.push(o);
  }
  return { room, others };
}


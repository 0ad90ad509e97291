/**
 * LIGHT's use X with Y, data-driven from on_use: each viewer's words (LIGHT's broadcast_message
 * fields), health, dexterity and size changes (a death at 0), the constraints LIGHT's maps use,
 * spent uses, and on_use through world files and LIGHT graphs (and LIGHT's own maps' uses).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildWorldState, execute, validActions, World, type UseRule } from '../../server/engine/index.js';
import { exportLightGraph, importLightGraph } from '../../server/world-io/light-graph.js';
import { loadWorld } from '../../server/world-io/load-world.js';
import { LITTLE_WORLD, littleWorld } from '../fixtures/little-world.js';

/** LIGHT's mortem scroll (simple_world.json), damage as given. */
const scroll = (damage: string, extra: UseRule['constraints'] = []): UseRule[] => [{
  remaining_uses: 5,
  constraints: [{ type: 'is_holding', params: { complement: 'used_item' } }, { type: 'used_with_agent' }, ...extra],
  events: [
    { type: 'broadcast_message', params: {
      self_view: 'You say the words aloud, and runes on the scroll glow with gold.',
      self_as_target_view: 'You are struck with searing pain!',
      self_not_target_view: '{recipient_text} is struck with searing pain!',
      room_view: '{actor_text} says the words of a scroll aloud, and it glows with gold. {recipient_text} is struck with searing pain!',
    } },
    { type: 'modify_attribute', params: { type: 'in_used_target_item', key: 'health', value: damage } },
  ],
}];

function withScroll(rules: UseRule[]): World {
  const w = littleWorld();
  w.add({ kind: 'object', id: 'scroll', name: 'mortem scroll', prefix: 'a', description: 'Runes.', gettable: true, container: false, surface: false, weapon: false, wearable: false, food: false, drink: false, onUse: rules }, { parent: 'gardener', rel: 'carried' });
  return w;
}

describe('use X with Y: who is told what', () => {
  it('on someone else: the actor, the one it is used on and the room each have their words; how they now look', () => {
    const w = withScroll(scroll('-3'));
    const out = execute(w, 'gardener', 'use mortem scroll with orc');
    expect(out.ok).toBe(true);
    expect(out.action).toBe('use mortem scroll with orc');
    expect(out.events[0]!.seen).toEqual({
      gardener: 'You say the words aloud, and runes on the scroll glow with gold. The orc is struck with searing pain! The orc looks hurt.',
      orc: 'You are struck with searing pain! You are feeling hurt.',
      kitty: 'The orc is struck with searing pain!',
    });
    expect(w.character('orc')!.health).toBe(3);
    expect(w.object('scroll')!.onUse![0]!.remaining_uses).toBe(4);
  });

  it('on oneself ("me"): self_view and self_as_target_view', () => {
    const w = withScroll(scroll('-1'));
    const out = execute(w, 'gardener', 'use mortem scroll with me');
    expect(out.action).toBe('use mortem scroll with gardener');
    expect(out.text).toBe('You say the words aloud, and runes on the scroll glow with gold. You are struck with searing pain! You are feeling a little bruised.');
    expect(out.events[0]!.seen['orc']).toBe('The gardener is struck with searing pain!');
  });

  it('at 0 health the one it is used on dies (LIGHT: -20), and its body holds what it had', () => {
    const w = withScroll(scroll('-20'));
    const out = execute(w, 'gardener', 'use mortem scroll with orc');
    expect(out.events.map((e) => e.type)).toEqual(['use', 'death']);
    expect(out.text).toBe('You say the words aloud, and runes on the scroll glow with gold. The orc is struck with searing pain! The orc dies.');
    expect(w.character('orc')).toBeUndefined();
    expect(w.placement('ring')!.parent).toBe('orc__dead__');
  });

  it('without messages everyone is told plainly what was used with what', () => {
    const w = withScroll([{ constraints: [{ type: 'used_with_agent' }], events: [{ type: 'modify_attribute', params: { type: 'in_used_target_item', key: 'dexterity', value: '+2' } }] }]);
    const out = execute(w, 'gardener', 'use scroll with kitty');
    expect(out.events[0]!.seen).toEqual({ gardener: 'You use the mortem scroll with the kitty.', kitty: 'The gardener uses a mortem scroll with you.', orc: 'The gardener uses a mortem scroll with the kitty.' });
    expect(w.character('kitty')!.dexterity).toBe(2);
    expect(execute(w, 'gardener', 'use scroll with kitty').ok).toBe(true);
    expect(w.character('kitty')!.dexterity).toBe(4);
  });

  it('nothing applies: "Nothing special seems to happen.", to the actor only, and nothing changes', () => {
    const w = withScroll(scroll('-3'));
    const before = JSON.stringify(w.toJSON());
    const out = execute(w, 'gardener', 'use scroll with boulder');
    expect(out.ok).toBe(true);
    expect(out.events[0]!.seen).toEqual({ gardener: 'Nothing special seems to happen.' });
    expect(JSON.stringify(w.toJSON())).toBe(before);
  });
});

describe("use: LIGHT's constraints, effects and spent uses", () => {
  it('attribute_compare_value and in_room decide; the first entry that applies wins; a spent one is passed over', () => {
    const rules: UseRule[] = [
      { remaining_uses: 1, constraints: [{ type: 'in_room', params: { room_name: 'walled garden' } }, { type: 'attribute_compare_value', params: { type: 'in_used_target_item', key: 'health', cmp_type: 'greater', list: '[5]' } }],
        events: [{ type: 'broadcast_message', params: { self_view: 'First.' } }] },
      { constraints: [{ type: 'used_with_agent' }], events: [{ type: 'broadcast_message', params: { self_view: 'Second.' } }] },
    ];
    const w = withScroll(rules);
    w.setHealth('orc', 5);
    expect(execute(w, 'gardener', 'use scroll with orc').text).toBe('Second.');
    expect(execute(w, 'gardener', 'use scroll with kitty').text).toBe('First.');
    expect(execute(w, 'gardener', 'use scroll with kitty').text).toBe('Second.');
    w.move('gardener', 'shed', 'in');
    w.move('kitty', 'shed', 'in');
    expect(execute(w, 'gardener', 'use scroll with kitty').text).toBe('Second.');
  });

  it('create_entity puts the new thing with the actor, in the room, in X or in / with Y; modify_attribute changes an object\'s size', () => {
    const make = (where: string): UseRule[] => [{ constraints: [], events: [{ type: 'create_entity', params: { type: where as 'in_actor', object: { name: `fish ${where}`, name_prefix: 'a', is_food: 1.0 } } }] }];
    for (const [where, y, parent, rel] of [['in_actor', 'boulder', 'gardener', 'carried'], ['in_room', 'boulder', 'garden', 'in'], ['in_used_target_item', 'oak chest', 'chest', 'in'], ['in_used_target_item', 'orc', 'orc', 'carried'], ['in_used_item', 'boulder', 'scroll', 'in']] as const) {
      const w = withScroll(make(where));
      expect(execute(w, 'gardener', `use scroll with ${y}`).ok).toBe(true);
      const fish = w.objects().find((o) => o.name === `fish ${where}`)!;
      expect(fish.food).toBe(true);
      expect(w.placement(fish.id), where).toEqual({ parent, rel });
    }
    const w = withScroll([{ constraints: [], events: [{ type: 'modify_attribute', params: { type: 'in_used_target_item', key: 'size', value: '+2' } }] }]);
    execute(w, 'gardener', 'use scroll with boulder');
    expect(w.object('boulder')!.size).toBe(3);
  });

  it('validActions with all lists X with everything here for a held X that has uses; not by default', () => {
    const w = withScroll(scroll('-1'));
    const all = validActions(w, 'gardener', { all: true }).filter((a) => a.startsWith('use '));
    expect(all).toEqual(expect.arrayContaining(['use mortem scroll with orc', 'use mortem scroll with gardener', 'use mortem scroll with boulder', 'use mortem scroll with silver ring']));
    expect(all.every((a) => a.startsWith('use mortem scroll with'))).toBe(true);
    expect(validActions(w, 'gardener').some((a) => a.startsWith('use '))).toBe(false);
  });
});

describe('on_use in world files and LIGHT graphs', () => {
  it('a world file gives onUse; LIGHT graph export writes on_use and import reads it back (remaining uses as numbers)', () => {
    const file = structuredClone(LITTLE_WORLD);
    (file.objects!.find((o) => o.id === 'pebble') as unknown as Record<string, unknown>)['onUse'] = scroll('-1');
    const w = new World(buildWorldState([{ file: 'w', data: file }]).state);
    expect(w.object('pebble')!.onUse).toEqual(scroll('-1'));
    const graph = exportLightGraph(w.toJSON());
    expect(graph.nodes['pebble']!['on_use']).toEqual(scroll('-1'));
    expect(graph.nodes['apple']!['on_use']).toBeNull();
    (graph.nodes['pebble']!['on_use'] as Record<string, unknown>[])[0]!['remaining_uses'] = '40';
    const back = importLightGraph(graph, { file: 'g' }).state.nodes['pebble'] as { onUse?: UseRule[] };
    expect(back.onUse![0]!.remaining_uses).toBe(40);
    (file.objects!.find((o) => o.id === 'pebble') as unknown as Record<string, unknown>)['onUse'] = [{ constraints: [{ type: 'wish' }], events: [] }];
    expect(() => buildWorldState([{ file: 'w', data: file }])).toThrow(/onUse/);
  });

  const SIMPLE = new URL('../../../shared/light-env/maps/simple_world.json', import.meta.url).pathname;
  it.skipIf(!existsSync(SIMPLE))("LIGHT's simple world: the shovel digs an emerald ring out of the muddy area, once; the mortem scroll kills", () => {
    const w = new World(loadWorld(SIMPLE).state);
    const k = 'kitty_3_5';
    execute(w, k, 'get shovel');
    expect(validActions(w, k, { all: true })).toContain('use shovel with muddy area');
    expect(execute(w, k, 'use shovel with muddy area').text).toBe('You dig into the sodden mud, and spy something glistening within!');
    const ring = w.objects().find((o) => o.name === 'emerald ring')!;
    expect(ring.wearable).toBe(true);
    expect(w.node(w.placement(ring.id)!.parent)!.name).toBe('muddy area');
    expect(execute(w, k, 'use shovel with muddy area').text).toBe('Nothing special seems to happen.');
    execute(w, k, 'get mortem scroll');
    const out = execute(w, k, 'use mortem scroll with me');
    expect(out.events.map((e) => e.type)).toEqual(['use', 'death']);
  });
});

/**
 * LIGHT's graph-JSON maps: every shared map imports with its nodes and relations kept, and an
 * export followed by an import gives back every field the engine uses. Skips without ../shared.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { execute, World } from '../../server/engine/index.js';
import { exportLightGraph, importLightGraph } from '../../server/world-io/light-graph.js';
import { loadWorld } from '../../server/world-io/load-world.js';

const MAPS = new URL('../../../shared/light-env/maps/', import.meta.url).pathname;
const maps = existsSync(MAPS) ? readdirSync(MAPS).filter((f) => f.endsWith('.json')).sort() : [];

type RawNode = Record<string, unknown> & { container_node: { target_id: string } };

describe.skipIf(maps.length === 0)('LIGHT graph import/export', () => {
  it('finds the eleven shared maps', () => {
    expect(maps).toHaveLength(11);
  });

  for (const file of maps) {
    it(`${file}: node counts and every relation kept; round trip keeps what the engine uses`, () => {
      const raw = JSON.parse(readFileSync(MAPS + file, 'utf8')) as { nodes: Record<string, RawNode>; rooms: string[]; agents: string[]; objects: string[] };
      const { state, format } = loadWorld(MAPS + file);
      expect(format).toBe('light-graph');
      const w = new World(state);
      const count = (k: string) => Object.values(state.nodes).filter((n) => n.kind === k).length;
      const rawNodes = Object.values(raw.nodes);
      expect(count('room')).toBe(rawNodes.filter((n) => n['room'] === true).length);
      expect(count('character')).toBe(rawNodes.filter((n) => n['agent'] === true).length);
      expect(count('object')).toBe(rawNodes.filter((n) => n['object'] === true).length);
      expect(count('room')).toBe(raw.rooms.length);

      for (const [id, n] of Object.entries(raw.nodes)) {
        const parent = n.container_node.target_id;
        if (n['room'] === true) {
          const exits = Object.values((n['neighbors'] ?? {}) as Record<string, { target_id: string; label: string }>);
          expect(w.room(id)!.exits.map((e) => [e.label, e.to])).toEqual(exits.map((e) => [e.label, e.target_id]));
          continue;
        }
        if (parent === 'VOID') {
          expect(w.placement(id)).toBeUndefined();
          continue;
        }
        const p = w.placement(id)!;
        expect(p.parent, id).toBe(parent);
        const parentNode = raw.nodes[parent]!;
        if (parentNode['room'] === true) expect(p.rel).toBe('in');
        else if (parentNode['agent'] === true) {
          if (n['equipped']) expect(['worn', 'wielded']).toContain(p.rel);
          else expect(p.rel).toBe('carried');
        } else expect(p.rel).toBe((parentNode['surface_type'] ?? 'on') === 'on' ? 'on' : 'in');
        // and the parent lists it among its contained nodes
        expect(Object.keys((parentNode['contained_nodes'] ?? {}) as object)).toContain(id);
      }
      for (const o of w.objects()) {
        const n = raw.nodes[o.id]!;
        // as LIGHT's Python reads them: 1.0 is true, 0.0 false
        const on = (v: unknown) => v === true || (typeof v === 'number' && v !== 0);
        expect(o.gettable).toBe(n['gettable'] === undefined ? true : on(n['gettable']));
        expect(o.weapon).toBe(on(n['wieldable']));
        expect(o.wearable).toBe(on(n['wearable']));
        expect(o.food).toBe(on(n['food']));
        expect(o.drink).toBe(on(n['drink']));
        expect(o.container || o.surface).toBe(on(n['container']));
      }

      const exported = exportLightGraph(state);
      const again = importLightGraph(JSON.parse(JSON.stringify(exported)), { file: 'export' });
      expect(again.state.nodes).toEqual(state.nodes);
      expect(again.state.placement).toEqual(state.placement);
    });
  }
});

describe('LIGHT graph flags, read as LIGHT reads them', () => {
  const obj = (id: string, props: Record<string, unknown>, parent = 'r') => ({
    node_id: id, name: id.replace(/-/g, ' '), object: true, room: false, agent: false, desc: 'A thing.', container_node: { target_id: parent }, ...props,
  });
  const graph = () => ({
    nodes: {
      r: { node_id: 'r', name: 'yard', room: true, agent: false, object: false, desc: 'A yard.', neighbors: {}, container_node: { target_id: 'VOID' } },
      p: { node_id: 'p', name: 'porter', room: false, agent: true, object: false, desc: 'A porter.', container_node: { target_id: 'r' } },
      'float-flags': obj('float-flags', { gettable: 1.0, wieldable: 1.0, wearable: 0.0, food: 0.0, drink: 1.0 }),
      'zero-gettable': obj('zero-gettable', { gettable: 0.0 }),
      'alias-flags': obj('alias-flags', { is_gettable: false, is_wearable: true, is_weapon: 1.0, is_food: true, is_drink: 0 }),
      'plain-wins': obj('plain-wins', { gettable: true, is_gettable: false }),
      'no-type-box': obj('no-type-box', { container: true }),
      'in-box': obj('in-box', { container: true, surface_type: 'in' }),
      'alias-container': obj('alias-container', { is_container: 1.0, is_surface: 0.0 }),
      'alias-surface': obj('alias-surface', { is_surface: 1.0 }),
      pebble: obj('pebble', {}, 'no-type-box'),
      'worn-cloak': obj('worn-cloak', { is_wearable: 1.0, equipped: 'wear' }, 'p'),
    },
  });

  it('numbers are flags, is_* aliases are read, and the plain name wins when both are present', () => {
    const w = new World(importLightGraph(graph(), { file: 'flags' }).state);
    expect(w.object('float-flags')).toMatchObject({ gettable: true, weapon: true, wearable: false, food: false, drink: true });
    expect(w.object('zero-gettable')!.gettable).toBe(false);
    expect(w.object('alias-flags')).toMatchObject({ gettable: false, wearable: true, weapon: true, food: true, drink: false });
    expect(w.object('plain-wins')!.gettable).toBe(true);
    expect(w.placement('worn-cloak')).toEqual({ parent: 'p', rel: 'worn' });
  });

  it('reads pacifist, dexterity, size and contain_size (the room left: capacity is it plus what is inside), and writes them back', () => {
    const g = graph() as { nodes: Record<string, Record<string, unknown>> };
    Object.assign(g.nodes['p']!, { pacifist: true, dexterity: 4, contain_size: 15 });
    g.nodes['q'] = { node_id: 'q', name: 'quiet one', room: false, agent: true, object: false, desc: 'Quiet.', container_node: { target_id: 'r' }, pacifist: false, dexterity: 0, contain_size: 20 };
    Object.assign(g.nodes['in-box']!, { size: 4, contain_size: 3 });
    g.nodes['coin'] = obj('coin', { size: 2 }, 'in-box');
    const { state } = importLightGraph(g, { file: 'traits' });
    const w = new World(state);
    // the porter wears a cloak of size 1: 15 left + 1 = 16
    expect(w.character('p')).toMatchObject({ pacifist: true, dexterity: 4, capacity: 16 });
    expect(w.character('q')!.pacifist).toBeUndefined();
    expect(w.character('q')!.dexterity).toBe(0);
    expect(w.character('q')).not.toHaveProperty('capacity');
    expect(w.object('in-box')).toMatchObject({ size: 4, capacity: 5 });
    expect(w.object('coin')!.size).toBe(2);
    expect(w.object('pebble')).not.toHaveProperty('size');
    expect(execute(w, 'p', 'hit quiet one').failed).toBe('not_pacifist');
    const out = exportLightGraph(state).nodes;
    expect(out['p']).toMatchObject({ pacifist: true, dexterity: 4, contain_size: 15 });
    expect(out['in-box']).toMatchObject({ size: 4, contain_size: 3 });
    expect(out['pebble']).toMatchObject({ size: 1 });
    const again = importLightGraph(JSON.parse(JSON.stringify(exportLightGraph(state))), { file: 'again' });
    expect(again.state.nodes).toEqual(state.nodes);
  });

  it('a container without surface_type is a surface, as in LIGHT; is_surface decides when present', () => {
    const w = new World(importLightGraph(graph(), { file: 'flags' }).state);
    expect(w.object('no-type-box')).toMatchObject({ container: false, surface: true });
    expect(w.placement('pebble')).toEqual({ parent: 'no-type-box', rel: 'on' });
    expect(w.object('in-box')).toMatchObject({ container: true, surface: false });
    expect(w.object('alias-container')).toMatchObject({ container: true, surface: false });
    expect(w.object('alias-surface')).toMatchObject({ container: false, surface: true });
  });
});

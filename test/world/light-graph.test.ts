/**
 * LIGHT's graph-JSON maps: every shared map imports with its nodes and relations kept, and an
 * export followed by an import gives back every field the engine uses. Skips without ../shared.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { World } from '../../server/engine/index.js';
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
        } else expect(p.rel).toBe(parentNode['surface_type'] === 'on' ? 'on' : 'in');
        // and the parent lists it among its contained nodes
        expect(Object.keys((parentNode['contained_nodes'] ?? {}) as object)).toContain(id);
      }
      for (const o of w.objects()) {
        const n = raw.nodes[o.id]!;
        expect(o.gettable).toBe(n['gettable'] === undefined ? true : n['gettable'] === true);
        expect(o.weapon).toBe(n['wieldable'] === true);
        expect(o.wearable).toBe(n['wearable'] === true);
        expect(o.food).toBe(n['food'] === true);
        expect(o.drink).toBe(n['drink'] === true);
        expect(o.container || o.surface).toBe(n['container'] === true);
      }

      const exported = exportLightGraph(state);
      const again = importLightGraph(JSON.parse(JSON.stringify(exported)), { file: 'export' });
      expect(again.state.nodes).toEqual(state.nodes);
      expect(again.state.placement).toEqual(state.placement);
    });
  }
});

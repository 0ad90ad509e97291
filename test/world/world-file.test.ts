/** World files: validated at load; every problem names its file, entity and field. */
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute, loadOf, World, WorldFileError } from '../../server/engine/index.js';
import { loadWorld } from '../../server/world-io/load-world.js';
import { LITTLE_WORLD } from '../fixtures/little-world.js';

function problemsOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WorldFileError);
    return (err as Error).message;
  }
  throw new Error('expected a WorldFileError');
}

describe('world files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lightmud-world-'));
  const write = (name: string, data: unknown) => {
    const p = join(dir, name);
    writeFileSync(p, typeof data === 'string' ? data : JSON.stringify(data));
    return p;
  };

  it('loads a valid file', () => {
    const { state, start, format } = loadWorld(write('ok.json', LITTLE_WORLD));
    expect(format).toBe('lightmud');
    expect(start).toBe('garden');
    expect(Object.keys(state.nodes)).toHaveLength(3 + 5 + 22);
  });

  it('reads the limits and traits (size, capacity, dexterity, pacifist), leaving them absent by default; a world may start over a capacity', () => {
    const doc = structuredClone(LITTLE_WORLD) as unknown as { objects: Record<string, unknown>[]; characters: Record<string, unknown>[] };
    Object.assign(doc.characters[0]!, { capacity: 2, dexterity: 3, pacifist: true });
    Object.assign(doc.objects.find((o) => o['id'] === 'chest')!, { capacity: 5, size: 8 });
    const { state } = loadWorld(write('traits.json', doc));
    expect(state.nodes['gardener']).toMatchObject({ capacity: 2, dexterity: 3, pacifist: true });
    expect(state.nodes['chest']).toMatchObject({ capacity: 5, size: 8 });
    for (const k of ['capacity', 'dexterity', 'pacifist']) expect(state.nodes['orc']).not.toHaveProperty(k);
    for (const k of ['capacity', 'size']) expect(state.nodes['shovel']).not.toHaveProperty(k);
    // the gardener holds 5 things with a capacity of 2: the world loads, and only more is refused
    const w = new World(state);
    expect(loadOf(w, 'gardener')).toBe(5);
    expect(execute(w, 'gardener', 'get shovel').failed).toBe('capacity');
    expect(execute(w, 'gardener', 'drop pebble').ok).toBe(true);
  });

  it('refuses limits and traits of the wrong type', () => {
    const bad = structuredClone(LITTLE_WORLD) as unknown as { objects: Record<string, unknown>[]; characters: Record<string, unknown>[] };
    Object.assign(bad.characters[0]!, { capacity: -1, dexterity: 1.5, pacifist: 'yes' });
    bad.objects[0]!['size'] = 'big';
    const msg = problemsOf(() => loadWorld(write('traits-bad.json', bad)));
    expect(msg).toContain('traits-bad.json: character gardener: capacity: must be >= 0');
    expect(msg).toContain('traits-bad.json: character gardener: dexterity: must be integer');
    expect(msg).toContain('traits-bad.json: character gardener: pacifist: must be boolean');
    expect(msg).toContain('traits-bad.json: object shovel: size: must be integer');
  });

  it('names file, entity and field for schema errors', () => {
    const bad = structuredClone(LITTLE_WORLD) as unknown as { objects: Record<string, unknown>[]; characters: Record<string, unknown>[] };
    bad.objects[0]!['weapon'] = 'yes';
    delete bad.characters[1]!['persona'];
    bad.objects[1]!['colour'] = 'red';
    const msg = problemsOf(() => loadWorld(write('schema.json', bad)));
    expect(msg).toContain('schema.json: object shovel: weapon: must be boolean');
    expect(msg).toContain('schema.json: character orc: persona: must have required property');
    expect(msg).toContain('schema.json: object hat: (entry): must NOT have additional properties (colour)');
  });

  it('names dangling references, duplicate ids, impossible placements and cycles', () => {
    const bad = structuredClone(LITTLE_WORLD);
    bad.rooms![0]!.exits.push({ label: 'west', to: 'nowhere' });
    bad.characters![0]!.room = 'attic';
    bad.objects!.push({ id: 'shovel', name: 'second shovel', description: 'x', in: 'garden' });
    bad.objects!.push({ id: 'cheese', name: 'cheese', description: 'x', wornBy: 'orc' });
    bad.objects!.push({ id: 'box-a', name: 'box a', description: 'x', container: true, in: 'box-b' });
    bad.objects!.push({ id: 'box-b', name: 'box b', description: 'x', container: true, in: 'box-a' });
    bad.objects!.push({ id: 'pin', name: 'pin', description: 'x', on: 'chest' });
    bad.rooms![1]!.category = 'Spaceship';
    const msg = problemsOf(() => loadWorld(write('refs.json', bad)));
    expect(msg).toContain('refs.json: room garden: exits.1.to: "nowhere" is not a room');
    expect(msg).toContain('refs.json: character gardener: room: "attic" is not a room');
    expect(msg).toContain('refs.json: object shovel: id: duplicate id');
    expect(msg).toContain('refs.json: object cheese: wornBy: only wearable objects can be worn');
    expect(msg).toContain('containment cycle');
    expect(msg).toContain('refs.json: object pin: on: "chest" is not a surface');
    expect(msg).toContain('refs.json: room shed: category: unknown category "Spaceship"');
  });

  it('refuses corrupt, empty, binary and missing files with a clear message', () => {
    expect(problemsOf(() => loadWorld(write('trunc.json', JSON.stringify(LITTLE_WORLD).slice(0, 300))))).toMatch(/trunc\.json: \(file\): \(json\): not valid JSON/);
    expect(problemsOf(() => loadWorld(write('empty.json', '')))).toMatch(/not valid JSON/);
    expect(problemsOf(() => loadWorld(write('bin.json', '\u0000\u00ff\u0001garbage')))).toMatch(/not valid JSON/);
    expect(problemsOf(() => loadWorld(write('array.json', '[1,2,3]')))).toMatch(/array\.json/);
    expect(problemsOf(() => loadWorld(join(dir, 'missing.json')))).toMatch(/missing\.json: \(file\): \(file\): no such file/);
  });

  it('merges a directory of files, world.json first, and names the file of each problem', () => {
    const d = join(dir, 'multi');
    mkdirSync(d);
    const { rooms, characters, objects, ...head } = LITTLE_WORLD;
    writeFileSync(join(d, 'world.json'), JSON.stringify(head));
    writeFileSync(join(d, 'a-rooms.json'), JSON.stringify({ format: 'lightmud-world', version: 1, rooms }));
    writeFileSync(join(d, 'b-people.json'), JSON.stringify({ format: 'lightmud-world', version: 1, characters, objects }));
    const ok = loadWorld(d);
    expect(ok.files.map((f) => f.split('/').pop())).toEqual(['world.json', 'a-rooms.json', 'b-people.json']);
    expect(ok.state.title).toBe('Little world');
    writeFileSync(join(d, 'c-bad.json'), JSON.stringify({ format: 'lightmud-world', version: 1, objects: [{ id: 'x1', name: 'x', description: 'x', in: 'moon' }] }));
    expect(problemsOf(() => loadWorld(d))).toContain('c-bad.json: object x1: in: "moon" does not exist');
  });
});

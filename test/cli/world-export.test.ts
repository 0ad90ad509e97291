/**
 * `lightmud world export` (a real child process on a real SQLite file, while the game host still has it
 * open): the world as the database holds it, builders' changes and commands after the newest snapshot
 * included, as a lightmud world file that loads back as the same graph (and is served), and as LIGHT graph
 * JSON that the LIGHT import reads back.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { World, type WorldState } from '../../server/engine/index.js';
import { GameHost } from '../../server/host/game-host.js';
import { loadWorld } from '../../server/world-io/load-world.js';
import { toWorldFile } from '../../server/world-io/world-export.js';
import { startServer } from '../../server/net/server.js';
import { tempDir, writeLittleWorld, WsClient } from '../server/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/lightmud.mjs', import.meta.url));
const lightmud = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });

/** Each parent's children, characters and objects apart, in order: what a room or a container lists. */
function children(state: WorldState): Record<string, string[]> {
  const w = new World(structuredClone(state));
  const out: Record<string, string[]> = {};
  for (const n of w.nodes()) {
    const kids = w.children(n.id);
    if (kids.length) out[n.id] = [...kids.filter((k) => w.character(k)), '|', ...kids.filter((k) => w.object(k))];
  }
  return out;
}

describe('lightmud world export', () => {
  const tmp = tempDir();
  const db = join(tmp.dir, 'live.db');
  let host: GameHost;
  let live: WorldState;
  let bed: string;

  beforeAll(() => {
    host = GameHost.open({ db, world: writeLittleWorld(tmp.dir) });
    const dug = host.admin({ op: 'build', actor: 'orc', verb: 'dig', args: 'east Herb Bed' }, 'root');
    bed = dug.text.match(/\((herb-bed-\d+)\)/)![1]!;
    expect(host.submit('orc', 'go east').ok).toBe(true);
    expect(host.admin({ op: 'build', actor: 'orc', verb: 'describe', args: 'here = Thyme and sage in rows.' }, 'root').ok).toBe(true);
    expect(host.admin({ op: 'build', actor: 'orc', verb: 'link', args: '"garden gate" Muddy Road' }, 'root').ok).toBe(true);
    expect(host.admin({ op: 'create', actor: 'orc', spec: 'object bee skep = A straw hive. with container, fixed' }, 'root').ok).toBe(true);
    expect(host.admin({ op: 'create', actor: 'orc', spec: 'honey pot with food' }, 'root').ok).toBe(true);
    // After the last snapshot: in the log only, replayed by the export.
    for (const cmd of ['get shovel', 'go east']) expect(host.submit('kitty', cmd).ok, cmd).toBe(true);
    for (const cmd of ['get honey pot', 'remove club', 'put club in bee skep', 'follow kitty']) expect(host.submit('orc', cmd).ok, cmd).toBe(true);
    live = host.world.toJSON();
  });
  afterAll(() => {
    host.close();
    tmp.cleanup();
  });

  it('writes a lightmud world file that loads back as the same graph, and is served', async () => {
    const out = join(tmp.dir, 'export.json');
    const r = lightmud('world', 'export', '--db', db, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\(6 commands replayed after its newest snapshot\): 4 rooms, 5 characters, 24 objects, as a lightmud world file to /);
    expect(r.stderr).toContain('note: character orc follows kitty: not in the format, left out');
    const back = loadWorld(out);
    expect(back.format).toBe('lightmud');
    const expected = structuredClone(live.nodes);
    delete (expected['orc'] as { following?: string }).following;
    expect(back.state.nodes).toEqual(expected);
    expect(Object.keys(back.state.nodes)).toEqual(Object.keys(live.nodes).filter((id) => live.nodes[id]!.kind === 'room').concat(
      Object.keys(live.placement).filter((id) => live.nodes[id]!.kind === 'character'), Object.keys(live.placement).filter((id) => live.nodes[id]!.kind === 'object')));
    expect(Object.fromEntries(Object.entries(back.state.placement).sort())).toEqual(Object.fromEntries(Object.entries(live.placement).sort()));
    expect(children(back.state)).toEqual(children(live));
    // Written again from what it loaded: the same file.
    expect(back.start).toBe('garden');
    expect(toWorldFile(back.state, { start: back.start }).file).toEqual(JSON.parse(readFileSync(out, 'utf8')));

    // Served: a guest walks into the built room over the wire.
    const server = await startServer({ db: join(tmp.dir, 'served.db'), world: out, httpPort: 0, telnetPort: 0, host: '127.0.0.1', logger: false, linkdeadMs: 0 });
    try {
      const ws = await WsClient.open(`ws://127.0.0.1:${server.httpPort}/ws`);
      await ws.guest('gardener');
      const there = await ws.command('go east');
      expect(there.state.room).toMatchObject({ id: bed, name: 'Herb Bed', description: 'Thyme and sage in rows.' });
      expect(there.state.room.exits.map((e) => e.label)).toEqual(['west', 'garden gate']);
      expect(there.state.people.map((p) => p.id)).toEqual(['orc', 'kitty']);
      expect((await ws.command('get bee skep')).result.ok).toBe(false);
      expect((await ws.command('get club from bee skep')).result.ok).toBe(true);
      await ws.close();
    } finally {
      await server.close();
    }
  });

  it('writes LIGHT graph JSON that the LIGHT import reads back', () => {
    const out = join(tmp.dir, 'export.light.json');
    const r = lightmud('world', 'export', '--db', db, '--format', 'light', '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const back = loadWorld(out);
    expect(back.format).toBe('light-graph');
    expect(Object.keys(back.state.nodes).sort()).toEqual(Object.keys(live.nodes).sort());
    expect(back.state.nodes[bed]).toMatchObject({ kind: 'room', name: 'Herb Bed', category: 'Farm', description: 'Thyme and sage in rows.', exits: [{ label: 'west', to: 'garden' }, { label: 'garden gate', to: 'road' }] });
    const skep = Object.values(back.state.nodes).find((n) => n.name === 'bee skep')!;
    expect(skep).toMatchObject({ kind: 'object', description: 'A straw hive.', gettable: false, container: true, surface: false, food: false });
    expect(Object.values(back.state.nodes).find((n) => n.name === 'honey pot')).toMatchObject({ gettable: true, food: true });
    expect(Object.fromEntries(Object.entries(back.state.placement).sort())).toEqual(Object.fromEntries(Object.entries(live.placement).sort()));
    for (const n of Object.values(live.nodes)) {
      const b = back.state.nodes[n.id]!;
      expect({ kind: b.kind, name: b.name, description: b.description }, n.id).toEqual({ kind: n.kind, name: n.name, description: n.description });
      if (n.kind === 'room') expect(b.kind === 'room' && b.exits, n.id).toEqual(n.exits);
    }
  });

  it('says what it needs', () => {
    expect(lightmud('world').stdout).toMatch(/export/);
    expect(lightmud('world', 'export', '--help').stdout).toMatch(/^usage: lightmud world export \[--db FILE\] \[--format lightmud\|light\] \[--out PATH\]/);
    const none = lightmud('world', 'export', '--db', join(tmp.dir, 'nothing.db'));
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/there is no database at/);
    expect(lightmud('world', 'export', '--db', db, '--format', 'yaml').status).not.toBe(0);
    // Standard output when no --out is given.
    const stdout = lightmud('world', 'export', '--db', db);
    expect(JSON.parse(stdout.stdout)).toMatchObject({ format: 'lightmud-world', version: 1 });
  });
});

describe('toWorldFile on the bundled world', () => {
  it('writes the bundled world as a file that loads back as the same graph', () => {
    const loaded = loadWorld(new URL('../../world-data/default', import.meta.url).pathname);
    const out = toWorldFile(loaded.state, { start: loaded.start });
    expect(out.problems).toEqual([]);
    expect(out.notes).toEqual([]);
    const t = tempDir();
    try {
      const file = join(t.dir, 'world.json');
      writeFileSync(file, JSON.stringify(out.file));
      const back = loadWorld(file);
      expect(back.state.nodes).toEqual(loaded.state.nodes);
      expect(children(back.state)).toEqual(children(loaded.state));
      expect(back.start).toBe(loaded.start);
    } finally {
      t.cleanup();
    }
  });
});

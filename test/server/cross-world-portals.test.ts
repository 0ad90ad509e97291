/**
 * Cross-world who and tell when a world has several portals (a cluster's world, lightmud serve --remote):
 * each portal answers for its own players; `who` merges a world's portals, this world's fellow portals
 * into "this world"; a tell reaches the portal the player is on; a portal and a world's own server never
 * share a name. Real CrossWorld objects on the in-process bus, with portals that hold players and
 * record what they are told.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../server/bus/in-process-bus.js';
import { CrossWorld } from '../../server/net/cross-world.js';
import type { Portal } from '../../server/net/portal.js';

/** A portal's players as CrossWorld reads them: who() and sessions with a link that records what it is sent. */
function portalOf(names: string[]) {
  // Character ids are the names here.
  const told: string[] = [];
  const sessions = new Set(names.map((name) => ({ character: { id: name, name }, account: null, role: 'player', link: { transport: 'websocket', sendSystem: (t: string) => told.push(`${name}: ${t}`) } })));
  const portal = {
    sessions,
    who: () => [...sessions].map((s) => ({ character: s.character.id, name: s.character.name, account: null, role: 'player', transport: 'websocket', connected: true, idleSeconds: 0 })),
  } as unknown as Portal;
  return { portal, told };
}

const quiet = { info() {}, warn() {}, error() {} };

describe('cross-world who and tell with a world on several portals', () => {
  const bus = new InProcessBus();
  const started: CrossWorld[] = [];
  const join = async (world: string, title: string, names: string[], shared: boolean) => {
    const p = portalOf(names);
    const cw = new CrossWorld({ bus, world, timeoutMs: 300, heartbeatMs: 100, shared }, { portal: p.portal, title: () => title, log: quiet, broadcast() {} });
    await cw.start();
    started.push(cw);
    return { cw, told: p.told };
  };
  afterEach(async () => {
    for (const cw of started.splice(0)) await cw.close();
  });

  it('who merges the portals of each world; a tell goes to the portal the player is on', async () => {
    const castle1 = await join('castle', 'The Castle', ['kitty'], true);
    const castle2 = await join('castle', 'The Castle', ['orc', 'ghost'], true);
    const harbour = await join('harbour', 'The Harbour', ['carter'], false);
    await new Promise((r) => setTimeout(r, 150));

    const fromCastle = (await castle1.cw.who()).split('\n');
    expect(fromCastle.slice(0, 2)).toEqual(['4 playing in 2 worlds:', 'The Castle (this world, castle): 3 playing']);
    expect(fromCastle.slice(2, 5).map((l) => l.trim().split(/\s+/)[0]).sort()).toEqual(['ghost', 'kitty', 'orc']);
    expect(fromCastle.slice(5).map((l) => l.trim().split(/\s+/)[0])).toEqual(['The', 'carter']);
    expect(fromCastle[5]).toBe('The Harbour (harbour): 1 playing');

    const fromHarbour = (await harbour.cw.who()).split('\n');
    expect(fromHarbour[0]).toBe('4 playing in 2 worlds:');
    // The castle once, with the players of both its portals.
    expect(fromHarbour.filter((l) => l.startsWith('The Castle'))).toEqual(['The Castle (castle): 3 playing']);

    // From the harbour to the orc, who is on the castle's second portal.
    expect(await harbour.cw.tell('carter', 'orc Ahoy there', ['carter'])).toEqual({ ok: true, text: 'You tell orc (in The Castle): "Ahoy there"' });
    expect(castle2.told).toEqual(['orc: carter (in The Harbour) tells you: "Ahoy there"']);
    expect(castle1.told).toEqual([]);
    // From the castle's first portal to the harbour.
    expect(await castle1.cw.tell('kitty', 'carter hello', ['kitty', 'orc', 'ghost', 'gardener'])).toEqual({ ok: true, text: 'You tell carter (in The Harbour): "hello"' });
    expect(harbour.told).toEqual(['carter: kitty (in The Castle) tells you: "hello"']);
    // A character of this world is the engine's business (null), whichever portal the player is on.
    expect(await castle1.cw.tell('kitty', 'orc hi', ['kitty', 'orc', 'ghost'])).toBeNull();
  });

  it('a shout reaches the players of every portal and world who did not hear it in the world, and a bad one is dropped', async () => {
    const castle1 = await join('castle', 'The Castle', ['kitty'], true);
    const castle2 = await join('castle', 'The Castle', ['orc', 'ghost'], true);
    const harbour = await join('harbour', 'The Harbour', ['carter'], false);
    // The engine carried it to the kitty (the shouter) and the orc next door: the ghost, far off, and the carter, in another world, are told now.
    expect(castle1.cw.shout({ id: 'kitty', name: 'kitty' }, 'Fire!', ['kitty', 'orc'])).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    expect(castle1.told).toEqual([]);
    expect(castle2.told).toEqual(['ghost: Someone shouts far away, "Fire!"']);
    expect(harbour.told).toEqual(['carter: kitty shouts from another world (The Castle), "Fire!"']);
    // Too soon after the last: heard nearby only, and the shouter is told why.
    expect(castle1.cw.shout({ id: 'kitty', name: 'kitty' }, 'Again!', ['kitty'])).toMatch(/^\(Only the rooms nearby heard you: a shout carries further once every 10 s; 10 s to go\.\)$/);
    bus.publish('lightmud.shout', { from: 'x', fromWorld: 'no such world!', text: 'spoof', heard: [] });
    bus.publish('lightmud.shout', { from: 'x', fromWorld: 'harbour', text: 'x'.repeat(5000), heard: 'all' });
    await new Promise((r) => setTimeout(r, 50));
    expect([...castle2.told, ...harbour.told].filter((t) => /Again|spoof|xxx/.test(t))).toEqual([]);
  });

  it('a silent portal of a world is named; the world is listed with the portals that answered', async () => {
    const castle1 = await join('castle', 'The Castle', ['kitty'], true);
    await join('castle', 'The Castle', ['orc'], true);
    const harbour = await join('harbour', 'The Harbour', ['carter'], false);
    // A third castle portal that says it is here but never answers.
    bus.publish('lightmud.presence', { kind: 'here', world: 'castle', title: 'The Castle', portal: 'pdeadbeef', shared: true });
    await new Promise((r) => setTimeout(r, 150));
    expect((await harbour.cw.who()).split('\n')).toContain('The Castle (castle): 2 playing (1 of its portals did not answer)');
    expect((await castle1.cw.who()).split('\n')[1]).toBe('The Castle (this world, castle): 2 playing (1 of its portals did not answer)');
  });

  it('a portal and a world\'s own server never share a name', async () => {
    await join('castle', 'The Castle', ['kitty'], true);
    await expect(join('castle', 'Another Castle', [], false)).rejects.toThrow('a world called "castle" is already on the bus (in-process): The Castle (as a world of a cluster, with portals); give this one another --world-id');
    await join('harbour', 'The Harbour', [], false);
    await expect(join('harbour', 'The Harbour', [], true)).rejects.toThrow('a world called "harbour" is already on the bus (in-process): The Harbour (a server that runs that world itself, not a portal of its shard); give this one another --world-id');
    // A second portal of the cluster's world is welcome.
    await expect(join('castle', 'The Castle', [], true)).resolves.toBeTruthy();
  });
});

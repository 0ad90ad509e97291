/**
 * Cross-world presence and talk (issue 15) with real parts: a real nats-server on 127.0.0.1, two real
 * lightmud servers on it (each its own world and its own NATS connection, as two processes would have),
 * a websocket player in one and a telnet player in the other. Skipped, with the reason, without nats-server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorldFile } from '../../server/engine/index.js';
import { NatsBus } from '../../server/bus/nats-bus.js';
import type { Bus } from '../../server/bus/bus.js';
import { BUS_BACK_NOTICE, BUS_DOWN_NOTICE } from '../../server/net/cross-world.js';
import { natsSkip, startNats, type RunningNats } from './nats.js';
import { startTestServer, tempDir, TelnetClient, WsClient, type TestServer } from './helpers.js';

/** A second world, with other people in it. */
const FAR_WORLD: WorldFile = {
  format: 'lightmud-world',
  version: 1,
  title: 'Far world',
  start: 'hall',
  rooms: [{ id: 'hall', name: 'Stone Hall', category: 'Inside Castle', description: 'A cold hall.', backstory: 'Old.', exits: [] }],
  characters: [
    { id: 'brom', name: 'Brom', persona: 'I am a smith.', description: 'You see Brom.', room: 'hall' },
    { id: 'wren', name: 'Wren', persona: 'I am a bard.', description: 'You see Wren.', room: 'hall' },
  ],
  objects: [],
};

const quiet = { info() {}, warn() {} };
const FAST = { timeoutMs: 400, heartbeatMs: 200 };

async function eventually<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, ms = 8000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const skip = natsSkip();

describe.skipIf(skip)('several worlds on one NATS bus', () => {
  let nats: RunningNats;
  let east: TestServer;
  let west: TestServer;
  let eastBus: Bus;
  let westBus: Bus;
  let farDir: ReturnType<typeof tempDir>;
  let kitty: WsClient;
  let brom: TelnetClient;

  const busFor = () => NatsBus.connect(nats.url, { log: quiet, reconnectWaitMs: 200 });
  const say = async (c: WsClient, text: string) => (await c.command(text)).result.text;

  beforeAll(async () => {
    nats = await startNats();
    farDir = tempDir();
    const farFile = join(farDir.dir, 'far.json');
    writeFileSync(farFile, JSON.stringify(FAR_WORLD));
    eastBus = await busFor();
    westBus = await busFor();
    east = await startTestServer({ crossWorld: { bus: eastBus, world: 'east', ...FAST, shoutEveryMs: 60_000 } });
    west = await startTestServer({ world: farFile, crossWorld: { bus: westBus, world: 'west', ...FAST } });
    kitty = await WsClient.open(east.wsUrl);
    await kitty.guest('kitty');
    brom = await TelnetClient.open(west.telnetPort!);
    await brom.guest('Brom');
  });

  afterAll(async () => {
    await kitty?.close();
    await brom?.close();
    await east?.stop();
    await west?.stop();
    await eastBus?.close();
    await westBus?.close();
    farDir?.cleanup();
    await nats?.stop();
  });

  it('who lists the players of every world, this world first', async () => {
    const text = await eventually('east to see west', () => say(kitty, 'who'), (t) => t.includes('(west)'));
    expect(text.split('\n')).toEqual([
      '2 playing in 2 worlds:',
      'Little world (this world, east): 1 playing',
      expect.stringMatching(/^ {2}kitty\s+guest\s+websocket$/),
      'Far world (west): 1 playing',
      expect.stringMatching(/^ {2}Brom\s+guest\s+telnet$/),
    ]);
    brom.line('who');
    const seen = await brom.waitFor(/Little world \(east\): 1 playing\r?\n\s+kitty/);
    expect(seen).toMatch(/2 playing in 2 worlds:\r?\nFar world \(this world, west\): 1 playing\r?\n\s+Brom/);
  });

  it('tell reaches a player in another world, both ways; the engine keeps tells within its world', async () => {
    expect(await say(kitty, 'tell brom hello from the garden')).toBe('You tell Brom (in Far world): "hello from the garden"');
    await brom.waitFor('kitty (in Little world) tells you: "hello from the garden"');

    brom.line('tell kitty: and hello from the hall');
    await brom.waitFor('You tell kitty (in Little world): "and hello from the hall"');
    const heard = await kitty.seen((f) => f.type === 'observation' && f.kind === 'system' && f.text.includes('tells you'));
    expect(heard).toMatchObject({ text: 'Brom (in Far world) tells you: "and hello from the hall"' });

    // The orc is in this world (in the same room): the engine's own tell, not the bus.
    const local = await say(kitty, 'tell orc hi');
    expect(local).not.toMatch(/Far world|in any other world/);
    expect(local.toLowerCase()).toContain('orc');
    // The ghost is of this world too, in another room: the engine's answer stands, the bus is not asked.
    const elsewhere = await say(kitty, 'tell ghost boo');
    expect(elsewhere).not.toMatch(/Nobody called|Far world/);

    // NAME@WORLD says which world.
    expect(await say(kitty, 'tell brom@west: once more')).toBe('You tell Brom (in Far world): "once more"');
    await brom.waitFor('kitty (in Little world) tells you: "once more"');
  });

  it('a shout is heard next door by the engine, and beyond it by every other player of every world, once', async () => {
    const ghost = await WsClient.open(east.wsUrl); // in the shed, next door to the garden
    await ghost.guest('ghost');
    const carter = await WsClient.open(east.wsUrl); // on the road, beyond the shed
    await carter.guest('carter');
    try {
      expect(await say(kitty, 'shout "Is anyone out there?"')).toBe('You shout, "Is anyone out there?"');
      await brom.waitFor('kitty shouts from another world (Little world), "Is anyone out there?"');
      const far = await carter.seen((f) => f.type === 'observation' && f.text.includes('Is anyone out there?'));
      expect(far).toMatchObject({ kind: 'system', text: 'Someone shouts far away, "Is anyone out there?"' });
      const near = await ghost.seen((f) => f.type === 'observation' && f.text.includes('Is anyone out there?'));
      expect(near).toMatchObject({ kind: 'event', text: 'Someone shouts from south, "Is anyone out there?"' });
      // Within the limit (once a minute here), the next shout is heard next door only, and the shouter is told.
      const again = await say(kitty, 'yell Hello?');
      expect(again).toMatch(/^You shout, "Hello\?"\n\(Only the rooms nearby heard you: a shout carries further once every 60 s; \d+ s to go\.\)$/);
      await ghost.seen((f) => f.type === 'observation' && f.text.includes('"Hello?"'));
      // A tell round trip through the bus after both shouts: anything the shouts sent has arrived by then.
      expect(await say(kitty, 'tell brom done')).toMatch(/^You tell Brom/);
      await brom.waitFor('tells you: "done"');
      const heardBy = (c: WsClient, text: string) => c.frames.filter((f) => f.type === 'observation' && f.text.includes(text)).length;
      expect(heardBy(ghost, 'Is anyone out there?')).toBe(1); // the engine's, not the bus's as well
      expect(heardBy(kitty, 'Is anyone out there?')).toBe(1); // the reply only
      expect(heardBy(carter, 'Hello?')).toBe(0);
      expect(brom.text).not.toContain('Hello?');
    } finally {
      await ghost.close();
      await carter.close();
    }
  });

  it('says so when nobody of that name is anywhere', async () => {
    expect(await say(kitty, 'tell zyx are you there?')).toBe('Nobody called "zyx" is playing, in this world or in any other world on the bus.');
    // Wren is a character of the far world, but nobody plays her.
    expect(await say(kitty, 'tell wren hello')).toMatch(/^Nobody called "wren" is playing/);
    // "tell" alone is the engine's to answer.
    expect(await say(kitty, 'tell')).not.toMatch(/Nobody called/);
  });

  it('names a world whose server stopped as gone, and one that fell silent as not answering', async () => {
    const gone = await startTestServer({ crossWorld: { bus: await busFor(), world: 'north', ...FAST } });
    const silentBus = await busFor();
    const silent = await startTestServer({ crossWorld: { bus: silentBus, world: 'south', ...FAST } });
    await eventually('east to see north and south', () => say(kitty, 'who'), (t) => t.includes('(north): 0 playing') && t.includes('(south): 0 playing'));

    await gone.stop();
    await gone.crossWorld!.bus.close();
    // South's connection to the bus ends under it (as when its process dies): no goodbye.
    await silentBus.close();
    const t0 = Date.now();
    const text = await eventually('north gone, south not answering', () => say(kitty, 'who'), (t) => t.includes('(north): gone') && t.includes('(south): not answering'));
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(text).toContain('Little world (north): gone (its server stopped)');
    expect(text).toContain('Little world (south): not answering');
    expect(text).toMatch(/^2 playing in 2 worlds:/);
    await silent.stop();
  });

  it('keeps each world playing while nats-server is down, says cross-world talk is unavailable, and recovers', async () => {
    await nats.kill();
    await kitty.seen((f) => f.type === 'observation' && f.kind === 'system' && f.text === BUS_DOWN_NOTICE);
    await brom.waitFor('Cross-world talk is unavailable'); // telnet wraps the long line

    // This world plays on.
    expect(await say(kitty, 'look')).toContain('Walled Garden');
    expect(await say(kitty, 'get shovel')).toMatch(/shovel/i);
    brom.line('look');
    await brom.waitFor('Stone Hall');
    const who = await say(kitty, 'who');
    expect(who).toMatch(/^1 playing here:\nLittle world \(this world, east\): 1 playing\n\s+kitty/);
    expect(who).toContain('cross-world talk is unavailable');
    expect(await say(kitty, 'tell brom are you there')).toMatch(/cross-world talk is unavailable right now/);

    await nats.restart();
    await kitty.seen((f) => f.type === 'observation' && f.kind === 'system' && f.text === BUS_BACK_NOTICE);
    await brom.waitFor('Cross-world talk is back');
    await eventually('west back in east\'s who', () => say(kitty, 'who'), (t) => /Far world \(west\): 1 playing\n\s+Brom/.test(t));
    expect(await say(kitty, 'tell brom back again')).toBe('You tell Brom (in Far world): "back again"');
    await brom.waitFor('kitty (in Little world) tells you: "back again"');
  });
});

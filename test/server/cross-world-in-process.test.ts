/**
 * Cross-world who over the in-process bus (two servers in one process): a world that answers too late
 * is named as not answering without holding the command up; a second server with a world name already
 * on the bus does not start; without a bus, who is what it always was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../server/bus/in-process-bus.js';
import { PRESENCE_SUBJECT, whoSubject } from '../../server/net/cross-world-messages.js';
import { startTestServer, WsClient, type TestServer } from './helpers.js';

describe('cross-world who on the in-process bus', () => {
  const bus = new InProcessBus();
  let east: TestServer;
  let kitty: WsClient;

  beforeAll(async () => {
    east = await startTestServer({ crossWorld: { bus, world: 'east', timeoutMs: 300, heartbeatMs: 200 } });
    kitty = await WsClient.open(east.wsUrl);
    await kitty.guest('kitty');
  });
  afterAll(async () => {
    await kitty.close();
    await east.stop();
    await bus.close();
  });

  it('names a world that answers too late as not answering, within the timeout', async () => {
    const stopServing = bus.serve(whoSubject('slow'), () => new Promise((r) => setTimeout(() => r({ world: 'slow', title: 'Slow world', players: [] }), 3000)));
    bus.publish(PRESENCE_SUBJECT, { kind: 'here', world: 'slow', title: 'Slow world' });
    // A presence message of the wrong shape is dropped, not listed.
    bus.publish(PRESENCE_SUBJECT, { kind: 'here', world: 'no spaces allowed' });
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const text = (await kitty.command('who')).result.text;
    const took = Date.now() - t0;
    expect(text.split('\n')).toEqual([
      '1 playing in 1 world:',
      'Little world (this world, east): 1 playing',
      expect.stringMatching(/^ {2}kitty\s+guest\s+websocket$/),
      'Slow world (slow): not answering',
    ]);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2500);
    stopServing();
  });

  it('refuses to start a second world of the same name on the bus', async () => {
    await expect(startTestServer({ crossWorld: { bus, world: 'east', timeoutMs: 300 } })).rejects.toThrow(/a world called "east" is already on the bus \(in-process\): Little world; give this one another --world-id/);
  });
});

describe('who without a bus', () => {
  it('is the plain list of this world, as before', async () => {
    const server = await startTestServer();
    try {
      const c = await WsClient.open(server.wsUrl);
      await c.guest('kitty');
      expect((await c.command('who')).result.text).toMatch(/^1 playing:\n {2}kitty\s+guest\s+websocket$/);
      expect(server.crossWorld).toBeNull();
      await c.close();
    } finally {
      await server.stop();
    }
  });
});

/**
 * A death over real sockets: the kitty hits the orc (a human player) until it dies. The orc's
 * player is told, goes back to choosing, can play another character; the orc is gone from the
 * world and the list; the server keeps serving, also after a restart on the same database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer, WsClient } from './helpers.js';

describe('death over the server', () => {
  it('the dead player is told and chooses again; the body stays; the server goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lightmud-death-'));
    const server = await startTestServer({}, dir);
    const kitty = await WsClient.open(server.wsUrl);
    const orc = await WsClient.open(server.wsUrl);
    try {
      await kitty.guest('kitty');
      await orc.guest('orc');
      let last = '';
      for (let i = 0; i < 200 && !last.includes('The orc dies.'); i++) last = (await kitty.command('hit orc')).result.text;
      expect(last).toBe('You hit the orc. The orc dies.');
      expect((await orc.event('You die.')).text).toBe('You die.');
      const sys = await orc.next((f) => f.type === 'observation' && f.kind === 'system' && /died/.test(f.text), 'the death notice');
      expect(sys).toMatchObject({ text: expect.stringMatching(/You have died/) });
      const list = await orc.nextOfType('characters');
      expect(list.characters.map((c) => c.id)).not.toContain('orc');
      expect(list.characters.map((c) => c.id)).toContain('gardener');
      // the player plays on as someone else
      orc.send({ type: 'choose', character: 'gardener' });
      await orc.nextOfType('welcome');
      const look = (await orc.command('look')).result.text;
      expect(look).toMatch(/body of the orc/);
      expect((await orc.command('get silver ring from body')).result.text).toMatch(/You get the silver ring/);
      const state = (await kitty.command('look')).state;
      expect(state.people.map((p) => p.id)).not.toContain('orc');
      expect(state.validActions).not.toContain('hit orc');
      const who = await (await fetch(`http://127.0.0.1:${server.httpPort}/api/who`)).json();
      expect(JSON.stringify(who)).not.toMatch(/"orc"/);
      await kitty.close();
      await orc.close();
      await server.stop();
      // the log replays to the same death: the orc is still dead and its body still holds the helmet
      const again = await startTestServer({}, dir);
      try {
        const c = await WsClient.open(again.wsUrl);
        await c.nextOfType('hello');
        c.send({ type: 'login', guest: true, character: 'orc' });
        const refused = await c.nextOfType('error');
        c.send({ type: 'login', guest: true, character: 'kitty' });
        await c.nextOfType('welcome');
        const look = await c.nextOfType('state');
        expect(refused.message).toMatch(/orc/);
        expect(look.people.map((p) => p.id)).not.toContain('orc');
        expect(look.objects.map((o) => o.id)).toContain('orc__dead__');
        await c.close();
      } finally {
        await again.stop();
      }
    } finally {
      await kitty.close();
      await orc.close();
      await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

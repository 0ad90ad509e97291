import { describe, expect, it } from 'vitest';
import type { Driver } from '../../server/host/host.js';
import type { EventSummary } from '../../server/net/protocol.js';
import { startTestServer, WsClient } from './helpers.js';

describe('drivers', () => {
  it('lets a program drive a character beside human players', async () => {
    const server = await startTestServer();
    try {
      const host = server.host;
      // A scripted character: the ghost answers whoever speaks to it.
      const heard: string[] = [];
      const ghost: Driver = {
        kind: 'script',
        wantsState: false,
        perceive(text: string, event: EventSummary) {
          heard.push(text);
          if (event.type === 'say' && event.actor !== 'ghost') void host.submit('ghost', 'say Boo to you too.');
        },
        detached() {},
      };
      host.attach('ghost', ghost);
      const seen: [string, string][] = [];
      const stop = host.onPerception((id, text) => seen.push([id, text]));

      const c = await WsClient.open(server.wsUrl);
      await c.nextOfType('hello');
      c.send({ type: 'login', guest: true, character: 'ghost' });
      expect(await c.nextOfType('error')).toMatchObject({ code: 'character_taken' });
      c.send({ type: 'login', guest: true, character: 'kitty' });
      await c.nextOfType('welcome');
      await c.command('go north');
      await c.command('say hello, ghost');
      expect((await c.event('Boo')).text).toBe('The ghost says, "Boo to you too."');
      expect(heard).toContain('The kitty says, "hello, ghost"');
      expect(seen).toContainEqual(['kitty', 'The ghost says, "Boo to you too."']);

      stop();
      host.detach('ghost', ghost);
      c.send({ type: 'characters' });
      expect((await c.nextOfType('characters')).characters.map((x) => x.id)).toContain('ghost');
      await c.close();
    } finally {
      await server.stop();
    }
  });
});

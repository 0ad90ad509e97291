/**
 * Issue 12, 3: one address cannot hoard characters by connecting as a guest, choosing, dropping and
 * repeating: link-dead characters (held for a resume) count against the address that holds them.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, WsClient, type TestServer } from '../server/helpers.js';

describe('characters per address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ maxCharactersPerIp: 2, linkdeadMs: 60_000 });
  });
  afterAll(() => server.stop());

  it('refuses a third character to one address, link-dead ones included, and serves other addresses', async () => {
    const tokens: string[] = [];
    for (const name of ['kitty', 'orc']) {
      const c = await WsClient.open(server.wsUrl, '127.0.0.6');
      await c.nextOfType('hello');
      c.send({ type: 'login', guest: true, character: name });
      tokens.push((await c.nextOfType('welcome')).token);
      await c.drop(); // link-dead: the character stays reserved
    }
    const third = await WsClient.open(server.wsUrl, '127.0.0.6');
    await third.nextOfType('hello');
    third.send({ type: 'login', guest: true, character: 'gardener' });
    const refused = await third.nextOfType('error');
    expect(refused).toMatchObject({ code: 'too_many_characters', message: expect.stringContaining('the most one address may (2, link-dead ones included') });
    expect(server.portal.heldFrom('127.0.0.6')).toBe(2);
    // Over telnet too.
    const t = await TelnetClient.open(server.telnetPort!, [], '127.0.0.6');
    await t.waitFor('> ');
    t.line('guest gardener');
    await t.waitFor('the most one address may');
    await t.close();

    // Its own characters it may resume.
    third.send({ type: 'resume', token: tokens[0]! });
    expect(await third.nextOfType('welcome')).toMatchObject({ character: { id: 'kitty' }, resumed: true });
    // Another address is not affected.
    const other = await WsClient.open(server.wsUrl, '127.0.0.7');
    await other.guest('gardener');
    await other.close();
    // Quitting frees a place.
    await third.close();
    const again = await WsClient.open(server.wsUrl, '127.0.0.6');
    await again.guest('carter');
    await again.close();
  });
});

describe('log of refusals', () => {
  it('writes at most 10 lines a minute about one address, however many refusals', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const server = await startTestServer({ logger: { level: 'info', stream } as unknown as { level: string }, maxCharactersPerIp: 1 });
    try {
      const holder = await WsClient.open(server.wsUrl, '127.0.0.60');
      await holder.guest('kitty');
      const c = await WsClient.open(server.wsUrl, '127.0.0.60');
      await c.nextOfType('hello');
      for (let i = 0; i < 40; i++) {
        c.send({ type: 'login', guest: true, character: 'orc' });
        expect(await c.nextOfType('error')).toMatchObject({ code: 'too_many_characters' });
      }
      expect(lines.filter((l) => l.msg === 'refused: characters per address')).toHaveLength(10);
      await Promise.all([holder.close(), c.close()]);
    } finally {
      await server.stop();
    }
  });
});

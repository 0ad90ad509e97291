/**
 * Issue 12, 2: websocket messages of every kind are budgeted, per connection and per address; a flood
 * is told why its messages are dropped and then disconnected; `characters` needs a login.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, WsClient, type TestServer } from '../server/helpers.js';
import type { ErrorFrame } from '../../server/net/protocol.js';

describe('websocket flood', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      framesPerSecond: 5, frameBurst: 10, framesPerSecondPerIp: 10, frameBurstPerIp: 30, floodDisconnectAfter: 50, loginTimeoutMs: 0,
    });
  });
  afterAll(() => server.stop());

  it('drops an unauthenticated ping flood with a rate_limited error, then disconnects it', async () => {
    const c = await WsClient.open(server.wsUrl, '127.0.0.2');
    await c.nextOfType('hello');
    for (let i = 0; i < 500; i++) c.send({ type: 'ping', id: i });
    const err = await c.next<ErrorFrame>((f) => f.type === 'error');
    expect(err).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('at most 5 a second') });
    const bye = await c.nextOfType('bye');
    expect(bye.reason).toMatch(/Flooding/);
    await c.waitClosed();
    const pongs = c.frames.filter((f) => f.type === 'pong').length;
    expect(pongs).toBeGreaterThanOrEqual(10);
    expect(pongs).toBeLessThan(100);
  });

  it('budgets one address across its connections, and other addresses are served meanwhile', async () => {
    const many = await Promise.all(Array.from({ length: 6 }, () => WsClient.open(server.wsUrl, '127.0.0.3')));
    await Promise.all(many.map((c) => c.nextOfType('hello')));
    // Each connection stays under its own burst (8 < 10); together they exceed the address's (48 > 30).
    for (const c of many) for (let i = 0; i < 8; i++) c.send({ type: 'ping', id: i });
    const waits = many.map((c) => c.next<ErrorFrame>((f) => f.type === 'error'));
    for (const w of waits) w.catch(() => {});
    const refused = await Promise.race(waits);
    expect(refused).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('from your address') });
    const other = await WsClient.open(server.wsUrl, '127.0.0.4');
    await other.guest('kitty');
    expect((await other.command('look')).result.ok).toBe(true);
    await other.close();
    for (const c of many) c.ws.terminate();
  });

  it('lists characters only after a login', async () => {
    const c = await WsClient.open(server.wsUrl, '127.0.0.5');
    await c.nextOfType('hello');
    c.send({ type: 'characters' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'not_logged_in' });
    c.send({ type: 'login', guest: true });
    expect((await c.nextOfType('characters')).characters.length).toBeGreaterThan(0);
    c.send({ type: 'characters' });
    expect((await c.nextOfType('characters')).characters.length).toBeGreaterThan(0);
    await c.close();
  });
});

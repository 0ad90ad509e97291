/**
 * /api/who over real sockets: a player's idle time counts from their last input, also after their
 * connection dropped (link-dead), not from when the session started. Only Date is faked, so the
 * sockets, timers and the server run for real while the clock is moved on.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, WsClient, type TestServer } from './helpers.js';

interface WhoPlayer { character: string; connected: boolean; idleSeconds: number; transport: string | null }

describe('/api/who idle time', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ linkdeadMs: 600_000 });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await server.stop();
  });

  const who = async (): Promise<WhoPlayer[]> => ((await (await fetch(`http://127.0.0.1:${server.httpPort}/api/who`)).json()) as { players: WhoPlayer[] }).players;

  it('counts from the last input while connected, while link-dead, and after a resume', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const a = await WsClient.open(server.wsUrl);
    await a.guest('kitty');
    const token = (a.frames.find((f) => f.type === 'welcome') as { token: string }).token;

    vi.setSystemTime(start + 100_000);
    await a.command('look');
    vi.setSystemTime(start + 130_000);
    expect(await who()).toContainEqual(expect.objectContaining({ character: 'kitty', connected: true, idleSeconds: 30, transport: 'websocket' }));

    await a.drop();
    // The session outlives the connection; its idle time still counts from the last command.
    const dropped = (await who()).find((p) => p.character === 'kitty');
    expect(dropped).toMatchObject({ connected: false, idleSeconds: 30, transport: null });
    vi.setSystemTime(start + 150_000);
    expect((await who()).find((p) => p.character === 'kitty')).toMatchObject({ connected: false, idleSeconds: 50 });

    // Resuming is input: idle starts again on the new connection.
    const b = await WsClient.open(server.wsUrl);
    await b.nextOfType('hello');
    b.send({ type: 'resume', token });
    expect(await b.nextOfType('welcome')).toMatchObject({ resumed: true });
    vi.setSystemTime(start + 155_000);
    expect((await who()).find((p) => p.character === 'kitty')).toMatchObject({ connected: true, idleSeconds: 5 });
    await b.close();
  });
});

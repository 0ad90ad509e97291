import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, WsClient, type TestServer } from './helpers.js';
import type { ErrorFrame, ObservationFrame } from '../../server/net/protocol.js';

describe('limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      commandsPerSecond: 2, commandBurst: 3, floodDisconnectAfter: 25,
      maxConnectionsPerIp: 8, maxConnections: 8, loginTimeoutMs: 300, idleTimeoutMs: 0,
    });
  });
  afterAll(() => server.stop());

  it('refuses commands over the rate with rate_limited, disconnects a flood, and serves others meanwhile', async () => {
    const flooder = await WsClient.open(server.wsUrl);
    await flooder.guest('kitty');
    const calm = await WsClient.open(server.wsUrl);
    await calm.guest('orc');
    for (let i = 0; i < 10; i++) flooder.send({ type: 'command', text: 'look', id: i });
    const answers: (ObservationFrame | ErrorFrame)[] = [];
    for (let i = 0; i < 10; i++) answers.push(await flooder.next((f) => (f.type === 'observation' && f.kind === 'result') || f.type === 'error'));
    const refused = answers.filter((a) => a.type === 'error');
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(refused.every((a) => a.type === 'error' && a.code === 'rate_limited')).toBe(true);
    expect(answers.filter((a) => a.type === 'observation').length).toBeGreaterThanOrEqual(3);
    flooder.send({ type: 'ping', id: 'alive' });
    await flooder.nextOfType('pong');

    // The other player is served while the flood goes on.
    for (let i = 0; i < 40; i++) flooder.send({ type: 'command', text: 'look' });
    const { result } = await calm.command('look');
    expect(result.text).toContain('Walled Garden');
    expect(await flooder.nextOfType('bye')).toMatchObject({ reason: expect.stringContaining('Flooding') });
    await flooder.waitClosed();
    await calm.close();
  });

  it('refuses telnet commands over the rate with a message and keeps the connection', async () => {
    const t = await TelnetClient.open(server.telnetPort!);
    await t.guest('ghost');
    for (let i = 0; i < 10; i++) t.line('look');
    const out = await t.waitFor(/Too many commands[\s\S]*Tool Shed|Tool Shed[\s\S]*Too many commands/);
    expect(out).toContain('at most 2 a second');
    expect(t.closed).toBe(false);
    await t.close();
  });

  it('refuses connections over the limit, on both transports, with a clear message', async () => {
    const open: WsClient[] = [];
    for (let i = 0; i < 8; i++) {
      const c = await WsClient.open(server.wsUrl);
      await c.nextOfType('hello');
      open.push(c);
    }
    const extra = await WsClient.open(server.wsUrl);
    expect(await extra.nextOfType('error')).toMatchObject({ code: 'too_many_connections' });
    expect((await extra.waitClosed()).code).toBe(1013);
    const t = await TelnetClient.open(server.telnetPort!);
    await t.waitFor('try again later');
    await t.waitClosed();
    await Promise.all(open.map((c) => c.close()));
    // Slots are given back.
    const again = await WsClient.open(server.wsUrl);
    await again.guest('carter');
    await again.close();
  });

  it('closes connections that do not log in in time (half-open or silent sockets)', async () => {
    const silentWs = await WsClient.open(server.wsUrl);
    await silentWs.nextOfType('hello');
    const silentTcp = await TelnetClient.open(server.telnetPort!);
    expect(await silentWs.nextOfType('error')).toMatchObject({ code: 'login_timeout' });
    await silentWs.waitClosed();
    await silentTcp.waitFor('did not log in');
    await silentTcp.waitClosed();
  });

  it('survives a thousand connects at once and keeps serving', async () => {
    const player = await WsClient.open(server.wsUrl);
    await player.guest('gardener');
    const sockets: Socket[] = [];
    const closed: Promise<void>[] = [];
    for (let i = 0; i < 1000; i++) {
      const s = connect(server.telnetPort!, '127.0.0.1');
      s.on('error', () => {});
      s.resume();
      closed.push(new Promise((resolve) => s.once('close', () => resolve())));
      sockets.push(s);
    }
    const { result } = await player.command('say still standing');
    expect(result.text).toBe('You say, "still standing"');
    for (const s of sockets) s.destroy();
    await Promise.all(closed);
    const { result: again } = await player.command('look');
    expect(again.ok).toBe(true);
    await player.close();
  });
});

describe('idle timeout', () => {
  it('closes an idle player and frees the character', async () => {
    const server = await startTestServer({ idleTimeoutMs: 200 });
    try {
      const c = await WsClient.open(server.wsUrl);
      await c.guest('kitty');
      expect(await c.nextOfType('error')).toMatchObject({ code: 'idle_timeout' });
      await c.waitClosed();
      const d = await WsClient.open(server.wsUrl);
      await d.nextOfType('hello');
      d.send({ type: 'login', guest: true, character: 'kitty' });
      await d.nextOfType('welcome');
      d.send({ type: 'quit' });
      await d.waitClosed();
    } finally {
      await server.stop();
    }
  });
});

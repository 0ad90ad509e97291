/**
 * Issue 12, 4: connections of every kind (HTTP, websocket, telnet) count against one per-address cap,
 * and the login timeout is an absolute deadline, not reset by a byte now and then.
 */
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, WsClient, type TestServer } from '../server/helpers.js';
import { addressKey } from '../../server/net/limits.js';

function httpGet(port: number, path: string, from: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, localAddress: from, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += String(d)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

function openSocket(port: number, from: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', localAddress: from });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

describe('connections per address, of every kind', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ maxConnectionsPerIp: 3, loginTimeoutMs: 0 });
  });
  afterAll(() => server.stop());

  it('counts idle HTTP connections with websockets and telnet, refuses each kind with the reason, and spares other addresses', async () => {
    const from = '127.0.0.8';
    // Three idle HTTP connections (nothing sent) take the address's three places.
    const idle = await Promise.all([1, 2, 3].map(() => openSocket(server.httpPort, from)));
    await expect.poll(() => server.connectionsFrom(from)).toBe(3);

    const ws = await WsClient.open(server.wsUrl, from);
    expect(await ws.nextOfType('error')).toMatchObject({ code: 'too_many_connections', message: expect.stringContaining('limit is 3') });
    expect((await ws.waitClosed()).code).toBe(1013);

    const http = await httpGet(server.httpPort, '/healthz', from);
    expect(http.status).toBe(503);
    expect(JSON.parse(http.body)).toMatchObject({ error: 'too_many_connections', message: expect.stringContaining('limit is 3') });

    const t = await TelnetClient.open(server.telnetPort!, [], from);
    await t.waitFor('limit is 3');
    await t.waitClosed();

    // Another address plays meanwhile.
    const other = await WsClient.open(server.wsUrl, '127.0.0.9');
    await other.guest('kitty');
    await other.close();

    // Places are given back when the sockets close.
    for (const s of idle) s.destroy();
    await expect.poll(() => server.connectionsFrom(from)).toBe(0);
    expect((await httpGet(server.httpPort, '/healthz', from)).status).toBe(200);
  });
});

describe('login timeout', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ loginTimeoutMs: 1000 });
  });
  afterAll(() => server.stop());

  it('closes a websocket that pings every 0.3 s but never logs in', async () => {
    const c = await WsClient.open(server.wsUrl, '127.0.0.10');
    await c.nextOfType('hello');
    const keepAlive = setInterval(() => c.send({ type: 'ping' }), 300);
    try {
      expect(await c.nextOfType('error')).toMatchObject({ code: 'login_timeout' });
      await c.waitClosed();
    } finally {
      clearInterval(keepAlive);
    }
  });

  it('closes a telnet connection that sends an empty line every 0.3 s but never logs in', async () => {
    const t = await TelnetClient.open(server.telnetPort!, [], '127.0.0.10');
    await t.waitFor('> ');
    const keepAlive = setInterval(() => t.write('\r\n'), 300); // an empty line: input, but no login
    try {
      await t.waitFor('did not log in');
      await t.waitClosed();
    } finally {
      clearInterval(keepAlive);
    }
  });
});

describe('behind a reverse proxy', () => {
  it('counts and limits websockets by X-Forwarded-For from a trusted proxy only', async () => {
    const server = await startTestServer({ trustProxy: ['127.0.0.30'], maxConnectionsPerIp: 1 });
    try {
      const proxied = (client: string) => WsClient.open(server.wsUrl, '127.0.0.30', { 'x-forwarded-for': client });
      const a = await proxied('203.0.113.5');
      await a.guest('kitty');
      expect(server.portal.who().length).toBe(1);
      expect(server.portal.heldFrom('203.0.113.5')).toBe(1);
      // The same client again, through the proxy: over its limit of one.
      const again = await proxied('203.0.113.5');
      expect(await again.nextOfType('error')).toMatchObject({ code: 'too_many_connections' });
      // Another client through the same proxy is not.
      const b = await proxied('198.51.100.7');
      await b.guest('orc');
      // Not from the proxy: X-Forwarded-For is ignored (anyone can send it).
      const spoof = await WsClient.open(server.wsUrl, '127.0.0.31', { 'x-forwarded-for': '192.0.2.1' });
      await spoof.guest('gardener');
      expect(server.portal.heldFrom('127.0.0.31')).toBe(1);
      expect(server.portal.heldFrom('192.0.2.1')).toBe(0);
      await Promise.all([a.close(), b.close(), spoof.close()]);
      await expect.poll(() => server.connectionsFrom('203.0.113.5')).toBe(0);
    } finally {
      await server.stop();
    }
  });
});

describe('addresses', () => {
  it('counts IPv4 as it is and IPv6 by its /64, so a host cannot take a fresh address per connection', () => {
    expect(addressKey('203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(addressKey('::1')).toBe('::1');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:0:0:0:1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
  });
});

describe('plain HTTP requests per address', () => {
  it('answers a request flood from one address with 429 and the reason, and serves other addresses', async () => {
    const server = await startTestServer({ httpRequestsPerIp: 5, httpBurstPerIp: 10 });
    try {
      const statuses: number[] = [];
      let refusal = '';
      for (let i = 0; i < 30; i++) {
        const r = await httpGet(server.httpPort, '/api/who', '127.0.0.32');
        statuses.push(r.status);
        if (r.status === 429) refusal = r.body;
      }
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(10);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
      expect(JSON.parse(refusal)).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('at most 5 a second') });
      expect((await httpGet(server.httpPort, '/api/who', '127.0.0.33')).status).toBe(200);
      // Websockets from the flooding address are budgeted by their own messages, not refused.
      const c = await WsClient.open(server.wsUrl, '127.0.0.32');
      await c.guest('kitty');
      await c.close();
    } finally {
      await server.stop();
    }
  });
});

describe('new connections per address', () => {
  it('refuses connection churn beyond the rate with the reason, and serves other addresses', async () => {
    const server = await startTestServer({ connectsPerSecondPerIp: 0.2, connectBurstPerIp: 5 });
    try {
      const clients = await Promise.all(Array.from({ length: 10 }, () => TelnetClient.open(server.telnetPort!, [], '127.0.0.34')));
      const refused = await Promise.all(clients.map((t) => t.waitFor(/Too many new connections|> /).then((s) => s.includes('Too many new connections'))));
      expect(refused.filter(Boolean).length).toBeGreaterThanOrEqual(4);
      expect(refused.filter((r) => !r).length).toBeGreaterThanOrEqual(5);
      const ws = await WsClient.open(server.wsUrl, '127.0.0.34');
      expect(await ws.nextOfType('error')).toMatchObject({ code: 'too_many_connections', message: expect.stringContaining('new connections') });
      const other = await WsClient.open(server.wsUrl, '127.0.0.35');
      await other.guest('kitty');
      await other.close();
      for (const t of clients) t.socket.destroy();
    } finally {
      await server.stop();
    }
  });
});

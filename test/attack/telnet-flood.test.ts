/**
 * Issue 12, 5: telnet floods. Unclosed or oversized subnegotiations are dropped at a small cap; a
 * connection sending bytes far over its rate is disconnected with the reason; protocol errors are
 * logged once per kind and connection, so a flood cannot write megabytes of log.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, type TestServer } from '../server/helpers.js';

const IAC = 255, SB = 250, SE = 240, GMCP = 201;

describe('telnet flood', () => {
  let server: TestServer;
  const logs: Record<string, unknown>[] = [];
  let logBytes = 0;
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        logBytes += chunk.length;
        for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const logger = { level: 'info', stream };
    server = await startTestServer({ logger, telnetBytesPerSecond: 20_000, telnetByteBurst: 20_000, maxSubnegotiationBytes: 4096 });
  });
  afterAll(() => server.stop());

  it('drops oversized and broken subnegotiations, logs each kind once, and keeps the connection', async () => {
    const t = await TelnetClient.open(server.telnetPort!, [], '127.0.0.11');
    await t.waitFor('> ');
    const before = logBytes;
    // 2,000 subnegotiations broken by IAC NOP instead of IAC SE, then one that never ends (8 KB, over the 4 KB cap)...
    const broken = Buffer.concat(Array.from({ length: 2000 }, () => Buffer.of(IAC, SB, GMCP, 0x61, 0x62, IAC, 241)));
    t.write(broken);
    t.write(Buffer.concat([Buffer.of(IAC, SB, GMCP), Buffer.alloc(8192, 0x78)]));
    // ...which its IAC SE finally closes; then the session goes on.
    t.write(Buffer.of(IAC, SE));
    t.line('guest kitty');
    await t.waitFor('You are now the kitty');
    const telnetLogs = logs.filter((l) => typeof l.msg === 'string' && (l.msg as string).startsWith('telnet'));
    expect(telnetLogs.filter((l) => l.code === 'bad_subnegotiation')).toHaveLength(1);
    expect(telnetLogs.filter((l) => l.code === 'subnegotiation_too_long')).toHaveLength(1);
    expect(logBytes - before).toBeLessThan(5000);
    await t.close();
    // On close, one line with the counts.
    await expect.poll(() => logs.find((l) => l.msg === 'telnet protocol errors of a closed connection')).toMatchObject({ errors: { bad_subnegotiation: 2000 } });
  });

  it('disconnects a connection that floods bytes far over its rate, with the reason, and serves others', async () => {
    const flood = await TelnetClient.open(server.telnetPort!, [], '127.0.0.12');
    await flood.waitFor('> ');
    const line = Buffer.from(`${'x'.repeat(1000)}\r\n`);
    for (let i = 0; i < 200 && !flood.closed; i++) flood.write(line); // 200 KB at once: ten times the burst
    await flood.waitFor('Flooding: more than 20000 bytes a second');
    await flood.waitClosed();
    const calm = await TelnetClient.open(server.telnetPort!, [], '127.0.0.13');
    await calm.guest('orc');
    await calm.close();
  });
});

/**
 * Issue 12, 6: password guessing and mass registration. Failed logins back off per account and per
 * address, whatever the connection (reconnecting does not reset them); registrations per address are
 * limited per hour. Each refusal says why and for how long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, WsClient, type TestServer } from '../server/helpers.js';
import type { ErrorFrame } from '../../server/net/protocol.js';

/** One login attempt on a fresh connection (as a guesser that reconnects would); the answer's error code, or 'ok'. */
async function attempt(server: TestServer, from: string, name: string, password: string): Promise<ErrorFrame | 'ok'> {
  const c = await WsClient.open(server.wsUrl, from);
  try {
    await c.nextOfType('hello');
    c.send({ type: 'login', name, password, character: 'kitty' });
    const f = await c.next((x) => x.type === 'error' || x.type === 'welcome');
    return f.type === 'welcome' ? 'ok' : (f as ErrorFrame);
  } finally {
    c.ws.terminate();
  }
}

describe('failed-login backoff', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ loginFailuresPerAccount: 3, loginFailuresPerIp: 6, loginBackoffMs: 2500, loginBackoffMaxMs: 60_000 });
    await server.accounts.register('alice', 'alice password');
    await server.accounts.register('bob', 'bob password');
  });
  afterAll(() => server.stop());

  it('makes a guesser that reconnects wait, per account, even with the right password, then lets the owner in', async () => {
    for (let i = 0; i < 3; i++) expect(await attempt(server, '127.0.0.20', 'alice', `guess ${i}`)).toMatchObject({ code: 'auth_failed' });
    // The fourth try, on yet another connection and from another address: refused without checking.
    const throttled = await attempt(server, '127.0.0.21', 'alice', 'alice password');
    expect(throttled).toMatchObject({ code: 'login_throttled', message: expect.stringMatching(/Too many failed logins for this account; try again in \d+ seconds?/) });
    // Over telnet too.
    const t = await TelnetClient.open(server.telnetPort!, [], '127.0.0.21');
    await t.waitFor('> ');
    t.line('login alice');
    await t.waitFor('Password: ');
    t.line('alice password');
    await t.waitFor('Too many failed logins for this account');
    await t.close();
    // Other accounts are not affected.
    expect(await attempt(server, '127.0.0.21', 'bob', 'bob password')).toBe('ok');
    // Once the wait is over, the right password works (and clears the account's count).
    await new Promise((r) => setTimeout(r, 2600));
    expect(await attempt(server, '127.0.0.22', 'alice', 'alice password')).toBe('ok');
    expect(await attempt(server, '127.0.0.22', 'alice', 'wrong')).toMatchObject({ code: 'auth_failed' });
  });

  it('does not let parallel guesses on many connections outrun the backoff', async () => {
    await server.accounts.register('carol', 'carol password');
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(server, `127.0.0.${40 + i}`, 'carol', `parallel guess ${i}`)));
    const checked = answers.filter((a) => a !== 'ok' && a.code === 'auth_failed').length;
    const refused = answers.filter((a) => a !== 'ok' && a.code === 'login_throttled').length;
    // Without a bound, all 12 would be checked at once before the first failure counted.
    expect(checked).toBeLessThanOrEqual(3);
    expect(checked + refused).toBe(12);
  });

  it('makes one address wait after failures spread over many names', async () => {
    const names = ['ivan', 'dave', 'erin', 'frank', 'grace', 'heidi'];
    for (const name of names) expect(await attempt(server, '127.0.0.23', name, 'whatever')).toMatchObject({ code: 'auth_failed' });
    expect(await attempt(server, '127.0.0.23', 'bob', 'bob password')).toMatchObject({ code: 'login_throttled', message: expect.stringContaining('from your address') });
    expect(await attempt(server, '127.0.0.24', 'bob', 'bob password')).toBe('ok');
  });
});

describe('registrations per address', () => {
  it('allows a few accounts an hour from one address and refuses more with the reason', async () => {
    const server = await startTestServer({ registrationsPerIpPerHour: 2 });
    try {
      const register = async (from: string, name: string) => {
        const c = await WsClient.open(server.wsUrl, from);
        await c.nextOfType('hello');
        c.send({ type: 'register', name, password: 'a fine password' });
        const f = await c.next((x) => x.type === 'error' || x.type === 'characters');
        c.ws.terminate();
        return f;
      };
      expect((await register('127.0.0.25', 'one')).type).toBe('characters');
      expect((await register('127.0.0.25', 'two')).type).toBe('characters');
      expect(await register('127.0.0.25', 'three')).toMatchObject({ code: 'registration_limited', message: expect.stringContaining('At most 2 accounts may be registered from one address an hour') });
      expect(server.accounts.get('three')).toBeNull();
      expect((await register('127.0.0.26', 'three')).type).toBe('characters');
    } finally {
      await server.stop();
    }
  });
});

/**
 * Issue 12, 8: account management. A player changes their password (other devices' tokens stop working)
 * or deletes their account, over websocket or telnet, always after giving the current password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, WsClient, type TestServer } from '../server/helpers.js';

async function login(server: TestServer, name: string, password: string) {
  const c = await WsClient.open(server.wsUrl);
  await c.nextOfType('hello');
  c.send({ type: 'login', name, password, character: 'kitty' });
  const f = await c.next((x) => x.type === 'welcome' || x.type === 'error');
  return { c, f };
}

describe('account management', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ linkdeadMs: 0 });
  });
  afterAll(() => server.stop());

  it('changes the password over websocket, revoking the tokens of other devices, and deletes the account', async () => {
    const c = await WsClient.open(server.wsUrl);
    await c.nextOfType('hello');
    c.send({ type: 'password', old: 'x', new: 'yyyyyyyy', id: 0 });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'not_logged_in' });
    c.send({ type: 'register', name: 'alice', password: 'first password', character: 'kitty' });
    const { token } = await c.nextOfType('welcome');
    await c.nextOfType('state');
    const alice = server.accounts.get('alice')!;
    const otherDevice = server.accounts.issueToken(alice.id, 'kitty', 60_000).token;

    c.send({ type: 'password', old: 'wrong password', new: 'second password', id: 1 });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'auth_failed', id: 1 });
    c.send({ type: 'password', old: 'first password', new: 'short', id: 2 });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'bad_name', id: 2, message: expect.stringContaining('at least 6') });
    c.send({ type: 'password', old: 'first password', new: 'second password', id: 3 });
    expect(await c.nextOfType('account')).toMatchObject({ change: 'password', id: 3, message: expect.stringContaining('password is changed') });
    expect(server.accounts.resolveToken(otherDevice)).toBeNull();
    expect(server.accounts.resolveToken(token)).not.toBeNull();
    expect(await server.accounts.verify('alice', 'first password')).toBeNull();
    expect(await server.accounts.verify('alice', 'second password')).toMatchObject({ name: 'alice' });
    // Passwords are never commands (commands are logged).
    expect((await c.command('@password')).result.text).toContain('frame');

    c.send({ type: 'delete_account', password: 'first password', id: 4 });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'auth_failed', id: 4 });
    c.send({ type: 'delete_account', password: 'second password', id: 5 });
    expect(await c.nextOfType('account')).toMatchObject({ change: 'deleted', id: 5 });
    await c.nextOfType('bye');
    await c.waitClosed();
    expect(server.accounts.get('alice')).toBeNull();
    expect(server.accounts.resolveToken(token)).toBeNull();
    expect((await login(server, 'alice', 'second password')).f).toMatchObject({ code: 'auth_failed' });
    // kitty is free again, and the name can be registered anew.
    const again = await WsClient.open(server.wsUrl);
    await again.nextOfType('hello');
    again.send({ type: 'register', name: 'alice', password: 'third password', character: 'kitty' });
    await again.nextOfType('welcome');
    await again.close();
  });

  it('changes the password and deletes the account over telnet, with echo off', async () => {
    await server.accounts.register('bob', 'bob password');
    const t = await TelnetClient.open(server.telnetPort!);
    await t.waitFor('> ');
    t.line('login bob');
    await t.waitFor('Password: ');
    t.line('bob password');
    await t.waitFor(/Choose a character|You are now/);
    if (!/You are now/.test(t.text)) {
      t.line('orc');
      await t.waitFor('You are now');
    }
    const before = t.commands.length;
    t.line('@password');
    await t.waitFor('Current password: ');
    expect(t.commands.slice(before)).toContainEqual([251, 1]); // IAC WILL ECHO: the client stops echoing
    t.line('bob password');
    await t.waitFor('New password: ');
    t.line('bob new password');
    await t.waitFor('Repeat the new password: ');
    t.line('bob new password');
    await t.waitFor('Your password is changed');
    expect(t.commands.slice(before)).toContainEqual([252, 1]); // IAC WONT ECHO: echo back on
    expect(await server.accounts.verify('bob', 'bob new password')).toMatchObject({ name: 'bob' });
    t.line('@delete-account');
    await t.waitFor('delete the account for good');
    t.line('bob new password');
    await t.waitFor('The account bob is deleted');
    await t.waitClosed();
    expect(server.accounts.get('bob')).toBeNull();
  });
});

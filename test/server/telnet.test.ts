import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TelnetClient, WsClient, type TestServer } from './helpers.js';

const IAC = 255;
const WILL = 251;
const WONT = 252;
const DO = 253;
const ECHO = 1;
const GMCP = 201;

describe('telnet play', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());
  const port = () => server.telnetPort!;

  it('negotiates, shows the login menu, lists characters by number, and plays', async () => {
    const t = await TelnetClient.open(port());
    const menu = await t.waitFor('> ');
    expect(menu).toContain('Welcome to Little world');
    expect(menu).toMatch(/guest[\s\S]*login NAME[\s\S]*register NAME/);
    // The server opened option negotiation (a dumb client that refuses everything still plays).
    expect(t.commands.some(([verb]) => verb === DO || verb === WILL)).toBe(true);
    t.line('guest');
    const list = await t.waitFor('Choose a character');
    const m = /(\d+)\. kitty/.exec(list);
    expect(m).not.toBeNull();
    t.line(m![1]!);
    const welcome = await t.waitFor('> ');
    expect(welcome).toContain('You are now the kitty.');
    expect(welcome).toContain('Walled Garden');
    expect(welcome).toMatch(/resume [\w-]{21}/);
    t.line('get shovel');
    expect(await t.waitFor('> ')).toContain('You get the shovel.');
    t.line('drop shovel');
    await t.waitFor('You drop the shovel.');
    t.line('quit');
    await t.waitClosed();
  });

  it('lets a telnet player and a websocket player in one room see each other', async () => {
    const t = await TelnetClient.open(port());
    await t.guest('gardener');
    const w = await WsClient.open(server.wsUrl);
    const first = await w.guest('orc');
    expect(first.people).toContainEqual({ id: 'gardener', name: 'gardener', player: true, driver: 'human' });

    t.line('say hello, orc');
    expect((await w.event('says')).text).toBe('The gardener says, "hello, orc"');
    await w.command('say hello, gardener');
    await t.waitFor('The orc says, "hello, gardener"');

    await w.command('get shovel');
    await t.waitFor('The orc gets a shovel.');
    t.line('give apple to orc');
    const got = await w.event('apple');
    expect(got).toMatchObject({ text: 'The gardener gives you an apple.', event: { type: 'give', actor: 'gardener', target: 'orc' } });
    // The event is followed by the orc's new state.
    const state = await w.nextOfType('state');
    expect(state.character.carrying.map((o) => o.id)).toContain('apple');

    await w.command('wave at gardener');
    await t.waitFor('The orc waves at you.');
    t.line('smile');
    expect((await w.event('smiles')).text).toBe('The gardener smiles.');

    await w.command('drop shovel');
    t.line('quit');
    await t.waitClosed();
    await w.close();
  });

  it('turns echo off for passwords and never sends them back', async () => {
    const t = await TelnetClient.open(port());
    await t.waitFor('> ');
    t.line('register bob');
    await t.waitFor('Password: ');
    const willEcho = t.commands.findIndex(([v, o]) => v === WILL && o === ECHO);
    expect(willEcho).toBeGreaterThanOrEqual(0);
    t.line('sekrit-pass');
    await t.waitFor('Repeat the password: ');
    t.line('sekrit-pass');
    await t.waitFor('Choose a character');
    expect(t.commands.findIndex(([v, o]) => v === WONT && o === ECHO)).toBeGreaterThan(willEcho);
    t.line('ghost');
    await t.waitFor('You are now the ghost.');
    t.line('quit');
    await t.waitClosed();
    expect(t.text).not.toContain('sekrit-pass');

    const again = await TelnetClient.open(port());
    await again.waitFor('> ');
    again.line('login bob');
    await again.waitFor('Password: ');
    again.line('wrong-pass');
    await again.waitFor('Wrong account name or password.');
    again.line('login bob');
    await again.waitFor('Password: ');
    again.line('sekrit-pass');
    // bob's last character was the ghost: logging in takes it up again.
    await again.waitFor('You are now the ghost.');
    expect(again.text).not.toContain('pass\r\n');
    again.line('quit');
    await again.waitClosed();
  });

  it('sends GMCP Room.Info and Char.Status to clients that agree to GMCP', async () => {
    const t = await TelnetClient.open(port(), [GMCP]);
    await t.guest('carter');
    expect(await t.waitGmcp('Room.Info')).toMatchObject({ num: 'road', name: 'Muddy Road', exits: { 'the back door': 'shed' } });
    expect(await t.waitGmcp('Char.Status')).toMatchObject({ name: 'carter', room: 'Muddy Road' });
    t.line('go back door');
    await t.waitFor('Tool Shed');
    expect(await t.waitGmcp('Room.Info', (d) => (d as { num: string }).num === 'shed')).toMatchObject({ name: 'Tool Shed' });
    expect(await t.waitGmcp('Char.Actions', (d) => (d as { valid: string[] }).valid.includes('get rake'))).toBeTruthy();
    t.line('go back door');
    await t.waitFor('Muddy Road');
    t.line('quit');
    await t.waitClosed();
  });

  it('survives garbage bytes and a 100 KB line, and keeps serving', async () => {
    const t = await TelnetClient.open(port());
    await t.guest('kitty');
    // Random bytes (stray IAC sequences, NULs, invalid UTF-8) on one line, then a clean line.
    const garbage = [...randomBytes(3000)].filter((b) => b !== 10 && b !== 13);
    t.write(Buffer.concat([Buffer.from(garbage), Buffer.of(IAC, 250, 24), randomBytes(64), Buffer.of(IAC, 240), Buffer.from('\r\n')]));
    t.line('look');
    await t.waitFor('Walled Garden');
    // 100 KB: far over --max-line, within the byte budget (a 1 MB blast is a flood: test/attack/telnet-flood.test.ts).
    t.write(Buffer.alloc(100 * 1024, 'a'));
    t.line('');
    await t.waitFor('too long');
    t.line('inventory');
    await t.waitFor('You are carrying nothing.');
    const other = await WsClient.open(server.wsUrl);
    await other.guest('orc');
    await other.command('look');
    t.line('quit');
    await t.waitClosed();
    await other.close();
  });

  it('answers a plain MSSP-REQUEST with the server\'s figures', async () => {
    const t = await TelnetClient.open(port());
    await t.waitFor('> ');
    t.line('MSSP-REQUEST');
    const text = await t.waitFor('PLAYERS');
    expect(text).toContain('Little world');
    t.line('quit');
    await t.waitClosed();
  });
});

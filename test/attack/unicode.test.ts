/**
 * Issue 12, 7: bidi overrides, invisible format characters and control characters never reach other
 * players, whatever the path: websocket, telnet, a server command's text, or Host.submit (any driver).
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin, startTestServer, TelnetClient, WsClient, type TestServer } from '../server/helpers.js';
import { cleanText } from '../../server/net/clean-text.js';

const NASTY = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u2060', '\ufeff', '\u061c', '\u0007', '\u001b', '\u0085', '\ud800'];
const hasNasty = (s: string) => NASTY.some((c) => s.includes(c));

describe('cleanText', () => {
  it('removes every bidi, invisible and control character and keeps the rest', () => {
    expect(cleanText(`a${NASTY.join('')}b`)).toBe('ab');
    expect(cleanText('hello \u202eevil\u202c world')).toBe('hello evil world');
    expect(cleanText('tab\there\u2028next')).toBe('tab here next');
    expect(cleanText('\u001b[31mred\u001b[0m')).toBe('red');
    expect(cleanText('é 漢字 👍🏽 ¿qué?')).toBe('é 漢字 👍🏽 ¿qué?');
    expect(cleanText('plain ascii ~!')).toBe('plain ascii ~!');
  });
});

describe('speech on every path', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await makeAdmin(server, 'root', 'root password');
  });
  afterAll(() => server.stop());

  it('strips them from websocket and telnet speech, server commands and Host.submit, and from the event log', async () => {
    const ws = await WsClient.open(server.wsUrl);
    await ws.guest('kitty');
    const t = await TelnetClient.open(server.telnetPort!);
    await t.guest('gardener');

    // Websocket speech: the listener (telnet) and the speaker see clean text.
    const { result } = await ws.command('say pay \u202e0001\u202c to \u200bmallory\u2066!\u2069 \u001b[5mnow');
    expect(result.text).toBe('You say, "pay 0001 to mallory! now"');
    expect(await t.waitFor('mallory! now')).not.toSatisfy(hasNasty);

    // Telnet speech (zero-width and other format characters, which the telnet layer alone did not remove).
    t.write(Buffer.from('say me\u200dtoo\u2060\ufeff\u061c\r\n', 'utf8'));
    const heard = await ws.event('says');
    expect(heard.text).toBe('The gardener says, "metoo"');

    // Host.submit, the path of model and script drivers.
    const r = await server.host.submit('kitty', 'say \u2067driven\u2069\u200f');
    expect(r.text).toBe('You say, "driven"');

    // A server command's text: an admin's @kick reason is shown to the kicked player.
    const admin = await WsClient.open(server.wsUrl);
    await admin.nextOfType('hello');
    admin.send({ type: 'login', name: 'root', password: 'root password', character: 'orc' });
    await admin.nextOfType('state');
    await admin.command('@kick gardener be \u202enice\u202c');
    expect(await t.waitFor('be nice')).not.toSatisfy(hasNasty);

    const db = new Database(server.db, { readonly: true });
    const inputs = (db.prepare("SELECT input, text FROM events WHERE kind = 'command'").all() as { input: string; text: string }[]);
    db.close();
    expect(inputs.length).toBeGreaterThanOrEqual(3);
    for (const row of inputs) expect(hasNasty(row.input) || hasNasty(row.text)).toBe(false);
    await Promise.all([ws.close(), admin.close()]);
  });
});

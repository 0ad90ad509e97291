/**
 * Replays what real MUD clients send (test/fixtures/telnet/*.json: TinTin++ and telnet(1) captured from the real
 * programs, Mudlet and MUSHclient reconstructed from their source) against a TelnetConnection on a socket, and
 * checks the connection answers them correctly and turns them into exactly the lines that were typed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TelnetConnection } from '../../server/net/telnet/connection.js';
import { RawClient, loadFixture, once, startServer, type TestServer, EOR, GA } from './helpers.js';

const FIXTURES = ['tintin.json', 'telnet.json', 'mudlet.json', 'mushclient.json'];
const TTYPE = 24;

let server: TestServer | null = null;
let client: RawClient | null = null;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = null;
  server = null;
});

/** The recorder's session: a name, a password with echo off, then commands echoed back. */
function scripted(conn: TelnetConnection, lines: string[]): void {
  conn.on('line', (text) => {
    lines.push(text);
    if (lines.length === 1) {
      conn.setEcho(true);
      conn.prompt('Password: ');
    } else if (lines.length === 2) {
      conn.setEcho(false);
      conn.send('Welcome.');
      conn.prompt('> ');
    } else {
      conn.send(`You typed: ${text}`);
      conn.prompt('> ');
    }
  });
  conn.send('lightmud telnet recorder');
  conn.prompt('What is your name? ');
}

async function replay(name: string, byteByByte: boolean) {
  const fx = loadFixture(name);
  const lines: string[] = [];
  server = await startServer({ mssp: () => ({ NAME: 'lightmud recorder', PLAYERS: '0' }) });
  client = await RawClient.connect(server.port);
  const conn = await server.nextConnection();
  scripted(conn, lines);
  await client.waitFor(() => client!.negotiations().length >= 8, 'opening negotiation');
  const pieces = fx.chunks.map((c) => Buffer.from(c.hex, 'hex'));
  for (const piece of byteByByte ? pieces.flatMap((p) => [...p].map((b) => Buffer.of(b))) : pieces) {
    client.write(piece);
    await new Promise((r) => setImmediate(r));
  }
  while (lines.length < fx.expect.lines.length) await once(conn, 'line');
  conn.send('end of replay');
  await client.waitFor(() => client!.text().includes('end of replay'), 'end of replay');
  return { fx, conn, lines, client };
}

describe.each(FIXTURES)('replaying %s', (name) => {
  for (const byteByByte of [false, true]) {
    it(byteByByte ? 'gives the same result byte by byte' : 'negotiates and reads exactly the typed lines', async () => {
      const { fx, conn, lines, client } = await replay(name, byteByByte);
      const e = fx.expect;
      expect(lines).toEqual(e.lines);
      expect(conn.terminalType).toBe(e.terminalTypes[0] ?? null);
      expect(conn.terminalTypes).toEqual(e.terminalTypes);
      expect(conn.mtts).toBe(e.mtts);
      expect({ width: conn.width, height: conn.height }).toEqual({ width: e.width, height: e.height });
      expect(conn.supportsGmcp).toBe(e.supportsGmcp);
      expect(conn.supportsMsdp).toBe(e.supportsMsdp);
      expect(conn.usesEor).toBe(e.usesEor);
      expect(conn.compressing).toBe(e.compressing);
      expect(client.compressed).toBe(e.compressing);
      expect(conn.charset).toBe(e.charset);
      expect(conn.clientName).toBe(e.clientName);
      expect([...conn.gmcpSupports]).toEqual(e.gmcpSupports);

      // The server sent its opening offers and the two ECHO changes, and answered none of the client's answers.
      expect(client.negotiations()).toEqual(['DO 24', 'DO 31', 'DO 42', 'WILL 25', 'WILL 201', 'WILL 69', 'WILL 70', 'WILL 86', 'WILL 1', 'WONT 1']);
      // It asked for the terminal type until the client's list repeated.
      expect(client.subs(TTYPE)).toHaveLength(e.ttypeRequests);
      for (const s of client.subs(TTYPE)) expect(s).toEqual(Buffer.of(1));

      // Output arrived readable (inflated where compressed), prompts marked as agreed.
      const text = client.text();
      expect(text).toContain('What is your name? ');
      expect(text).toContain('Password: \r\nWelcome.\r\n> ');
      expect(text).toContain(`You typed: ${e.lines[2]}\r\n> `);
      // Every prompt is marked: GA before EOR is agreed (the first prompt goes out with the offers), EOR after.
      const marks = client.commands().filter((c) => c === EOR || c === GA);
      expect(marks.length).toBe(e.lines.length + 1);
      expect(marks.slice(1).every((c) => c === (e.usesEor ? EOR : GA))).toBe(true);
    });
  }
});

import { afterEach, describe, expect, it } from 'vitest';
import type { TelnetConnection } from '../../server/net/telnet/connection.js';
import type { TelnetError } from '../../server/net/telnet/connection.js';
import { decodeMssp, decodeMsdp, encodeMsdp } from '../../server/net/telnet/encode.js';
import { RawClient, bytes, once, sb, startServer, type TestServer, IAC, WILL, WONT, DO, DONT, GA, EOR, SB, SE } from './helpers.js';

const TTYPE = 24;
const NAWS = 31;
const ECHO = 1;
const SGA = 3;
const EOR_OPT = 25;
const CHARSET = 42;
const MSDP = 69;
const MSSP = 70;
const MCCP2 = 86;
const GMCP = 201;

let server: TestServer | null = null;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  server = null;
});

async function setup(
  opts: Parameters<typeof startServer>[0] = {},
): Promise<{ conn: TelnetConnection; client: RawClient; lines: string[]; errors: TelnetError[] }> {
  const lines: string[] = [];
  const errors: TelnetError[] = [];
  server = await startServer(opts, (conn) => {
    conn.on('line', (l) => lines.push(l));
    conn.on('error', (e) => errors.push(e));
  });
  const client = await RawClient.connect(server.port);
  clients.push(client);
  const conn = await server.nextConnection();
  return { conn, client, lines, errors };
}

/** Wait until the server has emitted `n` lines. */
async function linesReached(conn: TelnetConnection, lines: string[], n: number): Promise<void> {
  while (lines.length < n) await once(conn, 'line');
}

describe('TelnetConnection over a socket', () => {
  it('opens with its offers and answers nothing it was not asked', async () => {
    const { conn, client, lines } = await setup({ mssp: () => ({ NAME: 'lightmud' }) });
    await client.waitFor(() => client.negotiations().length >= 8, 'opening offers');
    expect(client.negotiations()).toEqual([
      `DO ${TTYPE}`,
      `DO ${NAWS}`,
      `DO ${CHARSET}`,
      `WILL ${EOR_OPT}`,
      `WILL ${GMCP}`,
      `WILL ${MSDP}`,
      `WILL ${MSSP}`,
      `WILL ${MCCP2}`,
    ]);
    // Refusing everything produces no answers to the answers.
    client.write(bytes(IAC, WONT, TTYPE, IAC, WONT, NAWS, IAC, WONT, CHARSET, IAC, DONT, EOR_OPT, IAC, DONT, GMCP));
    client.write(bytes(IAC, DONT, MSDP, IAC, DONT, MSSP, IAC, DONT, MCCP2, 'ping\r\n'));
    await linesReached(conn, lines, 1);
    // The server answers the line after reading every refusal before it; nothing else may come first.
    conn.send('pong');
    await client.waitFor(() => client.text().includes('pong'), 'pong');
    expect(client.negotiations()).toHaveLength(8);
    expect(conn.supportsGmcp).toBe(false);
    expect(conn.compressing).toBe(false);
  });

  it('wraps output to the NAWS width, and follows a resize', async () => {
    const { conn, client } = await setup();
    client.write(bytes(IAC, WILL, NAWS, sb(NAWS, 0, 30, 0, 10)));
    const [size] = await once<[{ width: number; height: number }]>(conn, 'naws');
    expect(size).toEqual({ width: 30, height: 10 });
    expect(conn.width).toBe(30);
    const text = 'You are standing in a dusty tavern. A fire crackles in the hearth and an old dog sleeps beside it.';
    conn.send(text);
    await client.waitFor(() => client.text().includes('beside it.'), 'wrapped text');
    const lines = client.text().split('\r\n').filter((l) => l.length > 0);
    expect(lines.every((l) => l.length <= 30)).toBe(true);
    expect(lines.join(' ')).toBe(text);

    // A width of 255 arrives with its IAC byte doubled inside the subnegotiation.
    client.write(sb(NAWS, 0, IAC, IAC, 0, 40));
    const [wide] = await once<[{ width: number; height: number }]>(conn, 'naws');
    expect(wide).toEqual({ width: 255, height: 40 });
  });

  it('cycles TTYPE until the answer repeats', async () => {
    const { conn, client } = await setup();
    const ttype = once<[string]>(conn, 'ttype');
    client.write(bytes(IAC, WILL, TTYPE));
    await client.waitFor(() => client.subs(TTYPE).length === 1, 'TTYPE SEND');
    expect(client.subs(TTYPE)[0]).toEqual(Buffer.of(1));
    client.write(sb(TTYPE, 0, 'MUDLET'));
    expect((await ttype)[0]).toBe('MUDLET');
    await client.waitFor(() => client.subs(TTYPE).length === 2, 'second SEND');
    client.write(sb(TTYPE, 0, 'ANSI-256COLOR'));
    await client.waitFor(() => client.subs(TTYPE).length === 3, 'third SEND');
    client.write(sb(TTYPE, 0, 'MTTS 137'));
    await client.waitFor(() => client.subs(TTYPE).length === 4, 'fourth SEND');
    client.write(sb(TTYPE, 0, 'MTTS 137'));
    client.write('done\r\n');
    await once(conn, 'line');
    expect(client.subs(TTYPE)).toHaveLength(4);
    expect(conn.terminalType).toBe('MUDLET');
    expect(conn.terminalTypes).toEqual(['MUDLET', 'ANSI-256COLOR', 'MTTS 137']);
    expect(conn.mtts).toBe(137);
  });

  it('turns client echo off for a password and back on, never answering the answers', async () => {
    const { conn, client, lines } = await setup();
    conn.setEcho(true);
    conn.prompt('Password: ');
    await client.waitFor(() => client.negotiations().includes(`WILL ${ECHO}`), 'WILL ECHO');
    expect(conn.echoHidden).toBe(true);
    client.write(bytes(IAC, DO, ECHO, 'secret\r\n'));
    await linesReached(conn, lines, 1);
    expect(lines).toEqual(['secret']);
    conn.setEcho(false);
    conn.send('Welcome.');
    await client.waitFor(() => client.negotiations().includes(`WONT ${ECHO}`), 'WONT ECHO');
    client.write(bytes(IAC, DONT, ECHO, 'look\r\n'));
    await linesReached(conn, lines, 2);
    const echoes = client.negotiations().filter((n) => n.endsWith(` ${ECHO}`));
    expect(echoes).toEqual([`WILL ${ECHO}`, `WONT ${ECHO}`]);
    expect(conn.echoHidden).toBe(false);
    // The client did not echo the Enter key, so the message starts on a fresh line.
    expect(client.text()).toContain('Password: \r\nWelcome.\r\n');
    conn.setEcho(true);
    conn.prompt('Password again: ');
    client.write(bytes(IAC, DO, ECHO, 'secret\r\n'));
    await linesReached(conn, lines, 3);
    conn.setEcho(false);
    conn.send(''); // only ends the password line
    conn.send('Thanks.');
    await client.waitFor(() => client.text().includes('Thanks.'), 'Thanks');
    expect(client.text()).toContain('Password again: \r\nThanks.\r\n');
    // A client asking us to echo for it is refused, once.
    client.write(bytes(IAC, DONT, ECHO, IAC, DO, ECHO, IAC, DO, ECHO, 'x\r\n'));
    await linesReached(conn, lines, 4);
    conn.send('done');
    await client.waitFor(() => client.text().includes('done'), 'done');
    expect(client.negotiations().filter((n) => n === `WONT ${ECHO}`)).toHaveLength(3);
  });

  it('exchanges GMCP: Core.Hello in, Room.Info out, bad JSON reported without harm', async () => {
    const { conn, client, lines, errors } = await setup();
    expect(conn.sendGmcp('Room.Info', { num: 1 })).toBe(false); // not agreed yet
    const gmcp: Array<[string, unknown]> = [];
    conn.on('gmcp', (pkg, data) => gmcp.push([pkg, data]));
    client.write(
      bytes(
        IAC, DO, GMCP,
        sb(GMCP, 'Core.Hello {"client":"Mudlet","version":"4.19.1"}'),
        sb(GMCP, 'Core.Supports.Set ["Char 1", "Room 1"]'),
        sb(GMCP, 'Char.Vitals {oops'),
        sb(GMCP, 'Core.Ping'),
        'look\r\n',
      ),
    );
    await linesReached(conn, lines, 1);
    expect(conn.supportsGmcp).toBe(true);
    expect(conn.clientName).toBe('Mudlet');
    expect([...conn.gmcpSupports]).toEqual(['char', 'room']);
    expect(gmcp.map(([p]) => p)).toEqual(['Core.Hello', 'Core.Supports.Set', 'Core.Ping']);
    expect(errors.map((e) => e.code)).toEqual(['bad_gmcp']);
    expect(lines).toEqual(['look']);
    const room = { num: 7, name: 'The Dusty Tavern', exits: { n: 8 }, note: 'ÿ and \u00ff' };
    expect(conn.sendGmcp('Room.Info', room)).toBe(true);
    await client.waitFor(() => client.subs(GMCP).length >= 2, 'GMCP messages');
    const msgs = client.subs(GMCP).map((b) => b.toString('utf8'));
    expect(msgs[0]).toBe('Core.Ping'); // answer to the client's ping
    expect(msgs[1]).toBe(`Room.Info ${JSON.stringify(room)}`);
  });

  it('answers MSSP with the server status, as telnet and as plain text', async () => {
    let players = 3;
    const { conn, client, lines } = await setup({
      mssp: () => ({ NAME: 'lightmud', PLAYERS: String(players), PORT: ['4000', '4001'] }),
    });
    players = 5;
    client.write(bytes(IAC, DO, MSSP));
    await client.waitFor(() => client.subs(MSSP).length === 1, 'MSSP reply');
    expect(decodeMssp(client.subs(MSSP)[0]!)).toEqual({ NAME: ['lightmud'], PLAYERS: ['5'], PORT: ['4000', '4001'] });
    client.write('MSSP-REQUEST\r\nlook\r\n');
    await linesReached(conn, lines, 1);
    expect(lines).toEqual(['look']); // the request is answered, not passed on as a command
    await client.waitFor(() => client.text().includes('MSSP-REPLY-END'), 'text MSSP');
    expect(client.text()).toContain('MSSP-REPLY-START\r\nNAME\tlightmud\r\nPLAYERS\t5\r\nPORT\t4000\r\nPORT\t4001\r\nMSSP-REPLY-END\r\n');
  });

  it('refuses MSSP when no status was configured', async () => {
    const { conn, client, lines } = await setup();
    client.write(bytes(IAC, DO, MSSP, 'MSSP-REQUEST\r\n'));
    await linesReached(conn, lines, 1);
    await client.waitFor(() => client.negotiations().includes(`WONT ${MSSP}`), 'WONT MSSP');
    expect(lines).toEqual(['MSSP-REQUEST']);
  });

  it('compresses with MCCP2 after the client agrees, and ends the stream properly on close', async () => {
    const { conn, client } = await setup();
    client.write(bytes(IAC, DO, MCCP2));
    await client.waitFor(() => client.compressed, 'MCCP2 start');
    expect(conn.compressing).toBe(true);
    const long = 'The rain falls on the cobbles of Harrowmere. '.repeat(200);
    conn.send(long);
    conn.prompt('> ');
    await client.waitFor(() => client.commands().includes(GA) || client.commands().includes(EOR), 'prompt mark');
    expect(client.text()).toContain('The rain falls on the cobbles');
    expect(client.wireBytes).toBeLessThan(long.length / 4); // it really is compressed
    conn.close('Goodbye.');
    await client.waitFor(() => client.ended && client.compressionEnded, 'end of stream and socket');
    expect(client.compressionError).toBeNull();
    expect(client.text()).toContain('Goodbye.\r\n');
  });

  it('stops compressing when the client says DONT MCCP2, carrying on uncompressed', async () => {
    const { conn, client, lines } = await setup();
    client.write(bytes(IAC, DO, MCCP2));
    await client.waitFor(() => client.compressed, 'MCCP2 start');
    conn.send('compressed line');
    client.write(bytes(IAC, DONT, MCCP2, 'x\r\n'));
    await linesReached(conn, lines, 1);
    expect(conn.compressing).toBe(false);
    conn.send('plain line');
    await client.waitFor(() => client.text().includes('plain line'), 'plain text after the stream');
    expect(client.compressionEnded).toBe(true);
    expect(client.compressionError).toBeNull();
    expect(client.text()).toContain('compressed line');
  });

  it('unescapes IAC IAC in input and never lets IAC sequences into commands', async () => {
    const { conn, client, lines } = await setup();
    client.write(bytes('lo', IAC, IAC, 'ok', IAC, NOP(), 'ing', IAC, SB, 99, 'junk', IAC, SE, '\r\n'));
    await linesReached(conn, lines, 1);
    expect(lines).toEqual(['looking']); // 0xFF data byte is not UTF-8: dropped; NOP and SB removed
  });

  it('discards a 1 MB line without closing, and reads the next line', async () => {
    const { conn, client, lines, errors } = await setup();
    client.write(Buffer.alloc(1 << 20, 0x78));
    client.write('\r\nlook\r\n');
    await linesReached(conn, lines, 1);
    expect(lines).toEqual(['look']);
    expect(errors.map((e) => e.code)).toEqual(['line_too_long']);
    conn.send('still here');
    await client.waitFor(() => client.text().includes('still here'), 'reply');
  });

  it('rate-limits a flood of lines, reporting it once, and keeps the connection', async () => {
    const { conn, client, lines, errors } = await setup();
    client.write(Array.from({ length: 300 }, (_, i) => `say ${i}\r\n`).join(''));
    client.write(bytes(IAC, 246)); // AYT after the flood: its answer shows every line before it was read
    await client.waitFor(() => client.text().includes('[Yes]'), 'AYT answer');
    expect(lines.length).toBeGreaterThanOrEqual(40);
    expect(lines.length).toBeLessThan(300);
    expect(lines[0]).toBe('say 0');
    expect(errors.filter((e) => e.code === 'rate_limited')).toHaveLength(1);
    conn.send('still here');
    await client.waitFor(() => client.text().includes('still here'), 'reply');
  });

  it('survives garbage bytes and still reads commands after them', async () => {
    const { conn, client, lines } = await setup({ maxLinesPerSecond: 100000 });
    let s = 99;
    const rand = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let k = 0; k < 16; k++) {
      client.write(Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rand() * 256))));
    }
    // Resynchronise: end any open subnegotiation or half-read command, then a clean line.
    client.write(bytes(IAC, SE, IAC, 241, '\r\nlook here\r\n'));
    while (!lines.includes('look here')) await once(conn, 'line');
    expect(conn.closed).toBe(false);
    for (const l of lines) expect(l).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it('reads a negotiation sent one byte per packet', async () => {
    const { conn, client, lines } = await setup();
    const seq = bytes(IAC, WILL, NAWS, sb(NAWS, 0, 100, 0, 50), 'lo', 'ok\r', '\n');
    for (const b of seq) {
      client.write(Buffer.of(b));
      await new Promise((r) => setImmediate(r));
    }
    await linesReached(conn, lines, 1);
    expect(conn.width).toBe(100);
    expect(lines).toEqual(['look']);
  });

  it('marks prompts with GA, or EOR once agreed, or nothing under SGA', async () => {
    const { conn, client, lines } = await setup();
    conn.prompt('> ');
    await client.waitFor(() => client.commands().includes(GA), 'GA');
    client.write(bytes(IAC, DO, EOR_OPT, 'a\r\n'));
    await linesReached(conn, lines, 1);
    conn.prompt('> ');
    await client.waitFor(() => client.commands().includes(EOR), 'EOR');
    client.write(bytes(IAC, DONT, EOR_OPT, IAC, DO, SGA, 'b\r\n'));
    await linesReached(conn, lines, 2);
    await client.waitFor(() => client.negotiations().includes(`WILL ${SGA}`), 'WILL SGA');
    const before = client.commands().length;
    conn.prompt('> ');
    conn.send('after');
    await client.waitFor(() => client.text().endsWith('after\r\n'), 'text');
    expect(client.commands().length).toBe(before);
  });

  it('strips colour when the player turns it off', async () => {
    const { conn, client } = await setup();
    conn.send('\x1b[31mred\x1b[0m');
    conn.setColour(false);
    conn.send('\x1b[32mgreen\x1b[0m');
    await client.waitFor(() => client.text().includes('green'), 'text');
    expect(client.text()).toContain('\x1b[31mred\x1b[0m\r\ngreen\r\n');
  });

  it('exchanges MSDP values once agreed', async () => {
    const { conn, client } = await setup();
    const got = once<[string, unknown]>(conn, 'msdp');
    client.write(bytes(IAC, DO, MSDP, sb(MSDP, encodeMsdp('LIST', 'COMMANDS'))));
    expect(await got).toEqual(['LIST', 'COMMANDS']);
    expect(conn.sendMsdp('ROOM', { NAME: 'Hall', EXITS: ['n', 's'] })).toBe(true);
    await client.waitFor(() => client.subs(MSDP).length === 1, 'MSDP');
    expect(decodeMsdp(client.subs(MSDP)[0]!)).toEqual([{ variable: 'ROOM', value: { NAME: 'Hall', EXITS: ['n', 's'] } }]);
  });

  it('asks for UTF-8 through CHARSET', async () => {
    const { conn, client, lines } = await setup();
    client.write(bytes(IAC, WILL, CHARSET));
    await client.waitFor(() => client.subs(CHARSET).length === 1, 'REQUEST');
    expect(client.subs(CHARSET)[0]).toEqual(Buffer.from('\x01 UTF-8', 'latin1'));
    client.write(bytes(sb(CHARSET, 2, 'UTF-8'), 'x\r\n'));
    await linesReached(conn, lines, 1);
    expect(conn.charset).toBe('UTF-8');
  });

  it('answers AYT and applies erase-character and erase-line', async () => {
    const { conn, client, lines } = await setup();
    client.write(bytes(IAC, 246));
    await client.waitFor(() => client.text().includes('[Yes]'), 'AYT answer');
    client.write(bytes('lookk', IAC, 247, '\r\n', 'garbage', IAC, 248, 'north\r\n'));
    await linesReached(conn, lines, 2);
    expect(lines).toEqual(['look', 'north']);
  });

  it('closes an idle connection with a message', async () => {
    const { conn, client, errors } = await setup({ idleTimeoutMs: 150 });
    await once(conn, 'close');
    expect(errors.map((e) => e.code)).toEqual(['idle_timeout']);
    await client.waitFor(() => client.ended, 'end');
    expect(client.text()).toContain('Idle too long; disconnecting.');
  });

  it("emits 'close' when the client goes away, and ignores writes after", async () => {
    const { conn, client } = await setup();
    const closed = once(conn, 'close');
    await client.close();
    await closed;
    expect(conn.closed).toBe(true);
    conn.send('nobody hears this');
    conn.prompt('> ');
    expect(conn.sendGmcp('Room.Info', {})).toBe(false);
  });

  it('delivers a last line not ended by a newline when the client closes', async () => {
    const { conn, client, lines } = await setup();
    client.write('quit');
    client.socket.end();
    await once(conn, 'close');
    expect(lines).toEqual(['quit']);
  });

  it('gives up on a client that does not read its output', async () => {
    const { conn, client, errors } = await setup({ maxOutputBuffer: 256 * 1024 });
    client.socket.pause();
    const closed = once(conn, 'close', 10000);
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 2000 && !conn.closed; i++) {
      conn.send(chunk);
      if (i % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    await closed;
    expect(errors.map((e) => e.code)).toContain('output_overflow');
  });
});

function NOP(): number {
  return 241;
}

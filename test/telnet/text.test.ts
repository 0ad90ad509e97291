import { describe, expect, it } from 'vitest';
import { LineAssembler, decodeLine, formatOutput, stripAnsi, wrapLine, visibleLength } from '../../server/net/telnet/text.js';
import {
  decodeGmcp,
  decodeMsdp,
  decodeMssp,
  encodeGmcp,
  encodeMsdp,
  encodeMssp,
  escapeIac,
  msspText,
  parseCharset,
  parseNaws,
  parseTtypeIs,
  subnegotiation,
} from '../../server/net/telnet/encode.js';

function assemble(chunks: Array<string | Buffer>, max = 4096): { lines: string[]; overflows: number } {
  const lines: string[] = [];
  let overflows = 0;
  const a = new LineAssembler(max, (b) => lines.push(b.toString('latin1')), () => overflows++);
  for (const c of chunks) a.feed(typeof c === 'string' ? Buffer.from(c, 'latin1') : c);
  return { lines, overflows };
}

describe('input lines', () => {
  it('ends lines at CR LF, CR NUL, lone CR, LF and LF CR, each counting once', () => {
    expect(assemble(['a\r\nb\r\0c\rd\ne\n\rf\r\n']).lines).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(assemble(['\r\n\r\n']).lines).toEqual(['', '']);
  });

  it('handles line ends split across chunks', () => {
    expect(assemble(['look\r', '\nsay hi\r', '\0', 'x\n']).lines).toEqual(['look', 'say hi', 'x']);
    expect(assemble([...'ab\r\ncd\r\n'].map((c) => c)).lines).toEqual(['ab', 'cd']);
  });

  it('discards an over-long line whole, reports it once, and keeps reading', () => {
    const chunks = Array.from({ length: 100 }, () => 'x'.repeat(1000));
    const r = assemble([...chunks, '\r\nlook\r\n'], 4096);
    expect(r.overflows).toBe(1);
    expect(r.lines).toEqual(['look']);
  });

  it('erases characters (UTF-8 aware) and lines on IAC EC / IAC EL', () => {
    const lines: string[] = [];
    const a = new LineAssembler(100, (b) => lines.push(b.toString('utf8')), () => undefined);
    a.feed(Buffer.from('café'));
    a.eraseChar();
    a.feed(Buffer.from('e\r\n'));
    a.feed(Buffer.from('oops'));
    a.eraseLine();
    a.feed(Buffer.from('look\r\n'));
    expect(lines).toEqual(['cafe', 'look']);
  });

  it('decodes UTF-8, drops invalid bytes, control characters and terminal escapes, applies backspace', () => {
    expect(decodeLine(Buffer.from('say héllo wörld ✓'))).toBe('say héllo wörld ✓');
    expect(decodeLine(Buffer.from([0x61, 0xff, 0xc3, 0x62]))).toBe('ab');
    expect(decodeLine(Buffer.from('lo\x00o\x07k'))).toBe('look');
    expect(decodeLine(Buffer.from('lookx\x08'))).toBe('look');
    expect(decodeLine(Buffer.from('lo\x1b[Aok\x1b[1;5C'))).toBe('look');
    expect(decodeLine(Buffer.from('say\thi'))).toBe('say hi');
    expect(decodeLine(Buffer.from('say \u202eevil'))).toBe('say evil');
    expect(decodeLine(Buffer.from('\u0085x\u009b'))).toBe('x');
  });

  it('reads a non-UTF-8 line as Latin-1 only when asked to', () => {
    const latin = Buffer.from('caf\xe9', 'latin1');
    expect(decodeLine(latin)).toBe('caf');
    expect(decodeLine(latin, true)).toBe('café');
    expect(decodeLine(Buffer.from('café'), true)).toBe('café');
  });
});

describe('output text', () => {
  it('turns LF, CR LF and lone CR into CR LF', () => {
    expect(formatOutput('a\nb\r\nc\rd', { width: 0, colour: true })).toBe('a\r\nb\r\nc\r\nd');
  });

  it('wraps words to the width, not counting colour codes', () => {
    const text = 'The quick brown fox jumps over the lazy dog near the river bank.';
    const lines = wrapLine(text, 20);
    expect(lines.every((l) => l.length <= 20)).toBe(true);
    expect(lines.join(' ')).toBe(text);
    const coloured = '\x1b[1;32mThe\x1b[0m quick brown fox jumps';
    const w = wrapLine(coloured, 15);
    expect(w.map(visibleLength).every((n) => n <= 15)).toBe(true);
    expect(stripAnsi(w.join(' '))).toBe('The quick brown fox jumps');
  });

  it('cuts words longer than the line and keeps indentation', () => {
    expect(wrapLine('x'.repeat(45), 20)).toEqual(['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]);
    expect(wrapLine('    indented words here', 14)).toEqual(['    indented', 'words here']);
  });

  it('counts code points, not UTF-16 units or bytes', () => {
    expect(visibleLength('héllo 🐉')).toBe(7);
    expect(wrapLine('🐉🐉🐉 🐉🐉', 3)).toEqual(['🐉🐉🐉', '🐉🐉']);
  });

  it('strips colour when colour is off', () => {
    expect(formatOutput('\x1b[31mred\x1b[0m and \x1b[38;5;200mpink\x1b[m', { width: 80, colour: false })).toBe('red and pink');
    expect(stripAnsi('\x1b]0;title\x07text')).toBe('text');
  });
});

describe('encoders', () => {
  it('doubles IAC bytes in data and subnegotiations', () => {
    expect(escapeIac(Buffer.of(1, 255, 2, 255, 255))).toEqual(Buffer.of(1, 255, 255, 2, 255, 255, 255, 255));
    expect(subnegotiation(31, Buffer.of(0, 255, 0, 24))).toEqual(Buffer.of(255, 250, 31, 0, 255, 255, 0, 24, 255, 240));
  });

  it('reads NAWS and TTYPE payloads', () => {
    expect(parseNaws(Buffer.of(0, 132, 0, 50))).toEqual({ width: 132, height: 50 });
    expect(parseNaws(Buffer.of(0, 132))).toBeNull();
    expect(parseTtypeIs(Buffer.from('\0MUDLET'))).toBe('MUDLET');
    expect(parseTtypeIs(Buffer.from('\x01MUDLET'))).toBeNull();
    expect(parseTtypeIs(Buffer.from('\0\x1b[31mX'))).toBe('[31mX');
  });

  it('writes MSSP with one VAR and several VALs for a list, and reads it back', () => {
    const vars = { NAME: 'lightmud', PLAYERS: '3', PORT: ['4000', '4001'], BAD: 'a\x01b\x02c' };
    const payload = encodeMssp(vars);
    expect(payload.subarray(0, 6)).toEqual(Buffer.from('\x01NAME\x02', 'latin1'));
    expect(decodeMssp(payload)).toEqual({ NAME: ['lightmud'], PLAYERS: ['3'], PORT: ['4000', '4001'], BAD: ['abc'] });
    expect(msspText({ NAME: 'x', PORT: ['1', '2'] })).toBe('MSSP-REPLY-START\nNAME\tx\nPORT\t1\nPORT\t2\nMSSP-REPLY-END\n');
  });

  it('writes and reads GMCP messages, refusing bad ones clearly', () => {
    expect(encodeGmcp('Room.Info', { num: 1, name: 'Hall' }).toString()).toBe('Room.Info {"num":1,"name":"Hall"}');
    expect(encodeGmcp('Core.Ping').toString()).toBe('Core.Ping');
    expect(() => encodeGmcp('bad name', 1)).toThrow(/package name/);
    expect(() => encodeGmcp('Char.X', () => 1)).toThrow(/JSON/);
    expect(decodeGmcp(Buffer.from('Core.Hello { "client": "Mudlet", "version": "4.19.1"}'))).toEqual({
      ok: true,
      pkg: 'Core.Hello',
      data: { client: 'Mudlet', version: '4.19.1' },
    });
    expect(decodeGmcp(Buffer.from('Core.Ping'))).toEqual({ ok: true, pkg: 'Core.Ping', data: undefined });
    expect(decodeGmcp(Buffer.from('Char.Vitals {broken'))).toMatchObject({ ok: false });
    expect(decodeGmcp(Buffer.from(''))).toMatchObject({ ok: false });
  });

  it('round-trips MSDP strings, arrays and tables', () => {
    const value = { NAME: 'Ada', EXITS: ['north', 'south'], STATS: { HP: '10' } };
    expect(decodeMsdp(encodeMsdp('CHARACTER', value))).toEqual([{ variable: 'CHARACTER', value }]);
    expect(decodeMsdp(Buffer.from('\x01REPORT\x02HEALTH\x02MANA', 'latin1'))).toEqual([
      { variable: 'REPORT', value: ['HEALTH', 'MANA'] },
    ]);
    expect(decodeMsdp(Buffer.from('\x01LIST\x02COMMANDS', 'latin1'))).toEqual([{ variable: 'LIST', value: 'COMMANDS' }]);
  });

  it('reads CHARSET requests and answers', () => {
    expect(parseCharset(Buffer.from('\x01;UTF-8;ISO-8859-1', 'latin1'))).toEqual({ kind: 'request', charsets: ['UTF-8', 'ISO-8859-1'] });
    expect(parseCharset(Buffer.from('\x02UTF-8', 'latin1'))).toEqual({ kind: 'accepted', charset: 'UTF-8' });
    expect(parseCharset(Buffer.from('\x03', 'latin1'))).toEqual({ kind: 'rejected' });
  });
});

import { describe, expect, it } from 'vitest';
import { TelnetParser, type TelnetEvent } from '../../server/net/telnet/parser.js';
import { bytes, sb, IAC, SB, SE, WILL, DO, DONT, WONT, GA } from './helpers.js';

/** Parse `input` split into the given chunks; merge adjacent data events so splits compare equal. */
function parseChunks(chunks: Buffer[], maxSub?: number): TelnetEvent[] {
  const p = new TelnetParser(maxSub ? { maxSubnegotiation: maxSub } : {});
  const out: TelnetEvent[] = [];
  for (const c of chunks) {
    for (const ev of p.parse(c)) {
      const last = out[out.length - 1];
      if (ev.type === 'data' && last?.type === 'data') last.data = Buffer.concat([last.data, ev.data]);
      else out.push(ev);
    }
  }
  return out;
}

function splitAt(buf: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...cuts, buf.length]) {
    out.push(buf.subarray(prev, c));
    prev = c;
  }
  return out;
}

function bytewise(buf: Buffer): Buffer[] {
  return [...buf].map((b) => Buffer.of(b));
}

/** A tiny deterministic PRNG so fuzz cases are reproducible. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const stream = bytes(
  'hello ',
  IAC, IAC, // escaped 0xFF in data
  ' world\r\n',
  IAC, WILL, 31,
  sb(31, 0, 80, 0, IAC, IAC), // NAWS 80 x 255 with the IAC doubled
  IAC, GA,
  IAC, DO, 201,
  sb(201, 'Core.Hello {"client":"x"}'),
  'look\r\n',
  IAC, DONT, 1,
  IAC, WONT, 86,
);

describe('telnet parser', () => {
  it('separates data, commands, negotiations and subnegotiations', () => {
    const evs = parseChunks([stream]);
    expect(evs).toEqual([
      { type: 'data', data: Buffer.from('hello \xff world\r\n', 'latin1') },
      { type: 'negotiate', verb: WILL, option: 31 },
      { type: 'sub', option: 31, data: Buffer.of(0, 80, 0, 255) },
      { type: 'command', command: GA },
      { type: 'negotiate', verb: DO, option: 201 },
      { type: 'sub', option: 201, data: Buffer.from('Core.Hello {"client":"x"}') },
      { type: 'data', data: Buffer.from('look\r\n') },
      { type: 'negotiate', verb: DONT, option: 1 },
      { type: 'negotiate', verb: WONT, option: 86 },
    ]);
  });

  it('gives the same events whatever the chunk boundaries, byte by byte included', () => {
    const whole = parseChunks([stream]);
    expect(parseChunks(bytewise(stream))).toEqual(whole);
    for (let a = 1; a < stream.length; a++) {
      expect(parseChunks(splitAt(stream, [a]))).toEqual(whole);
    }
    const r = rng(7);
    for (let k = 0; k < 200; k++) {
      const cuts = [...new Set(Array.from({ length: 5 }, () => 1 + Math.floor(r() * (stream.length - 1))))].sort((x, y) => x - y);
      expect(parseChunks(splitAt(stream, cuts))).toEqual(whole);
    }
  });

  it('ends a subnegotiation broken by IAC <command> and reads the command', () => {
    // The client forgot IAC SE after the TTYPE answer; the next negotiation must still be seen.
    const evs = parseChunks([bytes(IAC, SB, 24, 0, 'XTERM', IAC, WILL, 31, 'look\r\n')]);
    expect(evs[0]).toMatchObject({ type: 'error', code: 'bad_subnegotiation' });
    expect(evs.slice(1)).toEqual([
      { type: 'negotiate', verb: WILL, option: 31 },
      { type: 'data', data: Buffer.from('look\r\n') },
    ]);
  });

  it('discards a subnegotiation past the size limit up to its IAC SE, keeping what follows', () => {
    const big = Buffer.alloc(5000, 0x41);
    const input = bytes(sb(201, big), 'look\r\n', sb(201, 'Core.Ping'));
    for (const chunks of [[input], bytewise(input), splitAt(input, [10, 2000, 4999, 5004])]) {
      const evs = parseChunks(chunks, 1024);
      expect(evs.filter((e) => e.type === 'error')).toHaveLength(1);
      expect(evs[0]).toMatchObject({ type: 'error', code: 'subnegotiation_too_long' });
      expect(evs.slice(1)).toEqual([
        { type: 'data', data: Buffer.from('look\r\n') },
        { type: 'sub', option: 201, data: Buffer.from('Core.Ping') },
      ]);
    }
  });

  it('reports a stray IAC SE as a command and carries on', () => {
    expect(parseChunks([bytes('a', IAC, SE, 'b')])).toEqual([
      { type: 'data', data: Buffer.from('a') },
      { type: 'command', command: SE },
      { type: 'data', data: Buffer.from('b') },
    ]);
  });

  it('keeps an empty subnegotiation (IAC SB MCCP2 IAC SE)', () => {
    expect(parseChunks([bytes(IAC, SB, 86, IAC, SE)])).toEqual([{ type: 'sub', option: 86, data: Buffer.alloc(0) }]);
  });

  it('survives random garbage in random chunks, and parses the same as in one piece', () => {
    const r = rng(42);
    for (let round = 0; round < 20; round++) {
      const garbage = Buffer.from(Array.from({ length: 4000 }, () => (r() < 0.05 ? 255 : Math.floor(r() * 256))));
      const whole = parseChunks([garbage], 512);
      const cuts: number[] = [];
      for (let at = 0; at < garbage.length; at += 1 + Math.floor(r() * 50)) if (at > 0) cuts.push(at);
      expect(parseChunks(splitAt(garbage, cuts), 512)).toEqual(whole);
    }
  });

  it('parses a megabyte of plain data as views without copying per byte', () => {
    const p = new TelnetParser();
    const big = Buffer.alloc(1 << 20, 0x61);
    let total = 0;
    p.feed(big, (ev) => {
      if (ev.type === 'data') total += ev.data.length;
    });
    expect(total).toBe(big.length);
  });
});

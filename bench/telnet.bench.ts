/**
 * Telnet layer speed: `npm run bench -- --json --only telnet`.
 *
 * - parser: MB/s through TelnetParser for typed-command traffic (short lines with a NAWS/GMCP subnegotiation
 *   now and then) and for bulk data;
 * - lines: MB/s through the parser, line assembly and UTF-8 decoding/sanitising (what a connection does to input);
 * - output: MB/s through formatOutput (CR LF, word wrap to 80 columns, colour kept) plus IAC escaping;
 * - mccp2: bytes on the wire for MUD-like output sent as messages of ~300 bytes, each written with Z_SYNC_FLUSH
 *   as the connection does, and the compression speed.
 * Pure CPU figures on this machine, no sockets.
 */
import zlib from 'node:zlib';
import type { BenchContext } from './report.js';
import { TelnetParser } from '../server/net/telnet/parser.js';
import { LineAssembler, decodeLine, formatOutput } from '../server/net/telnet/text.js';
import { escapeIac, subnegotiation } from '../server/net/telnet/encode.js';

const WORDS =
  'the a rusty sword lies on the dusty floor of tavern where an old dog sleeps beside fire and the innkeeper polishes mugs while rain falls on cobbles of Harrowmere north south east west'.split(
    ' ',
  );

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(r: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(r() * WORDS.length)]!).join(' ');
}

/** Client input: commands of 5-40 bytes ending CR LF, with a NAWS or GMCP subnegotiation every 50 lines. */
function clientTraffic(bytes: number): Buffer {
  const r = rng(1);
  const parts: Buffer[] = [];
  let n = 0;
  let line = 0;
  while (n < bytes) {
    const b =
      ++line % 50 === 0
        ? r() < 0.5
          ? subnegotiation(31, Buffer.of(0, 80 + (line % 40), 0, 24))
          : subnegotiation(201, 'Core.Supports.Add ["Room 1"]')
        : Buffer.from(`${sentence(r, 1 + Math.floor(r() * 6))}\r\n`);
    parts.push(b);
    n += b.length;
  }
  return Buffer.concat(parts);
}

function time(fn: () => void, minMs: number): { perRun: number; runs: number } {
  fn(); // warm up
  let runs = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < minMs) {
    fn();
    runs++;
    t = performance.now();
  }
  return { perRun: (t - t0) / runs, runs };
}

export default async function telnetBench(ctx: BenchContext): Promise<void> {
  const size = ctx.quick ? 1 << 20 : 8 << 20;
  const minMs = ctx.quick ? 200 : 1500;
  const traffic = clientTraffic(size);
  // Cut into socket-sized chunks at arbitrary points (sequences split across chunks included).
  const chunks: Buffer[] = [];
  for (let i = 0; i < traffic.length; i += 1460) chunks.push(traffic.subarray(i, i + 1460));
  const mb = traffic.length / (1 << 20);

  {
    let events = 0;
    const { perRun } = time(() => {
      const p = new TelnetParser();
      for (const c of chunks) p.feed(c, () => void events++);
    }, minMs);
    ctx.report({ bench: 'telnet.parser.commands', mb_per_s: mb / (perRun / 1000), mb: Math.round(mb * 10) / 10 });
  }
  {
    const bulk = Buffer.alloc(size, 0x61);
    const { perRun } = time(() => new TelnetParser().feed(bulk, () => undefined), minMs);
    ctx.report({ bench: 'telnet.parser.bulk', mb_per_s: bulk.length / (1 << 20) / (perRun / 1000) });
  }
  {
    let lines = 0;
    const { perRun } = time(() => {
      const p = new TelnetParser();
      const a = new LineAssembler(4096, (b) => {
        decodeLine(b);
        lines++;
      }, () => undefined);
      for (const c of chunks) {
        p.feed(c, (ev) => {
          if (ev.type === 'data') a.feed(ev.data);
        });
      }
    }, minMs);
    const linesPerRun = traffic.toString('latin1').split('\r\n').length - 1;
    ctx.report({
      bench: 'telnet.input.lines',
      mb_per_s: mb / (perRun / 1000),
      lines_per_s: linesPerRun / (perRun / 1000),
    });
  }

  // Output: room descriptions and chatter, ~300-byte messages.
  const r = rng(2);
  const messages = Array.from({ length: 2000 }, () => `\x1b[1;33m${sentence(r, 8)}\x1b[0m\n${sentence(r, 40)}`);
  const outBytes = messages.reduce((n, m) => n + Buffer.byteLength(m), 0);
  {
    const { perRun } = time(() => {
      for (const m of messages) escapeIac(Buffer.from(formatOutput(m, { width: 80, colour: true }), 'utf8'));
    }, minMs);
    ctx.report({
      bench: 'telnet.output.format',
      mb_per_s: outBytes / (1 << 20) / (perRun / 1000),
      messages_per_s: messages.length / (perRun / 1000),
    });
  }
  {
    const formatted = messages.map((m) => Buffer.from(formatOutput(m, { width: 80, colour: true }) + '\r\n'));
    const raw = formatted.reduce((n, b) => n + b.length, 0);
    const t0 = performance.now();
    const deflate = zlib.createDeflate({ level: 6 });
    let wire = 0;
    deflate.on('data', (c: Buffer) => (wire += c.length));
    for (const b of formatted) {
      deflate.write(b);
      await new Promise<void>((resolve) => deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
    }
    await new Promise<void>((resolve) => deflate.end(() => resolve()));
    const ms = performance.now() - t0;
    ctx.report({
      bench: 'telnet.mccp2',
      raw_bytes: raw,
      wire_bytes: wire,
      ratio: wire / raw,
      messages_per_s: formatted.length / (ms / 1000),
    });
  }
}
